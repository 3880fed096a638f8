"""``x[a:b] += e`` outside loops: NumPy, phylanx with the rule ``update_in_place`` and
phylanx without it (compiler/rewrite/updates.py), interleaved call by call.

Each program is compiled twice in one process (the rule on, and off through the setting
``disable_rules``), its answers checked against NumPy's (bit for bit), then the three
peers take turns, the order rotating each round.  Prints NumPy's median time and each
phylanx peer's median over NumPy's::

    python benchmarks/slice_updates.py [--n 1000000] [--rounds 21]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from phylanx import Phylanx, config  # noqa: E402


def slice_add(x, e):
    x[1:-1] += e
    return x


def rows_scale(x, e):
    x[:, 1:] *= e
    return x


def mask_sub(x, e):
    x[x > 0.5] -= e
    return x


def row_add(x, e):
    x[3] += e
    return x


def name_div(x, e):
    x /= e
    return x


def programs(n: int) -> list:
    rng = np.random.default_rng(0)
    flat, rows = rng.random(n), rng.random((n // 100, 100))
    return [(slice_add, flat, rng.random(n - 2)), (rows_scale, rows, 1.0001),
            (mask_sub, flat, 1e-9), (row_add, rows, rng.random(100)),
            (name_div, flat, 1.0001)]


def compiled(fn, rule: bool):
    config.set("disable_rules", "" if rule else "update_in_place")
    try:
        dec = Phylanx(fn)
        dec._ensure_compiled()
    finally:
        config.reset("disable_rules")
    return dec


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="elements of the array")
    ap.add_argument("--rounds", type=int, default=21, help="timed calls per peer")
    args = ap.parse_args(argv)
    print(f"{'program':12} {'numpy ms':>9} {'rule on':>8} {'rule off':>9}")
    for fn, x, e in programs(args.n):
        peers = {"numpy": fn, "on": compiled(fn, True), "off": compiled(fn, False)}
        want = fn(x.copy(), e)
        for name, peer in peers.items():
            got = peer(x.copy(), e)
            assert got.dtype == want.dtype and np.array_equal(got, want), (fn.__name__, name)
        times: dict = {name: [] for name in peers}
        names = list(peers)
        work = x.copy()      # updated again each call: the values drift, the work is the same
        for r in range(args.rounds):
            for name in names[r % 3:] + names[:r % 3]:
                t0 = time.perf_counter()
                peers[name](work, e)
                times[name].append(time.perf_counter() - t0)
        base = statistics.median(times["numpy"])
        print(f"{fn.__name__:12} {base * 1e3:9.3f} "
              f"{statistics.median(times['on']) / base:7.2f}x "
              f"{statistics.median(times['off']) / base:8.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
