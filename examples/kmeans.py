"""k-means clustering, plain NumPy Python run through @Phylanx.

    python examples/kmeans.py [--k 3] [--iterations 10]
"""
from __future__ import annotations

import argparse

import numpy as np

from phylanx import Phylanx


@Phylanx
def kmeans(points, initial, iterations):
    centroids = initial.copy()
    k = centroids.shape[0]
    labels = np.zeros(points.shape[0], dtype=int)
    for _ in range(iterations):
        distances = np.zeros((points.shape[0], k))
        for j in range(k):
            diff = points - centroids[j]
            distances[:, j] = np.sum(diff * diff, axis=1)
        labels = np.argmin(distances, axis=1)
        for j in range(k):
            members = points[labels == j]
            if members.shape[0] > 0:
                centroids[j] = np.mean(members, axis=0)
    return centroids, labels


def blobs(k=3, per=50, seed=2):
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-10, 10, size=(k, 2))
    points = np.vstack([c + rng.normal(size=(per, 2)) for c in centers])
    return points, centers


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--k", type=int, default=3,
                        help="clusters (and generated blobs)")
    parser.add_argument("--iterations", type=int, default=10,
                        help="assignment/update rounds")
    args = parser.parse_args(argv)
    points, _ = blobs(args.k)
    initial = points[:: len(points) // args.k][: args.k].copy()
    centroids, labels = kmeans(points, initial, args.iterations)
    c_np, l_np = kmeans.python(points, initial, args.iterations)
    print(f"centroids:\n{np.round(centroids, 3)}")
    print(f"cluster sizes: {np.bincount(labels)}")
    print(f"matches NumPy: {np.allclose(centroids, c_np) and np.array_equal(labels, l_np)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
