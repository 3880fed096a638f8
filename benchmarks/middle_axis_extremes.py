"""``max``/``min`` over a middle axis of a C-contiguous array: NumPy's reduction against
halving (the upper half's elements against the lower half's, ``np.maximum`` of two
views, until one row is left), alternated in one run, over the byte length of the
block after the reduced axis (conv44: global max/min pooling of a Conv1D's activations,
``(batch, length, channels)`` over ``length``).

    python benchmarks/middle_axis_extremes.py [--calls 30] [--elements 262144]

Printed per dtype, reduced length and inner block: the median process CPU microseconds
of each and halving / NumPy (below 1: halving pays).  One BLAS thread does not matter
here (no products); state the machine's load when quoting.
"""
from __future__ import annotations

import argparse
import os
import sys
from functools import partial

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from workloads.common import median_cpu_us  # noqa: E402

from phylanx.primitives.statistics.reductions import halving_extreme  # noqa: E402

timed = median_cpu_us   # (median CPU microseconds of fn(), calls times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--elements", type=int, default=1 << 18)
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        for length in (8, 128, 1000):
            for inner in (1, 2, 4, 8, 16, 32, 64, 128):
                batch = max(1, args.elements // (length * inner))
                a = rng.standard_normal((batch, length, inner)).astype(dtype)
                plain = partial(np.max, a, axis=1)
                halved = partial(halving_extreme, np.maximum, a, 1)
                assert np.array_equal(plain(), halved())
                rounds = [(timed(plain, args.calls), timed(halved, args.calls))
                          for _ in range(3)]
                p, h = np.median([r[0] for r in rounds]), np.median([r[1] for r in rounds])
                print(f"  {np.dtype(dtype).name} length {length:5d}, inner "
                      f"{inner * a.itemsize:4d} bytes: NumPy {p:8.1f} us, halving "
                      f"{h:8.1f} us, ratio {h / p:.2f}")


if __name__ == "__main__":
    main()
