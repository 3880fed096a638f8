"""Spawning BLAS products, or keeping them inline: the policy rule of
``runtime/policy.py`` (``KEEP_BLAS_PRODUCTS_INLINE``) measured on W4's training step.

    python benchmarks/policy_products.py [--rounds 4] [--repeat 30] [--no-torch]

Each round runs two fresh processes, the rule on and off (alternating which goes first).
Each times W4's step (MLP 784-512-512-10, batch 256, float32) of phylanx, NumPy's
hand-written step and, where installed, torch's, interleaved in rotating order as
``run.py`` does (``gc.collect()`` before each timed call: with torch loaded it takes
~130 ms), and prints the medians and phylanx's ratio to NumPy.  torch matters here: its
OpenMP threads keep spinning for a while after each call, so the machine is busy as a
shared one is, and phylanx's workers have to wait for a core.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def child(rule: bool, repeat: int, torch: bool) -> dict:
    sys.path.insert(0, HERE)
    sys.path.insert(1, os.path.dirname(HERE))
    import phylanx  # noqa: F401,I001  (before NumPy: OpenBLAS settings, as run.py)
    from phylanx.runtime import policy
    from workloads import w4_mlp
    policy.KEEP_BLAS_PRODUCTS_INLINE = rule
    sizes = [784, 512, 512, 10]
    x, y, w0 = w4_mlp.data(sizes, 256)
    setups = w4_mlp.setups(sizes, x, y, w0)
    peers = ["numpy", "phylanx"] + (["torch"] if torch else [])
    runs = {p: setups[p]() for p in peers}
    for run in runs.values():
        for _ in range(12):          # phylanx's policy decides after 5 timed evaluations
            run()
    times: dict[str, list[float]] = {p: [] for p in peers}
    for rep in range(repeat):
        shift = rep % len(peers)
        for peer in peers[shift:] + peers[:shift]:
            gc.collect()             # as run.py does before every timed call
            t0 = time.perf_counter()
            runs[peer]()
            times[peer].append(time.perf_counter() - t0)
    return {p: statistics.median(t) for p, t in times.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--child", choices=("on", "off"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    torch = not args.no_torch
    if torch:
        try:
            import torch as _  # noqa: F401
        except ImportError:
            print("torch is not installed: timing without it")
            torch = False
    if args.child:
        print(json.dumps(child(args.child == "on", args.repeat, torch)))
        return 0
    print(f"W4 step, {args.repeat} interleaved repetitions per process, peers numpy, "
          f"phylanx{', torch' if torch else ''}")
    ratios: dict[str, list[float]] = {"on": [], "off": []}
    for r in range(args.rounds):
        for rule in (("on", "off") if r % 2 == 0 else ("off", "on")):
            cmd = [sys.executable, __file__, "--child", rule, "--repeat", str(args.repeat)]
            out = subprocess.run(cmd + (["--no-torch"] if not torch else []),
                                 capture_output=True, text=True, check=True)
            med = json.loads(out.stdout.strip().splitlines()[-1])
            ratio = med["phylanx"] / med["numpy"]
            ratios[rule].append(ratio)
            others = ", ".join(f"{p} {1e3 * t:.2f} ms" for p, t in med.items())
            print(f"round {r + 1}, rule {rule:3s}: {others}; phylanx {ratio:.2f}x NumPy "
                  f"(load average {os.getloadavg()[0]:.1f})", flush=True)
    for rule, values in ratios.items():
        print(f"rule {rule}: phylanx/NumPy median {statistics.median(values):.2f}x over "
              f"{len(values)} processes ({', '.join(f'{v:.2f}' for v in values)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
