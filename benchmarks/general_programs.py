"""The programs of ``general.py``: NumPy code written for issue 27, not W1-W5.

Each is plain NumPy as a user would write it (the phylanx peer decorates this very
function); :data:`PROGRAMS` lists them with their data at two sizes and, where a port
is natural, a JAX version (``jax.lax`` loops for the loops), else the reason there is
none.  The data are deterministic (seeded) and well conditioned so that every peer's
rounding gives the same answer to the stated tolerance.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np


def kmeans_broadcast(points, centres, iterations):
    """k-means, distances by broadcasting, centres as masked means."""
    k = centres.shape[0]
    for _ in range(iterations):
        dist = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(-1)
        labels = np.argmin(dist, axis=1)
        new = np.zeros(centres.shape)
        for j in range(k):
            members = points[labels == j]
            new[j] = members.mean(axis=0)
        centres = new
    return centres


def conjugate_gradient(a, b, tol, maxit):
    """CG on a symmetric positive definite system, a ``while`` with ``and`` and ``+=``."""
    x = np.zeros(b.shape[0])
    r = b - a @ x
    p = r.copy()
    rr = np.dot(r, r)
    i = 0
    while i < maxit and rr > tol:
        ap = a @ p
        alpha = rr / np.dot(p, ap)
        x += alpha * p
        r -= alpha * ap
        rr_new = np.dot(r, r)
        p = r + (rr_new / rr) * p
        rr = rr_new
        i += 1
    return x


def jacobi(u, iterations):
    """2-D Jacobi relaxation of Laplace's equation, slices for the stencil."""
    for _ in range(iterations):
        inner = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        u = u.copy()
        u[1:-1, 1:-1] = inner
    return u


def pca_power(x, components, iterations):
    """PCA: covariance of the centred data, leading eigenvectors by power iteration
    with deflation."""
    centred = x - np.mean(x, axis=0)
    cov = centred.T @ centred / (x.shape[0] - 1)
    vectors = np.zeros((components, x.shape[1]))
    for c in range(components):
        v = np.ones(x.shape[1])
        for _ in range(iterations):
            v = cov @ v
            v = v / np.linalg.norm(v)
        lam = v @ cov @ v
        cov = cov - lam * np.outer(v, v)
        vectors[c] = v
    return vectors


def pca_eigh(x):
    """PCA by the symmetric eigensolver: explained variance ratios."""
    centred = x - x.mean(axis=0)
    cov = np.dot(centred.T, centred) / (x.shape[0] - 1)
    values = np.linalg.eigh(cov)[0]
    return values[::-1] / np.sum(values)


def pairwise_distances(a, b):
    """Euclidean distances of every row of ``a`` to every row of ``b``."""
    return np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=-1))


def softmax_regression(x, onehot, steps, rate):
    """Multinomial logistic regression, full-batch gradient steps."""
    w = np.zeros((x.shape[1], onehot.shape[1]))
    for _ in range(steps):
        z = x @ w
        z = z - np.max(z, axis=1, keepdims=True)
        e = np.exp(z)
        p = e / np.sum(e, axis=1, keepdims=True)
        w = w - rate * (x.T @ (p - onehot)) / x.shape[0]
    return w


def als_loops(ratings, x, y, reg, iterations):
    """Alternating least squares, one small solve per row by a loop."""
    k = x.shape[1]
    eye = reg * np.eye(k)
    for _ in range(iterations):
        gram = y.T @ y + eye
        for u in range(x.shape[0]):
            x[u] = np.linalg.solve(gram, y.T @ ratings[u])
        gram = x.T @ x + eye
        for i in range(y.shape[0]):
            y[i] = np.linalg.solve(gram, x.T @ ratings[:, i])
    return x, y


def minibatch_linear(x, t, epochs, batch, rate):
    """Linear regression by mini-batch gradient descent over slices."""
    w = np.zeros(x.shape[1])
    n = x.shape[0]
    for _ in range(epochs):
        for start in range(0, n, batch):
            xb = x[start:start + batch]
            err = xb @ w - t[start:start + batch]
            w = w - rate * (xb.T @ err) / xb.shape[0]
    return w


