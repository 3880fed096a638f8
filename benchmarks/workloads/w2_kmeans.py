"""W2: k-means, k = 8, 10 iterations, 1,000,000 points in 2-D and in 16-D (float64).

Labels are the argmin of the squared distances (expanded as |p|^2 - 2 p.c + |c|^2, one
matrix product); centres are per-cluster sums (``np.add.at``) over counts
(``np.bincount``).  The data are well-separated blobs so that every peer's rounding
gives the same labels and the centres can be compared.
"""
from __future__ import annotations

import numpy as np

from phylanx import Phylanx

from .common import Case, jax_x64, settled


def kmeans(points, centres, iterations):
    """The workload, plain NumPy: every column runs this object or mirrors it."""
    k = centres.shape[0]
    sq = np.sum(points * points, axis=1)
    for _ in range(iterations):
        dist = sq[:, None] - 2.0 * (points @ centres.T) + np.sum(centres * centres, axis=1)
        labels = np.argmin(dist, axis=1)
        counts = np.bincount(labels, minlength=k)
        sums = np.zeros((k, points.shape[1]))
        np.add.at(sums, labels, points)
        centres = sums / np.maximum(counts, 1)[:, None]
    return centres


kmeans_phylanx = Phylanx(kmeans)


def kmeans_numexpr(points, centres, iterations):
    # numexpr fuses the distance expression; bincount per column does the update
    import numexpr as ne
    k = centres.shape[0]
    sq = np.sum(points * points, axis=1)[:, None]
    for _ in range(iterations):
        pc = points @ centres.T
        cc = np.sum(centres * centres, axis=1)[None, :]
        labels = np.argmin(ne.evaluate("sq - 2.0 * pc + cc",
                                       local_dict={"sq": sq, "pc": pc, "cc": cc}), axis=1)
        counts = np.bincount(labels, minlength=k)
        sums = np.stack([np.bincount(labels, weights=points[:, j], minlength=k)
                         for j in range(points.shape[1])], axis=1)
        centres = sums / np.maximum(counts, 1)[:, None]
    return centres


def data(n, d, k=8, seed=1):
    rng = np.random.default_rng(seed)
    truth = rng.uniform(-20, 20, size=(k, d))
    points = truth[rng.integers(0, k, n)] + rng.normal(size=(n, d))
    # initial centres: a point of every blob, perturbed (deterministic, not k-means++)
    initial = truth + rng.normal(scale=0.5, size=(k, d))
    return points, initial


def setups(points, initial, iters):
    k = initial.shape[0]
    s = {"numpy": lambda: lambda: kmeans(points, initial, iters),
         "phylanx": lambda: settled(lambda: kmeans_phylanx(points, initial, iters)),
         "numexpr": lambda: lambda: kmeans_numexpr(points, initial, iters)}

    def jax_setup():
        jax = jax_x64()
        jnp = jax.numpy

        @jax.jit
        def run(p, c):
            sq = jnp.sum(p * p, axis=1)[:, None]

            def body(_, c):
                labels = jnp.argmin(sq - 2.0 * p @ c.T + jnp.sum(c * c, axis=1), axis=1)
                sums = jax.ops.segment_sum(p, labels, num_segments=k)
                counts = jnp.bincount(labels, length=k)
                return sums / jnp.maximum(counts, 1)[:, None]
            return jax.lax.fori_loop(0, iters, body, c)
        jp, jc = jnp.asarray(points), jnp.asarray(initial)
        run(jp, jc).block_until_ready()
        return lambda: run(jp, jc).block_until_ready()
    s["jax"] = jax_setup

    def torch_setup():
        import torch
        tp, tc = torch.from_numpy(points), torch.from_numpy(initial)

        def run():
            c = tc.clone()
            sq = (tp * tp).sum(1, keepdim=True)
            for _ in range(iters):
                labels = torch.argmin(sq - 2.0 * tp @ c.T + (c * c).sum(1), dim=1)
                sums = torch.zeros_like(c).index_add_(0, labels, tp)
                counts = torch.bincount(labels, minlength=k).clamp(min=1)
                c = sums / counts[:, None]
            return c
        return run
    s["torch"] = torch_setup

    def dask_setup():
        import dask
        import dask.array as da
        dp = da.from_array(points, chunks=(len(points) // 4 or 1, points.shape[1])).persist()
        sq = da.sum(dp * dp, axis=1)[:, None].persist()

        def run():
            c = initial
            for _ in range(iters):
                labels = da.argmin(sq - 2.0 * dp @ c.T + np.sum(c * c, axis=1), axis=1)
                counts = da.bincount(labels, minlength=k)
                sums = [da.bincount(labels, weights=dp[:, j], minlength=k)
                        for j in range(points.shape[1])]
                counts, *sums = dask.compute(counts, *sums, scheduler="threads")
                c = np.stack(sums, axis=1) / np.maximum(counts, 1)[:, None]
            return c
        return run
    s["dask"] = dask_setup
    return s


def cases(quick: bool) -> list[Case]:
    n = 100_000 if quick else 1_000_000
    out = []
    for d in (2, 16):
        points, initial = data(n, d)
        out.append(Case("W2", f"W2 k-means k=8, {n:,} points in {d}-D, 10 it.",
                        setups(points, initial, 10)))
    return out
