"""The workloads of ``benchmarks/distributed.py`` written by hand with mpi4py + NumPy.

These are the peers phylanx is measured against: what a user writes without phylanx,
SPMD, each rank holding its block of rows (or columns) and calling MPI itself.  They
do the same arithmetic as the phylanx programs (``examples/lra.py``,
``examples/kmeans.py``, the power iteration of the benchmark), so the results agree
to rounding and the benchmark checks that they do.  ``comm`` is an mpi4py
communicator; nothing here imports phylanx.
"""
from __future__ import annotations

import numpy as np


def lra(x_rows, y_rows, alpha, iterations, comm):
    """Logistic regression by gradient descent; the gradient is summed over the ranks."""
    weights = np.zeros(x_rows.shape[1])
    gradient = np.empty_like(weights)
    for _ in range(iterations):
        pred = 1.0 / (1.0 + np.exp(-(x_rows @ weights)))
        comm.Allreduce(x_rows.T @ (pred - y_rows), gradient)
        weights = weights - alpha * gradient
    return weights


def kmeans(points_rows, initial, iterations, comm):
    """Lloyd's k-means: local distances and labels, then per-cluster sums and counts
    summed over the ranks in one all-reduce per iteration.  Returns this rank's labels."""
    from mpi4py import MPI
    centroids = initial.copy()
    k, d = centroids.shape
    labels = np.zeros(points_rows.shape[0], dtype=int)
    for _ in range(iterations):
        distances = np.empty((points_rows.shape[0], k))
        for j in range(k):
            diff = points_rows - centroids[j]
            distances[:, j] = np.sum(diff * diff, axis=1)
        labels = np.argmin(distances, axis=1)
        sums = np.zeros((k, d + 1))          # per cluster: coordinate sums, then count
        for j in range(k):
            members = points_rows[labels == j]
            sums[j, :d] = members.sum(axis=0)
            sums[j, d] = members.shape[0]
        comm.Allreduce(MPI.IN_PLACE, sums)
        found = sums[:, d] > 0
        centroids[found] = sums[found, :d] / sums[found, d:]
    return centroids, labels


def power_iteration(a_columns, v, start, stop, iterations, comm):
    """The dominant eigenvector of ``a`` (this rank holds columns ``[start, stop)``):
    ``a @ v`` is the sum over ranks of their columns times their part of ``v``."""
    y = np.empty(a_columns.shape[0])
    for _ in range(iterations):
        comm.Allreduce(a_columns @ v[start:stop], y)
        v = y / np.sqrt(np.sum(y * y))
    return v
