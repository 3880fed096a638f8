"""Distributed alternating least squares: the users (rows of the ratings) split over
the localities (MPI ranks).

The user factors of a locality's rows need only the item factors, which every
locality holds; the item factors' normal equations ``X^T X`` and ``X^T R`` are sums
over users, so they are all-reduced (one all_reduce of a k x (k + items) array) and
every locality solves the same system: single-locality ALS.

    phylanx run -n 2 examples/distributed_als.py [--users 2000] [--items 100] [--factors 5]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from _tiles import block, low_rank

from phylanx import Phylanx
from phylanx import distributed as dist
from phylanx.ops import all_gather, all_reduce


@Phylanx
def als_rows(ratings, x, y, reg, iterations):
    # ratings, x: this locality's users; y (the item factors) is replicated
    k = x.shape[1]
    eye = np.eye(k)
    for _ in range(iterations):
        x = np.linalg.solve(y.T @ y + reg * eye, y.T @ ratings.T).T
        normal = all_reduce(np.hstack((x.T @ x, x.T @ ratings)), "sum", "als_normal")
        y = np.linalg.solve(normal[:, :k] + reg * eye, normal[:, k:]).T
    return np.concatenate(all_gather(x, "als_users")), y


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--users", type=int, default=2000, help="rows of the ratings")
    parser.add_argument("--items", type=int, default=100, help="columns of the ratings")
    parser.add_argument("--factors", type=int, default=5, help="latent factors per user/item")
    parser.add_argument("--iterations", type=int, default=10, help="alternating sweeps")
    parser.add_argument("--reg", type=float, default=0.1, help="ridge regularisation weight")
    parser.add_argument("--seed", type=int, default=3, help="seed of the generated ratings")
    parser.add_argument("--check", action="store_true",
                        help="locality 0 also runs single-process NumPy on all the ratings")
    parser.add_argument("--save", help="locality 0 writes both factor matrices (.npz)")
    args = parser.parse_args(argv)
    rank, size = dist.find_here(), dist.num_localities()
    ratings, x0 = low_rank(args.seed, args.items, args.factors, *block(args.users, size, rank))
    y0 = np.random.default_rng([args.seed, 2**32]).uniform(size=(args.items, args.factors))

    als_rows(ratings, x0, y0, args.reg, 1)    # translate, compile, open the communicators
    dist.barrier(name="als_start").result()
    start = time.perf_counter()
    x, y = als_rows(ratings, x0, y0, args.reg, args.iterations)
    elapsed = dist.all_reduce(time.perf_counter() - start, "max", name="als_time").result()
    # the reconstruction error, summed over every locality's users
    sse = dist.all_reduce(float(np.sum((x[slice(*block(args.users, size, rank))] @ y.T
                                        - ratings) ** 2)), name="als_sse").result()
    if rank != 0:
        return 0
    print(f"ALS, {size} localit{'y' if size == 1 else 'ies'}: {args.users} users x {args.items} "
          f"items, {args.factors} factors, {args.iterations} iterations, "
          f"{elapsed:.3f} s (slowest locality)")
    print(f"reconstruction RMSE: {np.sqrt(sse / (args.users * args.items)):.5f}")
    if args.check:
        import als  # the single-locality example: its .python is plain NumPy
        all_ratings, all_x0 = low_rank(args.seed, args.items, args.factors, 0, args.users)
        x_np, y_np = als.als.python(all_ratings, all_x0, y0, args.reg, args.iterations)
        print(f"matches single-process NumPy: {np.allclose(x, x_np) and np.allclose(y, y_np)}")
    if args.save:
        np.savez(args.save, x=x, y=y)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