def edit_distance(s, t):
    """Levenshtein distance of two integer sequences: a scalar dynamic program."""
    m = s.shape[0]
    n = t.shape[0]
    d = np.zeros((m + 1, n + 1))
    for i in range(m + 1):
        d[i, 0] = i
    for j in range(n + 1):
        d[0, j] = j
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            cost = 0.0 if s[i - 1] == t[j - 1] else 1.0
            d[i, j] = min(d[i - 1, j] + 1.0, d[i, j - 1] + 1.0, d[i - 1, j - 1] + cost)
    return d[m, n]


def horner(coefficients, x):
    """A polynomial evaluated at many points by Horner's rule."""
    y = np.zeros(x.shape[0])
    for c in coefficients:
        y = y * x + c
    return y


def histogram_entropy(values, bins):
    """Entropy of a histogram made with ``bincount`` and the normalised counts."""
    lo = np.min(values)
    width = (np.max(values) - lo) / bins
    index = np.minimum(((values - lo) / width).astype(np.int64), bins - 1)
    counts = np.bincount(index, minlength=bins)
    p = counts / np.sum(counts)
    p = p[p > 0]
    return -np.sum(p * np.log(p))


def cumulative_normalise(x):
    """Columns standardised, then the running mean of every column."""
    z = (x - np.mean(x, axis=0)) / np.std(x, axis=0)
    steps = np.arange(1, x.shape[0] + 1)[:, None]
    return np.cumsum(z, axis=0) / steps


def row_softmax_f32(x):
    """A numerically stable softmax of every row, float32 data."""
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def centred_norms(x):
    """Distance of every row to the mean row, by broadcasting (float32 data)."""
    mu = np.mean(x, axis=0)
    return np.sqrt(np.sum((x - mu[None, :]) ** 2, axis=1))


# -- data -----------------------------------------------------------------------------

def _blobs(n, d, k, rng):
    truth = rng.uniform(-20, 20, size=(k, d))
    points = truth[rng.integers(0, k, n)] + rng.normal(size=(n, d))
    # every blob has members from the first iteration on
    return points, truth + rng.normal(scale=0.5, size=(k, d))


def _spd(n, rng):
    m = rng.normal(size=(n, n))
    return m @ m.T / n + np.eye(n)


@dataclass
class Program:
    name: str                       # a row of the table
    fn: Callable                    # the NumPy program (phylanx decorates it)
    data: Callable[[bool], tuple]   # quick -> arguments
    jax: str | None = None          # the name of its port in _jax_ports
    why_no_jax: str = ""
    tol: float = 1e-6               # max |peer - numpy| / max |numpy|
    copies: tuple[int, ...] = field(default_factory=tuple)  # arguments a run mutates


def _data(quick: bool, small: tuple, full: tuple):
    return small if quick else full


def kmeans_data(quick):
    n, d, k = _data(quick, (2000, 4, 5), (50_000, 8, 8))
    rng = np.random.default_rng(11)
    points, centres = _blobs(n, d, k, rng)
    return points, centres, 5


def cg_data(quick):
    n = _data(quick, (100,), (1000,))[0]
    rng = np.random.default_rng(12)
    return _spd(n, rng), rng.normal(size=n), 1e-20, 60


def jacobi_data(quick):
    n = _data(quick, (64,), (400,))[0]
    u = np.zeros((n, n))
    u[0, :] = 1.0
    u[:, 0] = np.linspace(1.0, 0.0, n)
    return u, _data(quick, (20,), (100,))[0]


def pca_data(quick):
    n, d = _data(quick, (500, 10), (20_000, 50))
    rng = np.random.default_rng(13)
    scales = np.linspace(3.0, 0.1, d)
    return rng.normal(size=(n, d)) * scales, 3, 30


def pca_eigh_data(quick):
    return pca_data(quick)[:1]


def pairwise_data(quick):
    n, m, d = _data(quick, (300, 200, 3), (2000, 1500, 3))
    rng = np.random.default_rng(14)
    return rng.normal(size=(n, d)), rng.normal(size=(m, d))


def softmax_data(quick):
    n, d, k = _data(quick, (500, 10, 4), (20_000, 40, 10))
    rng = np.random.default_rng(15)
    x = rng.normal(size=(n, d))
    labels = np.argmax(x @ rng.normal(size=(d, k)), axis=1)
    return x, np.eye(k)[labels], 20, 0.5


def als_data(quick):
    users, items, k = _data(quick, (30, 20, 4), (300, 200, 10))
    rng = np.random.default_rng(16)
    ratings = rng.uniform(size=(users, k)) @ rng.uniform(size=(k, items))
    return ratings, rng.uniform(size=(users, k)), rng.uniform(size=(items, k)), 0.1, 3


