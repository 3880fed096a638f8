"""Logistic regression (LRA) written as plain NumPy Python, run through @Phylanx.

Prints the training accuracy, iterations per second, and the time of the
same function run as plain NumPy (``lra.python``).

    python examples/lra.py [--iterations 750] [--alpha 0.001] [--csv FILE]
    phylanx run -n 2 examples/lra.py --tiled [--samples 100000 --features 100]

``--tiled``: the same ``lra`` function, unchanged, on row-tiled inputs
(``distributed.tiled``): on every locality it computes the whole problem's weights
(docs/distributed.md, "Global semantics"); rank 0 prints.  ``--samples``: synthetic
data of that many rows instead of the breast-cancer set.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from _data import breast_cancer

from phylanx import Phylanx


@Phylanx
def lra(x, y, alpha, iterations, enable_output):
    weights = np.zeros(x.shape[1])
    transx = x.T
    step = 0
    while step < iterations:
        if enable_output:
            print("step:", step, weights)
        pred = 1.0 / (1.0 + np.exp(-np.dot(x, weights)))
        error = pred - y
        gradient = np.dot(transx, error)
        weights = weights - alpha * gradient
        step += 1
    return weights


def accuracy(x, y, weights) -> float:
    return float(np.mean(((x @ weights) > 0) == (y > 0.5)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--iterations", type=int, default=750, help="gradient steps")
    parser.add_argument("--alpha", type=float, default=1e-3, help="learning rate")
    parser.add_argument("--csv", help="CSV file: header line, features, label in last column")
    parser.add_argument("--samples", type=int, help="synthetic data: rows (else breast cancer)")
    parser.add_argument("--features", type=int, default=100, help="synthetic data: columns")
    parser.add_argument("--tiled", action="store_true",
                        help="tile x and y by rows over the localities (phylanx run -n K)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs (best is shown)")
    parser.add_argument("--warmup", type=float, default=4.0,
                        help="seconds of untimed calls first: phylanx compiles a hot loop "
                             "in the background once it has run about a second "
                             "(phylanx/fusion/loops.py), as JAX compiles in its jit")
    args = parser.parse_args(argv)

    if args.samples:
        from _tiles import classification
        x, y = classification(0, args.features, 0, args.samples)
        what = "synthetic"
    else:
        x, y, what = breast_cancer(args.csv)
    inputs, rank, note = (x, y), 0, ""
    if args.tiled:
        from phylanx import distributed as dist
        inputs = (dist.tiled(x, "row", name="x"), dist.tiled(y, "row", name="y"))
        rank, localities = dist.find_here(), dist.num_localities()
        note = f", tiled by rows over {localities} localit{'ies' if localities > 1 else 'y'}"
    lra(*inputs, args.alpha, 1, False)   # translate and compile once, outside the timing
    start = time.perf_counter()
    # tiled: the ranks call lra in step, so they agree on the count (one warm-up call)
    while time.perf_counter() - start < args.warmup:
        lra(*inputs, args.alpha, args.iterations, False)
        if args.tiled:
            break

    def best_time(fn, data):
        times, result = [], None
        for _ in range(args.repeat):
            start = time.perf_counter()
            result = fn(*data, args.alpha, args.iterations, False)
            times.append(time.perf_counter() - start)
        return min(times), result

    t_phylanx, weights = best_time(lra, inputs)
    if rank != 0:
        return 0
    t_numpy, weights_np = best_time(lra.python, (x, y))
    print(f"data: {what}, {x.shape[0]} samples x {x.shape[1]} features{note}")
    print(f"accuracy: {accuracy(x, y, weights):.4f} (NumPy: {accuracy(x, y, weights_np):.4f}, "
          f"weights agree: {np.allclose(weights, weights_np)})")
    print(f"iterations/s: {args.iterations / t_phylanx:,.0f} (phylanx), "
          f"{args.iterations / t_numpy:,.0f} (NumPy)")
    print(f"time: phylanx {t_phylanx * 1e3:.1f} ms, NumPy {t_numpy * 1e3:.1f} ms, "
          f"ratio {t_phylanx / t_numpy:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
