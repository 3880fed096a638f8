"""Programs written fresh for issue 27's "code we have never seen", each phrased 2-3 ways.

None of these was written for phylanx or tuned on it: a user's NumPy (stencils, a DP, a
filter, kernel methods, optimal transport ...), then the same computation re-spelled as
another user would (operator against function, helper ``def`` against inline,
``while`` against ``for``, ``+=`` against rebinding, float32 against float64).
:data:`PROGRAMS` lists them: every phrasing of a program takes the same arguments
(float32 phrasings get the arguments cast) and must give NumPy's answer of the first
phrasing to the stated tolerance.  ``fresh.py`` times them against NumPy and JAX.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

# -- 1. successive over-relaxation on a tridiagonal system (a scalar sweep) ------------


def sor_for(diag, off, b, omega, sweeps):
    """SOR for ``off*x[i-1] + diag*x[i] + off*x[i+1] = b[i]``, element reads/writes."""
    n = b.shape[0]
    x = np.zeros(n)
    for _ in range(sweeps):
        for i in range(n):
            s = b[i]
            if i > 0:
                s = s - off * x[i - 1]
            if i < n - 1:
                s = s - off * x[i + 1]
            x[i] = (1.0 - omega) * x[i] + omega * s / diag
    return x


def sor_while(diag, off, b, omega, sweeps):
    """The same sweep, ``while`` loops with ``+=`` and an in-place update."""
    n = b.shape[0]
    x = np.zeros(n)
    k = 0
    while k < sweeps:
        i = 0
        while i < n:
            s = b[i]
            if i > 0:
                s -= off * x[i - 1]
            if i < n - 1:
                s -= off * x[i + 1]
            x[i] += omega * (s / diag - x[i])
            i += 1
        k += 1
    return x


# -- 2. Floyd-Warshall, one np.minimum per pivot --------------------------------------


def floyd_slices(d):
    """All-pairs shortest paths: column and row of the pivot as 2-d slices."""
    n = d.shape[0]
    for k in range(n):
        d = np.minimum(d, d[:, k:k + 1] + d[k:k + 1, :])
    return d


def floyd_newaxis(d):
    """The same, the pivot's column and row indexed then given axes with None."""
    n = d.shape[0]
    for k in range(n):
        d = np.minimum(d, d[:, k][:, None] + d[k, :][None, :])
    return d


def floyd_where(d):
    """The same by ``reshape`` and ``np.where`` on a comparison, ``while``."""
    n = d.shape[0]
    k = 0
    while k < n:
        through = d[:, k].reshape(n, 1) + d[k]
        d = np.where(through < d, through, d)
        k += 1
    return d


# -- 3. a Kalman filter (constant velocity), one measurement per step -----------------


def kalman_operator(zs, f, h, q, r):
    """A linear Kalman filter over the scalar measurements ``zs``: ``@`` products."""
    n = f.shape[0]
    x = np.zeros(n)
    p = np.eye(n)
    out = np.zeros(zs.shape[0])
    for t in range(zs.shape[0]):
        x = f @ x
        p = f @ p @ f.T + q
        s = h @ p @ h + r
        k = p @ h / s
        x = x + k * (zs[t] - h @ x)
        p = p - np.outer(k, h @ p)
        out[t] = h @ x
    return out


def kalman_defaults(zs, f, h, q, r=1.0):
    """``kalman_operator`` with a default for the noise (the arguments are all given)."""
    n = f.shape[0]
    x = np.zeros(n)
    p = np.eye(n)
    out = np.zeros(zs.shape[0])
    for t in range(zs.shape[0]):
        x = f @ x
        p = f @ p @ f.T + q
        s = h @ p @ h + r
        k = p @ h / s
        x = x + k * (zs[t] - h @ x)
        p = p - np.outer(k, h @ p)
        out[t] = h @ x
    return out


def kalman_functions(zs, f, h, q, r):
    """The same with ``np.dot`` and a helper for the prediction."""
    def predict(x, p):
        return np.dot(f, x), np.dot(np.dot(f, p), f.T) + q

    n = f.shape[0]
    x = np.zeros(n)
    p = np.eye(n)
    out = np.zeros(zs.shape[0])
    for t in range(zs.shape[0]):
        x, p = predict(x, p)
        ph = np.dot(p, h)
        gain = ph / (np.dot(h, ph) + r)
        x = x + gain * (zs[t] - np.dot(h, x))
        p = p - np.outer(gain, np.dot(h, p))
        out[t] = np.dot(h, x)
    return out


