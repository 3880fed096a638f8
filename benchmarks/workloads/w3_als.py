"""W3: weighted ALS, 2000 x 2000 dense ratings, 40 factors, 5 iterations (float64).

Every rating has a weight (0 or 1: observed or not), so every user (item) has its own
k x k normal equations; they are built for all rows at once (one matrix product with the
outer products of the factors) and solved as one ``np.linalg.solve`` on the stack.
"""
from __future__ import annotations

import numpy as np

from phylanx import Phylanx

from .common import Case, jax_x64, settled


def als(ratings, mask, x, y, reg, iterations):
    """The workload, plain NumPy: every column runs this object or mirrors it."""
    k = x.shape[1]
    eye = reg * np.eye(k)
    wr = mask * ratings
    for _ in range(iterations):
        yy = (y[:, :, None] * y[:, None, :]).reshape(y.shape[0], k * k)
        a = (mask @ yy).reshape(x.shape[0], k, k) + eye
        x = np.linalg.solve(a, (wr @ y)[:, :, None])[:, :, 0]
        xx = (x[:, :, None] * x[:, None, :]).reshape(x.shape[0], k * k)
        a = (mask.T @ xx).reshape(y.shape[0], k, k) + eye
        y = np.linalg.solve(a, (wr.T @ x)[:, :, None])[:, :, 0]
    return x, y


als_phylanx = Phylanx(als)


def data(users, items, k, seed=3):
    rng = np.random.default_rng(seed)
    ratings = rng.uniform(size=(users, k)) @ rng.uniform(size=(k, items)) / k
    mask = (rng.uniform(size=(users, items)) < 0.3).astype(float)
    return ratings, mask, rng.uniform(size=(users, k)), rng.uniform(size=(items, k))


def _half_step(mask, wr, other, reg):
    # one side of the sweep for a block of rows: used by dask's map_blocks
    k = other.shape[1]
    oo = (other[:, :, None] * other[:, None, :]).reshape(other.shape[0], k * k)
    a = (mask @ oo).reshape(mask.shape[0], k, k) + reg * np.eye(k)
    return np.linalg.solve(a, (wr @ other)[:, :, None])[:, :, 0]


def setups(ratings, mask, x0, y0, reg, iters):
    args = (ratings, mask, x0, y0, reg, iters)
    s = {"numpy": lambda: lambda: als(*args),
         "phylanx": lambda: settled(lambda: als_phylanx(*args))}

    def jax_setup():
        jax = jax_x64()
        jnp = jax.numpy

        def half(m, wr, other):
            k = other.shape[1]
            a = jnp.einsum("ui,ik,il->ukl", m, other, other) + reg * jnp.eye(k)
            return jnp.linalg.solve(a, (wr @ other)[..., None])[..., 0]

        @jax.jit
        def run(r, m, x, y):
            wr = m * r

            def body(_, xy):
                x = half(m, wr, xy[1])
                return x, half(m.T, wr.T, x)
            return jax.lax.fori_loop(0, iters, body, (x, y))
        jargs = [jnp.asarray(a) for a in (ratings, mask, x0, y0)]
        jax.block_until_ready(run(*jargs))
        return lambda: jax.block_until_ready(run(*jargs))
    s["jax"] = jax_setup

    def torch_setup():
        import torch
        r, m, tx, ty = (torch.from_numpy(a) for a in (ratings, mask, x0, y0))
        wr = m * r
        eye = reg * torch.eye(x0.shape[1], dtype=torch.float64)

        def half(m, wr, other):
            k = other.shape[1]
            oo = (other[:, :, None] * other[:, None, :]).reshape(-1, k * k)
            a = (m @ oo).reshape(m.shape[0], k, k) + eye
            return torch.linalg.solve(a, wr @ other)

        def run():
            x, y = tx, ty
            for _ in range(iters):
                x = half(m, wr, y)
                y = half(m.T, wr.T, x)
            return x, y
        return run
    s["torch"] = torch_setup

    def dask_setup():
        import dask.array as da
        rows = max(1, len(ratings) // 4)
        dm = da.from_array(mask, chunks=(rows, -1)).persist()
        dmt = da.from_array(np.ascontiguousarray(mask.T), chunks=(rows, -1)).persist()
        wr = mask * ratings
        dwr = da.from_array(wr, chunks=(rows, -1)).persist()
        dwrt = da.from_array(np.ascontiguousarray(wr.T), chunks=(rows, -1)).persist()

        def side(m, w, other):
            return da.map_blocks(_half_step, m, w, other=other, reg=reg,
                                 chunks=(m.chunks[0], (other.shape[1],)), dtype=float)

        def run():
            x, y = x0, y0
            for _ in range(iters):
                x = side(dm, dwr, y).compute(scheduler="threads")
                y = side(dmt, dwrt, x).compute(scheduler="threads")
            return x, y
        return run
    s["dask"] = dask_setup
    return s


def cases(quick: bool) -> list[Case]:
    n, k, iters = (400, 20, 2) if quick else (2000, 40, 5)
    case = Case("W3", f"W3 weighted ALS {n}x{n}, {k} factors, {iters} it.",
                setups(*data(n, n, k), 0.1, iters), tol=1e-6,
                why_missing={"numexpr": "no element-wise core to fuse"})
    return [case]
