"""Cache blocking on and off, in one process: what the rewrite itself buys (issue 11, item 3).

The same workload functions as ``benchmarks/run.py`` (W1 logistic regression, W2 k-means),
compiled twice: with both cache-blocking patterns and without; both with every other
change of the branch (BLAS thread sharing, the ``add_at`` fast path).  NumPy with its BLAS
threads and with one (threadpoolctl) run alongside.  Interleaved repetitions; prints the
best and the median of each, and the ratios of the medians to NumPy's.  With ``--tiles``
W1 large is also run at several ``tile_bytes``.

Run: ``python benchmarks/blocking.py [--full] [--repeat 5] [--tiles]``.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.workloads import w1_lra, w2_kmeans  # noqa: E402
from phylanx import Phylanx, config  # noqa: E402


def compiled(fn, blocking: bool):
    config.set("cache_blocking", blocking)
    config.set("blocking_gram", blocking)      # both patterns, to measure each
    try:
        return Phylanx(fn)
    finally:
        config.reset("cache_blocking")
        config.reset("blocking_gram")


def cases(full: bool):
    x, y, _ = w1_lra.data(569, 30, sklearn_ok=True)
    yield "W1 small 569x30, 100 it.", w1_lra.lra, (x, y, 1e-3, 100)
    n = 200_000 if full else 20_000
    x, y, _ = w1_lra.data(n, 100, sklearn_ok=False)
    yield f"W1 large {n}x100, {50 if full else 10} it.", w1_lra.lra, \
        (x, y, 1e-5, 50 if full else 10)
    for d in (2, 16):
        points, initial = w2_kmeans.data(1_000_000 if full else 100_000, d)
        yield f"W2 k-means {len(points):,} x {d}-D, 10 it.", w2_kmeans.kmeans, \
            (points, initial, 10)


def timed(runners: dict, repeat: int) -> dict:
    times: dict = {name: [] for name in runners}
    for _ in range(repeat):
        for name, run in runners.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return times


def report(title: str, times: dict) -> None:
    base = statistics.median(times["numpy"])
    cells = [f"{name} {statistics.median(t) * 1e3:.1f} ms (best {min(t) * 1e3:.1f}, "
             f"{statistics.median(t) / base:.2f}x)" for name, t in times.items()]
    print(f"{title}: " + "; ".join(cells), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="run.py's full sizes")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tiles", action="store_true", help="also sweep tile_bytes on W1 large")
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits
    print(f"{os.cpu_count()} cores; load average at the start {os.getloadavg()}")
    for title, fn, fargs in cases(args.full):
        on, off = compiled(fn, True), compiled(fn, False)
        for f in (on, off):
            f(*fargs)                         # translate + compile outside the timing
        reference = fn(*fargs)
        for f in (on, off):
            got = np.asarray(f(*fargs), dtype=float)
            scale = max(float(np.max(np.abs(reference))), 1e-300)
            assert float(np.max(np.abs(got - reference))) / scale < 1e-6, title

        def one_thread(fn=fn, fargs=fargs):
            with threadpool_limits(limits=1):
                return fn(*fargs)
        report(title, timed({"numpy": lambda fn=fn, fargs=fargs: fn(*fargs),
                             "numpy-1t": one_thread,
                             "blocking on": lambda on=on, fargs=fargs: on(*fargs),
                             "blocking off": lambda off=off, fargs=fargs: off(*fargs)},
                            args.repeat))
        if args.tiles and title.startswith("W1 large"):
            for size in (1 << 18, 1 << 19, 1 << 20, 1 << 21, 1 << 22):
                config.set("tile_bytes", size)
                report(f"  tile_bytes {size >> 10} KiB",
                       timed({"numpy": lambda fn=fn, fargs=fargs: fn(*fargs),
                              "blocking on": lambda on=on, fargs=fargs: on(*fargs)},
                             args.repeat))
            config.reset("tile_bytes")
    print(f"load average at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()
