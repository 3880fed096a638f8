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


def dot_rows_columns(a_rows, b_columns, comm):
    """``a @ b`` with ``a`` split by rows and ``b`` by columns: this rank's rows of the
    product.  Its own columns of ``b`` multiply while the others' travel (one
    ``Isend`` of this rank's columns to every other rank, one ``Irecv`` from each),
    each arriving block multiplies into its columns of the result (no copy of a
    partial product)."""
    from mpi4py import MPI
    widths = comm.allgather(b_columns.shape[1])
    starts = np.concatenate([[0], np.cumsum(widths)])
    rank, size = comm.rank, comm.size
    b_columns = np.ascontiguousarray(b_columns)
    received = {r: np.empty((b_columns.shape[0], widths[r]), b_columns.dtype)
                for r in range(size) if r != rank}
    requests = [comm.Irecv(received[r], source=r, tag=77) for r in received]
    sends = [comm.Isend(b_columns, dest=r, tag=77) for r in received]
    out = np.empty((a_rows.shape[0], starts[-1]), np.result_type(a_rows, b_columns))
    np.matmul(a_rows, b_columns, out=out[:, starts[rank]:starts[rank + 1]])
    sources = list(received)
    for _ in sources:
        index = MPI.Request.Waitany(requests)
        r = sources[index]
        np.matmul(a_rows, received[r], out=out[:, starts[r]:starts[r + 1]])
    MPI.Request.Waitall(sends)
    return out


def conv1d_batch(x_pages, kernel, slice_items=32):
    """Keras "valid" conv1d of this rank's batch items (no message: each output item
    reads only its own input item): the windows of ``slice_items`` items at a time
    copied into a matrix (im2col), one product each written straight into the output."""
    from numpy.lib.stride_tricks import sliding_window_view
    width, channels, outs = kernel.shape
    items, length = x_pages.shape[:2]
    out = np.empty((items, length - width + 1, outs), np.result_type(x_pages, kernel))
    weights = kernel.reshape(width * channels, outs)
    for i in range(0, items, slice_items):
        windows = sliding_window_view(x_pages[i:i + slice_items], width, axis=1)
        matrix = np.ascontiguousarray(windows.transpose(0, 1, 3, 2))  # (b, out, k, C)
        np.matmul(matrix.reshape(-1, width * channels), weights,
                  out=out[i:i + slice_items].reshape(-1, outs))
    return out
