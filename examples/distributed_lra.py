"""Distributed logistic regression: the LRA example on several localities (MPI ranks).

Row tiling gives each locality a block of samples and all-reduces the gradient;
column tiling gives each a block of features and all-reduces the partial sums of
``x @ w``.  Either way every locality ends with the single-locality weights (to
float rounding: the sums are added in another order).

    phylanx run -n 2 examples/distributed_lra.py [--tiling rows|columns]
        [--samples 200000 --features 100] [--iterations 750] [--alpha 0.001]

Without ``--samples`` it uses the breast-cancer set (scikit-learn, else synthetic);
with it, synthetic data that each locality generates for its own rows from the seed.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from _data import breast_cancer
from _tiles import block, classification

from phylanx import Phylanx
from phylanx import distributed as dist
from phylanx.ops import all_gather, all_reduce


@Phylanx
def lra_rows(x, y, alpha, iterations):
    # x, y: this locality's samples; the weights are replicated, the gradient summed
    weights = np.zeros(x.shape[1])
    transx = x.T
    for _ in range(iterations):
        pred = 1.0 / (1.0 + np.exp(-(x @ weights)))
        gradient = all_reduce(transx @ (pred - y), "sum", "lra_gradient")
        weights = weights - alpha * gradient
    return weights


@Phylanx
def correct_rows(x, y, weights):
    return all_reduce(np.sum((x @ weights > 0) == (y > 0.5)), "sum", "lra_correct")


@Phylanx
def lra_columns(x, y, alpha, iterations):
    # x: all samples, this locality's features; its weights are that block only
    weights = np.zeros(x.shape[1])
    transx = x.T
    for _ in range(iterations):
        z = all_reduce(x @ weights, "sum", "lra_z")
        pred = 1.0 / (1.0 + np.exp(-z))
        weights = weights - alpha * (transx @ (pred - y))
    return weights


@Phylanx
def correct_columns(x, y, weights):
    z = all_reduce(x @ weights, "sum", "lra_z")
    return np.sum((z > 0) == (y > 0.5))


@Phylanx
def gather_columns(weights):
    return np.concatenate(all_gather(weights, "lra_weights"))


def local_data(args, rank: int, size: int):
    """This locality's tile ``(x, y)``, the global sample count and a description."""
    if args.samples:
        what = f"synthetic {args.samples} x {args.features} (seed {args.seed})"
        if args.tiling == "rows":
            x, y = classification(args.seed, args.features,
                                  *block(args.samples, size, rank))
        else:   # every sample, then this locality's features (generation is by rows)
            x, y = classification(args.seed, args.features, 0, args.samples)
        n = args.samples
    else:
        x, y, what = breast_cancer()
        n = x.shape[0]
        if args.tiling == "rows":
            start, stop = block(n, size, rank)
            x, y = x[start:stop], y[start:stop]
    if args.tiling == "columns":
        start, stop = block(x.shape[1], size, rank)
        x = np.ascontiguousarray(x[:, start:stop])
    return x, y, n, what


def train(args, x, y, iterations):
    """Full weights (on every locality) and the training accuracy."""
    if args.tiling == "rows":
        weights = lra_rows(x, y, args.alpha, iterations)
        return weights, correct_rows(x, y, weights)
    local = lra_columns(x, y, args.alpha, iterations)
    return gather_columns(local), correct_columns(x, y, local)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--tiling", choices=("rows", "columns"), default="rows",
                        help="split the samples (rows) or the features (columns)")
    parser.add_argument("--samples", type=int, default=0,
                        help="synthetic samples (0: the breast-cancer set)")
    parser.add_argument("--features", type=int, default=100, help="synthetic features")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic data")
    parser.add_argument("--iterations", type=int, default=750, help="gradient steps")
    parser.add_argument("--alpha", type=float, default=1e-3, help="learning rate")
    parser.add_argument("--check", action="store_true",
                        help="locality 0 also runs single-process NumPy on all the data")
    parser.add_argument("--save", help="locality 0 writes weights and accuracy (.npz)")
    args = parser.parse_args(argv)
    rank, size = dist.find_here(), dist.num_localities()
    if args.tiling == "columns" and args.samples == 0 and size > 30:
        parser.error("the breast-cancer set has 30 features: at most 30 localities")

    x, y, n, what = local_data(args, rank, size)
    train(args, x, y, 1)        # translate, compile, open the communicators: not timed
    dist.barrier(name="lra_start").result()
    start = time.perf_counter()
    weights, correct = train(args, x, y, args.iterations)
    elapsed = dist.all_reduce(time.perf_counter() - start, "max", name="lra_time").result()
    accuracy = float(correct) / n
    if rank != 0:
        return 0
    print(f"logistic regression, {args.tiling} tiling, {size} localit{'y' if size == 1 else 'ies'}"
          f": {what}, {args.iterations} iterations")
    print(f"accuracy: {accuracy:.4f}   time: {elapsed:.3f} s (slowest locality)")
    if args.check:
        import lra  # the single-locality example: its .python is plain NumPy
        args.tiling = "rows"
        full_x, full_y, _, _ = local_data(args, 0, 1)
        expected = lra.lra.python(full_x, full_y, args.alpha, args.iterations, False)
        print(f"matches single-process NumPy: {np.allclose(weights, expected)} "
              f"(max |difference| {np.max(np.abs(weights - expected)):.2e})")
    if args.save:
        np.savez(args.save, weights=weights, accuracy=accuracy, seconds=elapsed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
