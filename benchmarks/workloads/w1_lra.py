"""W1: logistic regression by full-batch gradient descent (float64).

Small: 569 x 30 (the breast-cancer shape; scikit-learn's data when installed), 750
iterations.  Large: 200,000 x 100, 50 iterations.
"""
from __future__ import annotations

import numpy as np

from phylanx import Phylanx

from .common import Case, jax_x64, optional, settled


def lra(x, y, alpha, iterations):
    """The workload, plain NumPy: every column runs this object or mirrors it."""
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        pred = 1.0 / (1.0 + np.exp(-(x @ w)))
        w = w - alpha * (x.T @ (pred - y))
    return w


lra_phylanx = Phylanx(lra)


def lra_numexpr(x, y, alpha, iterations):
    # numexpr fuses the element-wise sigmoid and the residual; the products stay BLAS
    import numexpr as ne
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        z = x @ w
        err = ne.evaluate("1.0 / (1.0 + exp(-z)) - y", local_dict={"z": z, "y": y})
        w = w - alpha * (x.T @ err)
    return w


def data(n, d, sklearn_ok):
    if sklearn_ok and n == 569 and d == 30 and optional("sklearn") is not None:
        from sklearn.datasets import load_breast_cancer
        bunch = load_breast_cancer()
        x, y = bunch.data, bunch.target.astype(float)
        return (x - x.mean(0)) / x.std(0), y, "breast cancer"
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, d))
    y = (x @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0).astype(float)
    return x, y, "synthetic"


def setups(x, y, alpha, iters):
    s = {"numpy": lambda: lambda: lra(x, y, alpha, iters),
         "numexpr": lambda: lambda: lra_numexpr(x, y, alpha, iters)}

    def phylanx_setup():
        # translate + compile, and let the row pass settle, outside the timing
        return settled(lambda: lra_phylanx(x, y, alpha, iters))
    s["phylanx"] = phylanx_setup

    def jax_setup():
        jax = jax_x64()
        jnp = jax.numpy

        @jax.jit
        def run(x, y):
            def body(_, w):
                return w - alpha * (x.T @ (jax.nn.sigmoid(x @ w) - y))
            return jax.lax.fori_loop(0, iters, body, jnp.zeros(x.shape[1]))
        jx, jy = jnp.asarray(x), jnp.asarray(y)
        run(jx, jy).block_until_ready()
        return lambda: run(jx, jy).block_until_ready()
    s["jax"] = jax_setup

    def torch_setup():
        import torch
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)

        def run():
            w = torch.zeros(x.shape[1], dtype=torch.float64)
            for _ in range(iters):
                w = w - alpha * (tx.T @ (torch.sigmoid(tx @ w) - ty))
            return w
        return run
    s["torch"] = torch_setup

    def dask_setup():
        import dask.array as da
        # row chunks, one per core: each iteration is a small graph computed eagerly,
        # since the loop needs the weights (a lazy 750-deep graph is not how dask is used)
        dx = da.from_array(x, chunks=(max(1, len(x) // 2), x.shape[1])).persist()
        dy = da.from_array(y, chunks=(max(1, len(y) // 2),)).persist()

        def run():
            w = np.zeros(x.shape[1])
            for _ in range(iters):
                err = 1.0 / (1.0 + da.exp(-(dx @ w))) - dy
                w = w - alpha * (dx.T @ err).compute(scheduler="threads")
            return w
        return run
    s["dask"] = dask_setup
    return s


def cases(quick: bool) -> list[Case]:
    small = (569, 30, 100 if quick else 750)
    large = (20_000, 100, 10) if quick else (200_000, 100, 50)
    out = []
    for label, (n, d, iters) in (("small", small), ("large", large)):
        x, y, what = data(n, d, sklearn_ok=True)
        out.append(Case("W1", f"W1 {label}: logistic regression {n}x{d} ({what}), "
                              f"{iters} it.", setups(x, y, 1e-3 if n < 1000 else 1e-5, iters)))
    return out