def minibatch_data(quick):
    n, d = _data(quick, (1000, 10), (50_000, 50))
    rng = np.random.default_rng(17)
    x = rng.normal(size=(n, d))
    return x, x @ rng.normal(size=d), 3, 500, 0.05


def edit_data(quick):
    n = _data(quick, (12,), (60,))[0]
    rng = np.random.default_rng(18)
    return rng.integers(0, 4, n), rng.integers(0, 4, n + 5)


def horner_data(quick):
    n, deg = _data(quick, (10_000, 8), (1_000_000, 12))
    rng = np.random.default_rng(19)
    return rng.normal(size=deg) / deg, rng.uniform(-1, 1, n)


def histogram_data(quick):
    n = _data(quick, (10_000,), (2_000_000,))[0]
    return np.random.default_rng(20).normal(size=n), 64


def cumulative_data(quick):
    n, d = _data(quick, (1000, 8), (200_000, 20))
    return (np.random.default_rng(21).normal(size=(n, d)) * 3 + 1,)


def softmax_f32_data(quick):
    n, d = _data(quick, (1000, 16), (200_000, 64))
    return (np.random.default_rng(22).normal(size=(n, d)).astype(np.float32),)


def centred_data(quick):
    n, d = _data(quick, (2000, 16), (500_000, 32))
    return (np.random.default_rng(23).normal(size=(n, d)).astype(np.float32),)


# -- JAX ports (jax.jit; float64 enabled by the harness) ------------------------------

def _jax_ports(jax):
    jnp, lax = jax.numpy, jax.lax

    def kmeans(points, centres, iterations):
        k = centres.shape[0]

        def step(_, c):
            labels = jnp.argmin(((points[:, None, :] - c[None]) ** 2).sum(-1), axis=1)
            sums = jax.ops.segment_sum(points, labels, num_segments=k)
            counts = jnp.bincount(labels, length=k)
            return sums / counts[:, None]
        return lax.fori_loop(0, iterations, step, centres)

    def cg(a, b, tol, maxit):
        def cond(s):
            return (s[4] < maxit) & (s[3] > tol)

        def body(s):
            x, r, p, rr, i = s
            ap = a @ p
            alpha = rr / jnp.dot(p, ap)
            x, r = x + alpha * p, r - alpha * ap
            new = jnp.dot(r, r)
            return x, r, r + (new / rr) * p, new, i + 1
        return lax.while_loop(cond, body, (jnp.zeros_like(b), b, b, jnp.dot(b, b), 0))[0]

    def jacobi(u, iterations):
        def step(_, u):
            inner = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
            return u.at[1:-1, 1:-1].set(inner)
        return lax.fori_loop(0, iterations, step, u)

    def pca_power(x, components, iterations):
        centred = x - jnp.mean(x, axis=0)
        cov = centred.T @ centred / (x.shape[0] - 1)
        vectors = []
        def power(_, v, cov):
            v = cov @ v
            return v / jnp.linalg.norm(v)
        for _ in range(components):
            v = lax.fori_loop(0, iterations, lambda i, v, cov=cov: power(i, v, cov),
                              jnp.ones(x.shape[1]))
            cov = cov - (v @ cov @ v) * jnp.outer(v, v)
            vectors.append(v)
        return jnp.stack(vectors)

    def pca_eigh(x):
        centred = x - x.mean(axis=0)
        values = jnp.linalg.eigh(centred.T @ centred / (x.shape[0] - 1))[0]
        return values[::-1] / jnp.sum(values)

    def pairwise(a, b):
        return jnp.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=-1))

    def softmax_regression(x, onehot, steps, rate):
        def step(_, w):
            z = x @ w
            e = jnp.exp(z - jnp.max(z, axis=1, keepdims=True))
            p = e / jnp.sum(e, axis=1, keepdims=True)
            return w - rate * (x.T @ (p - onehot)) / x.shape[0]
        return lax.fori_loop(0, steps, step, jnp.zeros((x.shape[1], onehot.shape[1])))

    def als(ratings, x, y, reg, iterations):
        # the rows of one side are independent: one batched solve per half-sweep
        eye = reg * jnp.eye(x.shape[1])

        def step(_, s):
            x, y = s
            x = jnp.linalg.solve(y.T @ y + eye, (ratings @ y).T).T
            y = jnp.linalg.solve(x.T @ x + eye, (ratings.T @ x).T).T
            return x, y
        return lax.fori_loop(0, iterations, step, (x, y))

    def minibatch(x, t, epochs, batch, rate):
        batches = x.shape[0] // batch

        def one(j, w):
            xb = lax.dynamic_slice_in_dim(x, j * batch, batch)
            err = xb @ w - lax.dynamic_slice_in_dim(t, j * batch, batch)
            return w - rate * (xb.T @ err) / batch
        return lax.fori_loop(0, epochs * batches, lambda j, w: one(j % batches, w),
                             jnp.zeros(x.shape[1]))

    def edit(s, t):
        m, n = s.shape[0], t.shape[0]
        d = jnp.zeros((m + 1, n + 1)).at[:, 0].set(jnp.arange(m + 1.0))
        d = d.at[0, :].set(jnp.arange(n + 1.0))

        def row(i, d):
            def cell(j, d):
                cost = jnp.where(s[i - 1] == t[j - 1], 0.0, 1.0)
                best = jnp.minimum(jnp.minimum(d[i - 1, j] + 1.0, d[i, j - 1] + 1.0),
                                   d[i - 1, j - 1] + cost)
                return d.at[i, j].set(best)
            return lax.fori_loop(1, n + 1, cell, d)
        return lax.fori_loop(1, m + 1, row, d)[m, n]

    def horner(coefficients, x):
        return lax.fori_loop(0, coefficients.shape[0],
                             lambda i, y: y * x + coefficients[i], jnp.zeros_like(x))

    def histogram(values, bins):
        lo = jnp.min(values)
        width = (jnp.max(values) - lo) / bins
        index = jnp.minimum(((values - lo) / width).astype(jnp.int64), bins - 1)
        counts = jnp.bincount(index, length=bins)
        p = counts / jnp.sum(counts)
        return -jnp.sum(jnp.where(p > 0, p * jnp.log(jnp.where(p > 0, p, 1.0)), 0.0))

    def cumulative(x):
        z = (x - jnp.mean(x, axis=0)) / jnp.std(x, axis=0)
        return jnp.cumsum(z, axis=0) / jnp.arange(1, x.shape[0] + 1)[:, None]

    def softmax32(x):
        e = jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
        return e / jnp.sum(e, axis=1, keepdims=True)

    def centred(x):
        return jnp.sqrt(jnp.sum((x - jnp.mean(x, axis=0)[None, :]) ** 2, axis=1))

    return locals()