# -- 4. RBF kernel ridge regression --------------------------------------------------


def krr_broadcast(x, y, xt, gamma, lam):
    """Kernel ridge regression with a Gaussian kernel, distances by broadcasting."""
    k = np.exp(-gamma * ((x[:, None, :] - x[None, :, :]) ** 2).sum(axis=2))
    alpha = np.linalg.solve(k + lam * np.eye(x.shape[0]), y)
    kt = np.exp(-gamma * ((xt[:, None, :] - x[None, :, :]) ** 2).sum(axis=2))
    return kt @ alpha


def krr_norms(x, y, xt, gamma, lam):
    """The same, squared distances from norms and a product, in a helper."""
    def rbf(a, b):
        sq = (np.sum(a * a, axis=1)[:, None] + np.sum(b * b, axis=1)[None, :]
              - 2.0 * np.dot(a, b.T))
        return np.exp(-gamma * np.maximum(sq, 0.0))

    alpha = np.linalg.solve(rbf(x, x) + lam * np.eye(x.shape[0]), y)
    return np.dot(rbf(xt, x), alpha)


# -- 5. Sinkhorn iterations (entropic optimal transport) ------------------------------


def sinkhorn_for(a, b, cost, eps, iterations):
    """Scalings of the Gibbs kernel, ``@``, a fixed number of iterations."""
    kernel = np.exp(-cost / eps)
    u = np.ones(a.shape[0])
    v = np.ones(b.shape[0])
    for _ in range(iterations):
        u = a / (kernel @ v)
        v = b / (kernel.T @ u)
    plan = u[:, None] * kernel * v[None, :]
    return np.sum(plan * cost)


def sinkhorn_defaults(a, b, cost, eps=0.05, iterations=100):
    """``sinkhorn_for`` with defaults in the signature (the arguments are all given)."""
    kernel = np.exp(-cost / eps)
    u = np.ones(a.shape[0])
    v = np.ones(b.shape[0])
    for _ in range(iterations):
        u = a / (kernel @ v)
        v = b / (kernel.T @ u)
    plan = u[:, None] * kernel * v[None, :]
    return np.sum(plan * cost)


def sinkhorn_while(a, b, cost, eps, iterations):
    """The same, ``while`` with ``and`` on a marginal error, ``np.dot`` and ``.dot``."""
    kernel = np.exp(-cost / eps)
    u = np.ones(a.shape[0])
    v = np.ones(b.shape[0])
    i = 0
    err = 1.0
    while i < iterations and err > 0.0:
        u = a / np.dot(kernel, v)
        v = b / kernel.T.dot(u)
        err = np.abs(u * np.dot(kernel, v) - a).sum()
        i += 1
    return np.sum(np.outer(u, v) * kernel * cost)


# -- 6. a weighted histogram ----------------------------------------------------------


def histogram_add_at(values, weights, bins):
    """Weighted histogram of values in [0, 1) by ``np.add.at``, then normalised."""
    index = np.minimum((values * bins).astype(np.int64), bins - 1)
    h = np.zeros(bins)
    np.add.at(h, index, weights)
    return h / h.sum()


def histogram_bincount(values, weights, bins):
    """The same by ``np.bincount`` with weights, floor instead of a cast."""
    index = np.clip(np.floor(values * bins), 0, bins - 1).astype(np.int64)
    h = np.bincount(index, weights=weights, minlength=bins)
    return h / np.sum(h)


# -- 7. Newton's method on a small nonlinear system -----------------------------------


def newton_inline(x0, y0, iterations):
    """Newton for x^2 + y^2 = 4, exp(x) + y = 1: Jacobian built with np.array."""
    v = np.array([x0, y0])
    for _ in range(iterations):
        x = v[0]
        y = v[1]
        fx = np.array([x * x + y * y - 4.0, np.exp(x) + y - 1.0])
        jac = np.array([[2.0 * x, 2.0 * y], [np.exp(x), 1.0]])
        v = v - np.linalg.solve(jac, fx)
    return v


