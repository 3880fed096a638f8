"""Distributed k-means: the points split by rows over the localities (MPI ranks).

Each locality assigns its own points to the nearest centroid, then the per-cluster
sums and counts are all-reduced (one all_reduce of a k x (d + 1) array), so every
locality computes the same new centroids: those of single-locality k-means.

    phylanx run -n 2 examples/distributed_kmeans.py [--points 3000] [--k 4] [--iterations 10]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from _tiles import blobs, block

from phylanx import Phylanx
from phylanx import distributed as dist
from phylanx.ops import all_gather, all_reduce


@Phylanx
def kmeans_rows(points, initial, iterations):
    # points: this locality's rows; centroids are replicated on every locality
    centroids = initial.copy()
    k, d = centroids.shape
    labels = np.zeros(points.shape[0], dtype=int)
    for _ in range(iterations):
        distances = np.zeros((points.shape[0], k))
        for j in range(k):
            diff = points - centroids[j]
            distances[:, j] = np.sum(diff * diff, axis=1)
        labels = np.argmin(distances, axis=1)
        stats = np.zeros((k, d + 1))      # per cluster: the sum of its points, its size
        for j in range(k):
            members = points[labels == j]
            stats[j, :d] = np.sum(members, axis=0)
            stats[j, d] = members.shape[0]
        stats = all_reduce(stats, "sum", "kmeans_stats")
        for j in range(k):
            if stats[j, d] > 0:          # an empty cluster keeps its centroid
                centroids[j] = stats[j, :d] / stats[j, d]
    return centroids, np.concatenate(all_gather(labels, "kmeans_labels"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--points", type=int, default=3000, help="points in all")
    parser.add_argument("--k", type=int, default=4, help="clusters (and generated blobs)")
    parser.add_argument("--dims", type=int, default=2, help="coordinates per point")
    parser.add_argument("--iterations", type=int, default=10, help="assignment/update rounds")
    parser.add_argument("--seed", type=int, default=2, help="seed of the generated points")
    parser.add_argument("--check", action="store_true",
                        help="locality 0 also runs single-process NumPy on all the points")
    parser.add_argument("--save", help="locality 0 writes centroids and labels (.npz)")
    args = parser.parse_args(argv)
    rank, size = dist.find_here(), dist.num_localities()
    points = blobs(args.seed, args.k, args.dims, *block(args.points, size, rank))
    initial = blobs(args.seed, args.k, args.dims, 0, args.k)   # one point of each blob

    kmeans_rows(points, initial, 1)      # translate, compile, open the communicators
    dist.barrier(name="kmeans_start").result()
    start = time.perf_counter()
    centroids, labels = kmeans_rows(points, initial, args.iterations)
    elapsed = dist.all_reduce(time.perf_counter() - start, "max", name="kmeans_time").result()
    if rank != 0:
        return 0
    print(f"k-means, {size} localit{'y' if size == 1 else 'ies'}: {args.points} points, "
          f"k={args.k}, {args.iterations} iterations, {elapsed:.3f} s (slowest locality)")
    print(f"centroids:\n{np.round(centroids, 3)}")
    print(f"cluster sizes: {np.bincount(labels, minlength=args.k)}")
    if args.check:
        import kmeans  # the single-locality example: its .python is plain NumPy
        everything = blobs(args.seed, args.k, args.dims, 0, args.points)
        c_np, l_np = kmeans.kmeans.python(everything, initial, args.iterations)
        print(f"matches single-process NumPy: "
              f"{np.allclose(centroids, c_np) and np.array_equal(labels, l_np)}")
    if args.save:
        np.savez(args.save, centroids=centroids, labels=labels)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