#: static (Python) arguments of each JAX port, by position: jit specialises on them
STATIC = {"kmeans": (2,), "cg": (3,), "jacobi": (1,), "pca_power": (1, 2),
          "softmax_regression": (2,), "als": (4,), "minibatch": (2, 3),
          "histogram": (1,)}


def jax_port(jax, name: str):
    """The jitted JAX port ``name`` of :func:`_jax_ports`."""
    return jax.jit(_jax_ports(jax)[name], static_argnums=STATIC.get(name, ()))


PROGRAMS = [
    Program("k-means, broadcast distances", kmeans_broadcast, kmeans_data, "kmeans"),
    Program("conjugate gradient (while and)", conjugate_gradient, cg_data, "cg"),
    Program("Jacobi 2-D stencil (slices)", jacobi, jacobi_data, "jacobi"),
    Program("PCA, power iteration", pca_power, pca_data, "pca_power", tol=1e-5),
    Program("PCA, eigh", pca_eigh, pca_eigh_data, "pca_eigh"),
    Program("pairwise distances (broadcast)", pairwise_distances, pairwise_data, "pairwise"),
    Program("softmax regression", softmax_regression, softmax_data, "softmax_regression"),
    Program("ALS by loops", als_loops, als_data, "als", tol=1e-5, copies=(1, 2)),
    Program("mini-batch linear regression", minibatch_linear, minibatch_data, "minibatch"),
    Program("edit distance (scalar DP)", edit_distance, edit_data, "edit"),
    Program("Horner polynomial", horner, horner_data, "horner"),
    Program("histogram entropy (bincount)", histogram_entropy, histogram_data, "histogram"),
    Program("cumulative normalisation", cumulative_normalise, cumulative_data, "cumulative"),
    Program("row softmax, float32", row_softmax_f32, softmax_f32_data, "softmax32",
            tol=1e-5),
    Program("centred row norms, float32", centred_norms, centred_data, "centred",
            tol=1e-5),
]
