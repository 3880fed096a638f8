"""The decorated examples against the same functions run as plain NumPy.

For each program of ``examples/`` (LRA, linear regression, k-means, the
one-hidden-layer network, ALS) the ``@Phylanx`` function and its ``.python``
original run on the same inputs; the best of ``--repeat`` runs is reported
with the ratio phylanx / NumPy.  ``--scale`` multiplies the number of rows
(samples, points, users) to show how the fixed per-node cost fades as the
arrays grow.  Run: ``python benchmarks/examples_vs_numpy.py [--scale 10]``.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))

import als  # noqa: E402
import kmeans  # noqa: E402
import linear_regression  # noqa: E402
import lra  # noqa: E402
import nn  # noqa: E402
from _data import synthetic_classification  # noqa: E402


def best_of(fn, args, repeat: int) -> float:
    fn(*args)  # warm-up: translation and compilation happen here, outside the timing
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def workloads(scale: int):
    rng = np.random.default_rng(0)
    x, y = synthetic_classification(n=569 * scale, d=30)
    yield "lra (750 iterations)", lra.lra, (x, y, 1e-3, 750, False)
    xl, yl, _ = linear_regression.synthetic(n=400 * scale)
    yield "linear regression (500 it.)", linear_regression.linear_regression, (xl, yl, 1e-3, 500)
    points, _ = kmeans.blobs(per=50 * scale)
    initial = points[:: len(points) // 3][:3].copy()
    yield "k-means (10 iterations)", kmeans.kmeans, (points, initial, 10)
    w1, w2 = rng.normal(scale=0.1, size=(30, 16)), rng.normal(scale=0.1, size=(16, 1))
    yield "nn, 1 hidden layer (300 ep.)", nn.train, (x, y, w1, w2, 0.5, 300)
    ratings = als.synthetic(users=20 * scale)
    x0 = rng.uniform(size=(ratings.shape[0], 3))
    y0 = rng.uniform(size=(ratings.shape[1], 3))
    yield "als (10 iterations)", als.als, (ratings, x0, y0, 0.1, 10)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="best of N runs (default 5)")
    ap.add_argument("--scale", type=int, default=1, help="multiply the rows of every data set")
    args = ap.parse_args(argv)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, NumPy {np.__version__}; scale {args.scale}")
    print(f"{'workload':32s} {'phylanx':>10s} {'NumPy':>10s} {'ratio':>7s}")
    for name, fn, fargs in workloads(args.scale):
        t_ph = best_of(fn, fargs, args.repeat)
        t_np = best_of(fn.python, fargs, args.repeat)
        print(f"{name:32s} {1e3 * t_ph:8.1f}ms {1e3 * t_np:8.1f}ms {t_ph / t_np:6.2f}x")


if __name__ == "__main__":
    main()
