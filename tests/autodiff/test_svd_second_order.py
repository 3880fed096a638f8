"""Second derivatives through ``svd``, ``pinv`` and ``lstsq`` (ad46: their rules got
equation forms, ``autodiff/rules_recordable_svd.py``) of whole Python functions:
``hessian`` against ``jax.hessian``, ``grad(grad)`` against central differences of the
first derivative, the full SVD's first columns against the reduced one, float32; the
spectral matrix norms, which record an svd.
The registry-wide check of every case is ``test_second_order.py``."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(4601)
TALL, WIDE = RNG.standard_normal((4, 3)), RNG.standard_normal((3, 4))


def family(a, b, w, q):
    """Singular vectors (sign-invariant products), pinv and lstsq."""
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    x = np.linalg.lstsq(a, b, rcond=None)[0]
    return (np.sum(w * ((u * np.sin(s)) @ vh)) + np.sum(q * u * u)
            + np.sum(np.linalg.pinv(a) ** 3) + np.sum(np.sin(x) * x))


def family_jax(a, b, w, q):
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    x = jnp.linalg.lstsq(a, b, rcond=None)[0]
    return (jnp.sum(w * ((u * jnp.sin(s)) @ vh)) + jnp.sum(q * u * u)
            + jnp.sum(jnp.linalg.pinv(a) ** 3) + jnp.sum(jnp.sin(x) * x))


def _operands(a):
    m, n = a.shape
    return (a, RNG.standard_normal(m), RNG.standard_normal((m, n)),
            RNG.standard_normal((m, min(m, n))))


@pytest.mark.slow        # one JAX compile: about 1.5 s idle (its Hessian of three SVDs)
def test_hessian_through_svd_pinv_lstsq_equals_jax():
    operands = _operands(TALL)
    got = phylanx.hessian(family)(*operands)
    want = jax.jit(jax.hessian(family_jax))(*operands)
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("a", [TALL, WIDE], ids=["tall", "wide"])
def test_hvp_equals_central_differences_of_the_gradient(a):
    operands = _operands(a)
    v = RNG.standard_normal(np.shape(a))
    gradient = phylanx.grad(family)

    got = phylanx.hvp(family)(*operands, v)
    eps = 1e-5
    want = (gradient(a + eps * v, *operands[1:]) - gradient(a - eps * v, *operands[1:])) / (
        2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)   # the Hessian is symmetric


def _first_columns(full):
    def f(a, w, q):
        k = min(a.shape)
        u, s, vh = np.linalg.svd(a, full_matrices=full)
        return np.sum(w * ((u[:, :k] * s ** 2) @ vh[:k])) + np.sum(q * u[:, :k] ** 3 * s)
    return f


@pytest.mark.parametrize("a", [TALL, WIDE], ids=["tall", "wide"])
def test_the_full_svd_s_first_columns_differentiate_as_the_reduced_svd(a):
    """u[:, :k] and vh[:k] of full_matrices are the reduced factors (``u ** 3``: the
    Hessian depends on the columns' signs, the same in both); the completion gets no
    cotangent, so both Hessians agree (the reduced one is JAX's, above)."""
    m, n = a.shape
    w, q = RNG.standard_normal((m, n)), RNG.standard_normal((m, min(m, n)))
    full = phylanx.hessian(_first_columns(True))(a, w, q)
    np.testing.assert_allclose(full, phylanx.hessian(_first_columns(False))(a, w, q),
                               rtol=1e-10, atol=1e-12)


def test_float32_hessians_stay_float32():
    operands = _operands(WIDE)
    want = phylanx.hessian(family)(*operands)
    got = phylanx.hessian(family)(*(v.astype(np.float32) for v in operands))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3 * np.max(np.abs(want)))


def spectral(a, w):
    return (np.linalg.norm(a, "nuc") * np.sum(a * w) + np.linalg.norm(a, 2) ** 2
            + np.linalg.norm(a, -2) * np.linalg.norm(a, "nuc"))


@pytest.mark.parametrize("a", [TALL, WIDE], ids=["tall", "wide"])
def test_spectral_norms_second_derivatives_equal_central_differences(a):
    """``"nuc"`` and ``±2`` record the svd of their matrix (ad46; their first derivative
    is compared with JAX's by test_rules_jax.py)."""
    w, v = RNG.standard_normal(a.shape), RNG.standard_normal(a.shape)
    gradient = phylanx.grad(spectral)
    eps = 1e-5
    want = (gradient(a + eps * v, w) - gradient(a - eps * v, w)) / (2 * eps)
    np.testing.assert_allclose(phylanx.hvp(spectral)(a, w, v), want, rtol=1e-6, atol=1e-6)
