"""Alternating least squares matrix factorisation, plain NumPy Python run through @Phylanx.

    python examples/als.py [--factors 3] [--iterations 10] [--reg 0.1]
"""
from __future__ import annotations

import argparse

import numpy as np

from phylanx import Phylanx


@Phylanx
def als(ratings, x, y, reg, iterations):
    k = x.shape[1]
    eye = np.eye(k)
    for _ in range(iterations):
        x = np.linalg.solve(y.T @ y + reg * eye, y.T @ ratings.T).T
        y = np.linalg.solve(x.T @ x + reg * eye, x.T @ ratings).T
    return x, y


def synthetic(users=20, items=15, factors=3, seed=3):
    rng = np.random.default_rng(seed)
    return rng.uniform(size=(users, factors)) @ rng.uniform(size=(factors, items))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--factors", type=int, default=3,
                        help="latent factors per user and per item")
    parser.add_argument("--iterations", type=int, default=10,
                        help="alternating least-squares sweeps")
    parser.add_argument("--reg", type=float, default=0.1,
                        help="ridge regularisation weight")
    args = parser.parse_args(argv)
    ratings = synthetic(factors=args.factors)
    rng = np.random.default_rng(0)
    x0 = rng.uniform(size=(ratings.shape[0], args.factors))
    y0 = rng.uniform(size=(ratings.shape[1], args.factors))
    x, y = als(ratings, x0, y0, args.reg, args.iterations)
    xn, yn = als.python(ratings, x0, y0, args.reg, args.iterations)
    rmse = np.sqrt(np.mean((x @ y.T - ratings) ** 2))
    print(f"reconstruction RMSE: {rmse:.4f}")
    print(f"matches NumPy: {np.allclose(x, xn) and np.allclose(y, yn)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
