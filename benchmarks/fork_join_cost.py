"""What one ``fork_join`` of two empty pieces costs (the runtime's floor per concurrent group,
including the BLAS thread sharing of ``runtime/blas_threads.py``).

Best of ``--repeat`` rounds of ``--count`` groups, in microseconds per group.  Run it with
another checkout on ``PYTHONPATH`` to compare: ``python benchmarks/fork_join_cost.py``.
"""
from __future__ import annotations

import argparse
import os
import time

from phylanx.runtime.forkjoin import fork_join


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    def nothing():
        return None
    for _ in range(200):
        fork_join([nothing, nothing])     # start the pool, load the BLAS controllers
    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        for _ in range(args.count):
            fork_join([nothing, nothing])
        best = min(best, (time.perf_counter() - start) / args.count)
    print(f"fork_join of 2 empty pieces: {best * 1e6:.1f} us (best of {args.repeat} x "
          f"{args.count}); load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
