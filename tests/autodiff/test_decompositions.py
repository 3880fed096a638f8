"""Gradients through the matrix decompositions and norms end to end (``grad`` of
decorated functions against central differences of the undecorated ones), and the located
errors where a decomposition is not a differentiable function of its matrix (repeated
eigenvalues, non-unique completions, a rank-deficient or wide QR).  The rules themselves
are checked on the registry's cases by ``test_rules.py`` (central differences) and
``test_rules_jax.py`` (``jax.vjp``)."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import Phylanx
from phylanx.autodiff import PhylanxGradientError

from .helpers import numeric_grad

RNG = np.random.default_rng(2911)
B = RNG.standard_normal((3, 3))
TALL = RNG.standard_normal((4, 3))


@Phylanx
def factors(b, c):
    a = b @ b.T + np.eye(3)
    lower = np.linalg.cholesky(a)
    w, v = np.linalg.eigh(a)
    u, s, vt = np.linalg.svd(c, full_matrices=False)
    q, r = np.linalg.qr(c)
    x, res, rank, sv = np.linalg.lstsq(c, b[0] @ c.T)
    return (np.sum(lower * lower * lower) + np.sum(w * w) + np.sum(v[:, 0] ** 3)
            + np.sum(s ** 3) + np.sum(u[0] ** 3) + np.sum(vt * vt * vt) + np.sum(q * r[0])
            + np.sum(np.linalg.pinv(c) ** 2) + np.sum(np.linalg.eigvalsh(a) ** 3)
            + np.sum(x * x) + np.sum(res))


def test_grad_through_the_decompositions_equals_central_differences():
    got = phylanx.grad(factors, (0, 1))(B, TALL)
    for i, g in enumerate(got):
        np.testing.assert_allclose(g, numeric_grad(factors.python, (B, TALL), i),
                                   rtol=1e-6, atol=1e-6)


@Phylanx
def norms(m, v):
    return (np.linalg.norm(m, 1) + np.linalg.norm(m, -1) + np.linalg.norm(m, np.inf)
            + np.linalg.norm(m, 2) + np.linalg.norm(m, -2) + np.linalg.norm(m, "nuc")
            + np.linalg.norm(v, 3) + np.linalg.norm(v, 1) + np.linalg.norm(v, np.inf)
            + np.linalg.norm(v, -np.inf) + np.linalg.norm(m, 0.5, axis=1)[0])


def test_grad_of_every_norm_order_equals_central_differences():
    v = np.array([0.3, -1.7, 0.9, 2.4])
    got = phylanx.grad(norms, (0, 1))(TALL, v)
    for i, g in enumerate(got):
        np.testing.assert_allclose(g, numeric_grad(norms.python, (TALL, v), i),
                                   rtol=1e-6, atol=1e-6)


def test_grad_wrt_a_symmetric_input_lives_on_the_triangle_read():
    """numpy reads the lower triangle: the upper one does not change the result, so its
    gradient is zero, and an off-diagonal entry counts for both mirrored places."""
    a = B @ B.T + np.eye(3)

    @Phylanx
    def top_eigenvalue(a):
        return np.linalg.eigvalsh(a)[2]

    g = phylanx.grad(top_eigenvalue)(a)
    v = np.linalg.eigh(a)[1][:, 2]
    want = np.outer(v, v)                      # JAX's symmetric gradient
    np.testing.assert_allclose(np.triu(g, 1), 0.0)
    np.testing.assert_allclose(np.tril(g, -1), 2 * np.tril(want, -1), rtol=1e-10)
    np.testing.assert_allclose(np.diag(g), np.diag(want), rtol=1e-10)


@Phylanx
def first_eigenvector(a):
    w, v = np.linalg.eigh(a)
    return np.sum(v[:, 0] ** 3)


@Phylanx
def eigenvalues_only(a):
    w, v = np.linalg.eigh(a)
    return np.sum(w * w)


@Phylanx
def full_u(c):
    u, s, vt = np.linalg.svd(c)
    return np.sum(u ** 3)


@Phylanx
def q_of(c):
    q, r = np.linalg.qr(c)
    return np.sum(q ** 3)


def _located(fn, arg, match):
    with pytest.raises(phylanx.PhylanxValueError, match=match) as info:
        phylanx.grad(fn)(arg)
    assert info.value.loc is not None and "np.linalg" in str(info.value)


def test_a_decomposition_without_a_derivative_is_a_located_error():
    repeated = np.diag([1.0, 2.0, 2.0])
    _located(first_eigenvector, repeated, "repeated eigenvalue")
    # the eigenvalues alone are differentiable (the repeated pair's block is what counts)
    np.testing.assert_allclose(phylanx.grad(eigenvalues_only)(repeated),
                               np.diag([2.0, 4.0, 4.0]), atol=1e-12)
    _located(full_u, TALL, "full_matrices=False")
    _located(q_of, TALL.T, "wide matrix")
    _located(q_of, np.outer(TALL[:, 0], [1.0, 2.0, 3.0]), "rank-deficient")


# -- dl30: the general eigenproblem (eig, eigvals), real eigenvalues only

def _general(n, seed):
    """``B diag(w) B^-1``: non-symmetric, real eigenvalues 0.8 apart."""
    rng = np.random.default_rng(seed)
    b = rng.standard_normal((n, n)) * 0.3 + np.eye(n)
    return (b * (np.arange(n) * 0.8 - 1.0)) @ np.linalg.inv(b)


@Phylanx
def spectrum(a):
    w, v = np.linalg.eig(a)
    return np.sum(w * w * np.arange(1.0, 4.0)) + np.sum(v[:, 1] ** 3) \
        + np.sum(np.linalg.eigvals(a * a) ** 3)


def test_grad_through_eig_equals_jax_and_central_differences():
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    a = _general(3, 30)
    sign = np.sign(np.linalg.eig(a)[1][:, 1].sum())      # numpy's vector's sign, fixed

    def spectrum_jax(m):
        w, v = jax.lax.linalg.eig(m, compute_left_eigenvectors=False,
                                  enable_eigvec_derivs=True)
        v1 = jnp.real(v[:, 1])
        v1 = v1 * sign * jnp.sign(jax.lax.stop_gradient(v1).sum())
        return jnp.sum(jnp.real(w) ** 2 * jnp.arange(1.0, 4.0)) + jnp.sum(v1 ** 3) \
            + jnp.sum(jnp.real(jnp.linalg.eigvals(m * m)) ** 3)

    got = phylanx.grad(spectrum)(a)
    np.testing.assert_allclose(got, jax.jit(jax.grad(spectrum_jax))(a), rtol=1e-9,
                               atol=1e-10)
    np.testing.assert_allclose(got, numeric_grad(spectrum.python, (a,), 0), rtol=1e-6,
                               atol=1e-6)


def test_eig_without_a_derivative_is_a_located_error_not_a_zero_gradient():
    rotation = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
    # eigenvalues +-i: since ad46 eig's rule takes complex eigenvalues (JAX's convention,
    # test_complex_values.py), and here the first rule for real values they reach,
    # ``v[:, 1] ** 3``'s power, is the located error (until ad46: eig's)
    with pytest.raises(PhylanxGradientError, match="'power' of complex values") as info:
        phylanx.grad(spectrum)(rotation)
    assert info.value.loc is not None and "** 3" in str(info.value)
    _located(spectrum, np.diag([1.0, 2.0, 2.0]) + np.triu(np.ones((3, 3)), 1),
             "repeated eigenvalue")


def test_lstsq_rcond_minus_one_differentiates_with_lstsq_s_own_cut():
    """``rcond=-1`` (NumPy's old default: machine precision) and ``None`` solve a
    rank-deficient system alike; the gradients took ``pinv(a, -1)``, which keeps the zero
    singular value: about 1e31 (until rev36, first and second order)."""
    rng = np.random.default_rng(29)
    a = rng.standard_normal((4, 2))
    a = np.c_[a, a[:, 0] + a[:, 1]]                # rank 2
    b, w = rng.standard_normal(4), np.arange(1.0, 4.0)

    def solved(rcond):
        return lambda m: np.sum(np.sin(np.linalg.lstsq(m, b, rcond=rcond)[0]) * w)

    for how in (phylanx.grad, phylanx.hessian):
        want = how(solved(None))(a)
        assert np.all(np.isfinite(want))
        np.testing.assert_allclose(how(solved(-1))(a), want, rtol=1e-8, atol=1e-10)