def newton_helpers(x0, y0, iterations):
    """The same with helpers for the residual and the Jacobian and ``-=``."""
    def residual(v):
        return np.array([v[0] ** 2 + v[1] ** 2 - 4.0, np.exp(v[0]) + v[1] - 1.0])

    def jacobian(v):
        return np.array([[2.0 * v[0], 2.0 * v[1]], [np.exp(v[0]), 1.0]])

    v = np.array([x0, y0])
    for _ in range(iterations):
        v -= np.linalg.solve(jacobian(v), residual(v))
    return v


# -- 8. the 1-d heat equation, explicit steps -----------------------------------------


def heat_slices(u, r, steps):
    """Explicit Euler for u_t = u_xx, fixed ends: an in-place slice store."""
    u = u.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u


def heat_augmented(u, r, steps):
    """The same by ``+=`` on the interior slice (the right side read first)."""
    u = u.copy()
    for _ in range(steps):
        lap = u[2:] - 2.0 * u[1:-1] + u[:-2]
        u[1:-1] += r * lap
    return u


def heat_concatenate(u, r, steps):
    """The same rebinding ``u`` to a new array built by concatenation."""
    for _ in range(steps):
        inner = u[1:-1] + r * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u = np.concatenate((u[:1], inner, u[-1:]))
    return u


# -- 9. Viterbi, a scalar dynamic program ---------------------------------------------


def viterbi_scalar(log_start, log_trans, log_emit, obs):
    """Best path log-probability of a hidden Markov model, scalar loops."""
    n = log_trans.shape[0]
    t_len = obs.shape[0]
    score = np.zeros((t_len, n))
    for s in range(n):
        score[0, s] = log_start[s] + log_emit[s, obs[0]]
    for t in range(1, t_len):
        for s in range(n):
            best = score[t - 1, 0] + log_trans[0, s]
            for p in range(1, n):
                cand = score[t - 1, p] + log_trans[p, s]
                if cand > best:
                    best = cand
            score[t, s] = best + log_emit[s, obs[t]]
    return np.max(score[t_len - 1])


def viterbi_vector(log_start, log_trans, log_emit, obs):
    """The same, one column of candidates per step and ``np.max`` over it."""
    t_len = obs.shape[0]
    score = log_start + log_emit[:, obs[0]]
    for t in range(1, t_len):
        score = np.max(score[:, None] + log_trans, axis=0) + log_emit[:, obs[t]]
    return score.max()


# -- 10. softmax cross-entropy by log-sum-exp -----------------------------------------


def xent_inline(logits, labels):
    """Mean cross-entropy of integer labels, a stable log-sum-exp per row."""
    m = np.max(logits, axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.sum(np.exp(logits - m), axis=1))
    picked = logits[np.arange(logits.shape[0]), labels]
    return np.mean(lse - picked)


def xent_helper(logits, labels):
    """The same with a ``logsumexp`` helper and ``sum / len``."""
    def logsumexp(z):
        top = z.max(axis=1)
        return top + np.log(np.exp(z - top[:, None]).sum(axis=1))

    picked = logits[np.arange(len(labels)), labels]
    return np.sum(logsumexp(logits) - picked) / len(labels)


# -- JAX ports (jax.jit; float64 enabled by the harness) ------------------------------

