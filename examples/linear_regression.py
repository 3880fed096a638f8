"""Linear regression by gradient descent, plain NumPy Python run through @Phylanx.

    python examples/linear_regression.py [--iterations 500] [--alpha 0.05]
"""
from __future__ import annotations

import argparse

import numpy as np

from phylanx import Phylanx


@Phylanx
def linear_regression(x, y, alpha, iterations):
    n, d = x.shape
    w = np.zeros(d)
    b = 0.0
    for _ in range(iterations):
        residual = x @ w + b - y
        w = w - alpha * (x.T @ residual) / n
        b = b - alpha * residual.mean()
    return w, b


def synthetic(n=400, d=5, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    true_w = np.arange(1.0, d + 1)
    y = x @ true_w + 0.5 + 0.01 * rng.normal(size=n)
    return x, y, true_w


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--iterations", type=int, default=500,
                        help="gradient steps")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="learning rate")
    args = parser.parse_args(argv)
    x, y, true_w = synthetic()
    w, b = linear_regression(x, y, args.alpha, args.iterations)
    w_np, b_np = linear_regression.python(x, y, args.alpha, args.iterations)
    print(f"weights: {np.round(w, 3)} (true {true_w}), bias {b:.3f}")
    print(f"matches NumPy: {np.allclose(w, w_np) and np.isclose(b, b_np)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