def _jax_ports(jax):
    jnp, lax = jax.numpy, jax.lax

    def sor(diag, off, b, omega, sweeps):
        n = b.shape[0]

        def cell(i, x):
            s = b[i] - jnp.where(i > 0, off * x[jnp.maximum(i - 1, 0)], 0.0)
            s = s - jnp.where(i < n - 1, off * x[jnp.minimum(i + 1, n - 1)], 0.0)
            return x.at[i].set((1.0 - omega) * x[i] + omega * s / diag)
        return lax.fori_loop(0, sweeps * n, lambda j, x: cell(j % n, x), jnp.zeros(n))

    def floyd(d):
        return lax.fori_loop(0, d.shape[0], lambda k, d: jnp.minimum(
            d, d[:, k][:, None] + d[k, :][None, :]), d)

    def kalman(zs, f, h, q, r):
        def step(s, z):
            x, p = s
            x = f @ x
            p = f @ p @ f.T + q
            k = p @ h / (h @ p @ h + r)
            x = x + k * (z - h @ x)
            p = p - jnp.outer(k, h @ p)
            return (x, p), h @ x
        n = f.shape[0]
        return lax.scan(step, (jnp.zeros(n, zs.dtype), jnp.eye(n, dtype=zs.dtype)), zs)[1]

    def krr(x, y, xt, gamma, lam):
        def rbf(a, b):
            return jnp.exp(-gamma * ((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2))
        alpha = jnp.linalg.solve(rbf(x, x) + lam * jnp.eye(x.shape[0]), y)
        return rbf(xt, x) @ alpha

    def sinkhorn(a, b, cost, eps, iterations):
        kernel = jnp.exp(-cost / eps)

        def step(_, s):
            u = a / (kernel @ s[1])
            return u, b / (kernel.T @ u)
        u, v = lax.fori_loop(0, iterations, step, (jnp.ones(a.shape[0]),
                                                   jnp.ones(b.shape[0])))
        return jnp.sum(u[:, None] * kernel * v[None, :] * cost)

    def histogram(values, weights, bins):
        index = jnp.minimum((values * bins).astype(jnp.int64), bins - 1)
        h = jnp.zeros(bins).at[index].add(weights)
        return h / h.sum()

    def newton(x0, y0, iterations):
        def step(_, v):
            x, y = v[0], v[1]
            fx = jnp.stack([x * x + y * y - 4.0, jnp.exp(x) + y - 1.0])
            jac = jnp.stack([jnp.stack([2.0 * x, 2.0 * y]),
                             jnp.stack([jnp.exp(x), jnp.ones_like(x)])])
            return v - jnp.linalg.solve(jac, fx)
        return lax.fori_loop(0, iterations, step, jnp.array([x0, y0]))

    def heat(u, r, steps):
        return lax.fori_loop(0, steps, lambda _, u: u.at[1:-1].set(
            u[1:-1] + r * (u[2:] - 2.0 * u[1:-1] + u[:-2])), u)

    def viterbi(log_start, log_trans, log_emit, obs):
        def step(score, o):
            return jnp.max(score[:, None] + log_trans, axis=0) + log_emit[:, o], None
        return lax.scan(step, log_start + log_emit[:, obs[0]], obs[1:])[0].max()

    def xent(logits, labels):
        lse = jax.nn.logsumexp(logits, axis=1)
        return jnp.mean(lse - logits[jnp.arange(logits.shape[0]), labels])

    return locals()


#: static (Python) arguments of each JAX port, by position: jit specialises on them
STATIC = {"sor": (4,), "sinkhorn": (4,), "histogram": (2,), "newton": (2,),
          "heat": (2,)}


def jax_port(jax, name: str):
    """The jitted JAX port ``name`` of :func:`_jax_ports`."""
    return jax.jit(_jax_ports(jax)[name], static_argnums=STATIC.get(name, ()))


# -- the table -----------------------------------------------------------------------


@dataclass
class Phrasing:
    name: str
    fn: Callable
    float32: bool = False           # the float arguments cast to float32


@dataclass
class Program:
    name: str
    phrasings: list[Phrasing]
    data: Callable[[bool], tuple]   # quick -> arguments
    jax: str | None = None          # the name of its port in _jax_ports
    tol: float = 1e-6               # max |peer - numpy| / max |numpy|
    tol32: float = 2e-3             # the same for a float32 phrasing
    copies: tuple[int, ...] = field(default_factory=tuple)


def _size(quick, small, full):
    return small if quick else full


def sor_data(quick):
    n = _size(quick, 50, 400)
    return 4.0, -1.0, np.random.default_rng(31).normal(size=n), 1.5, _size(quick, 5, 20)


def floyd_data(quick):
    n = _size(quick, 24, 200)
    rng = np.random.default_rng(32)
    d = rng.uniform(1.0, 10.0, size=(n, n))
    d[rng.uniform(size=(n, n)) < 0.7] = 1e9
    np.fill_diagonal(d, 0.0)
    return (d,)


def kalman_data(quick):
    steps = _size(quick, 40, 400)
    dt = 0.1
    f = np.array([[1.0, dt], [0.0, 1.0]])
    rng = np.random.default_rng(33)
    zs = np.cumsum(rng.normal(size=steps)) * dt + rng.normal(scale=0.5, size=steps)
    return zs, f, np.array([1.0, 0.0]), 0.01 * np.eye(2), 0.25


def krr_data(quick):
    n, m, d = _size(quick, (60, 40, 3), (800, 400, 5))
    rng = np.random.default_rng(34)
    x = rng.uniform(-1, 1, size=(n, d))
    return x, np.sin(x.sum(axis=1)), rng.uniform(-1, 1, size=(m, d)), 0.5, 1e-2


def sinkhorn_data(quick):
    n, m = _size(quick, (40, 30), (500, 400))
    rng = np.random.default_rng(35)
    a = rng.uniform(0.5, 1.5, n)
    b = rng.uniform(0.5, 1.5, m)
    xs, ys = rng.uniform(size=n), rng.uniform(size=m)
    return a / a.sum(), b / b.sum(), (xs[:, None] - ys[None, :]) ** 2, 0.05, \
        _size(quick, 20, 100)


def histogram_data(quick):
    n = _size(quick, 5000, 1_000_000)
    rng = np.random.default_rng(36)
    return rng.beta(2.0, 5.0, size=n), rng.uniform(size=n), 50


def newton_data(quick):
    return -1.5, 1.0, 8


def heat_data(quick):
    n = _size(quick, 200, 100_000)
    x = np.linspace(0.0, 1.0, n)
    return np.sin(np.pi * x) + 0.1 * np.sin(9 * np.pi * x), 0.4, _size(quick, 20, 200)


def viterbi_data(quick):
    n, t, symbols = _size(quick, (4, 30, 3), (8, 300, 6))
    rng = np.random.default_rng(37)

    def stochastic(rows, cols):
        p = rng.uniform(0.1, 1.0, size=(rows, cols))
        return np.log(p / p.sum(axis=1, keepdims=True))
    return stochastic(1, n)[0], stochastic(n, n), stochastic(n, symbols), \
        rng.integers(0, symbols, t)


def xent_data(quick):
    n, k = _size(quick, (300, 10), (200_000, 20))
    rng = np.random.default_rng(38)
    return rng.normal(scale=3.0, size=(n, k)), rng.integers(0, k, n)


PROGRAMS = [
    Program("SOR sweep (scalar)", [Phrasing("for, rebinding", sor_for),
                                   Phrasing("while, +=", sor_while)], sor_data, "sor"),
    Program("Floyd-Warshall", [Phrasing("2-d slices", floyd_slices),
                               Phrasing("[:, None]", floyd_newaxis),
                               Phrasing("reshape + where, while", floyd_where),
                               Phrasing("2-d slices, float32", floyd_slices, True)],
            floyd_data, "floyd"),
    Program("Kalman filter", [Phrasing("@ inline", kalman_operator),
                              Phrasing("np.dot, helper", kalman_functions),
                              Phrasing("@ inline, default r=1.0", kalman_defaults)],
            kalman_data, "kalman"),
    Program("RBF kernel ridge", [Phrasing("broadcast", krr_broadcast),
                                 Phrasing("norms + dot, helper", krr_norms),
                                 Phrasing("broadcast, float32", krr_broadcast, True)],
            krr_data, "krr", tol=1e-5, tol32=5e-2),
    Program("Sinkhorn", [Phrasing("for, @", sinkhorn_for),
                         Phrasing("while and, np.dot/.dot", sinkhorn_while),
                         Phrasing("for, @, defaults in the signature", sinkhorn_defaults),
                         Phrasing("for, @, float32", sinkhorn_for, True)],
            sinkhorn_data, "sinkhorn", tol=1e-6, tol32=1e-2),
    Program("weighted histogram", [Phrasing("np.add.at", histogram_add_at),
                                   Phrasing("bincount", histogram_bincount)],
            histogram_data, "histogram"),
    Program("Newton 2x2", [Phrasing("inline", newton_inline),
                           Phrasing("helpers, -=", newton_helpers)],
            newton_data, "newton"),
    Program("1-d heat equation", [Phrasing("slice store", heat_slices),
                                  Phrasing("slice +=", heat_augmented),
                                  Phrasing("concatenate", heat_concatenate),
                                  Phrasing("slice store, float32", heat_slices, True)],
            heat_data, "heat"),
    Program("Viterbi", [Phrasing("scalar DP", viterbi_scalar),
                        Phrasing("vector max", viterbi_vector)],
            viterbi_data, "viterbi"),
    Program("softmax cross-entropy", [Phrasing("inline, np.mean", xent_inline),
                                      Phrasing("helper, sum/len", xent_helper),
                                      Phrasing("inline, float32", xent_inline, True)],
            xent_data, "xent", tol32=1e-4),
]
