"""Second and third derivatives through ``np.where`` and ``np.abs`` against JAX (their
equation forms in ``rules_recordable.py``: the condition and the sign are constants of
the derivative).  Before, ``hessian`` of a function using either was a located
"cannot differentiate the derivative" error, where JAX gives the Hessian."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from phylanx.autodiff import grad, hessian

jax.config.update("jax_enable_x64", True)


def penalised(w, x):
    """A helper-free loss with a data-dependent selection and an L1 term."""
    v = x @ w
    return np.sum(np.where(v > 0.0, v ** 3, 0.5 * v * v)) + np.sum(np.abs(w) * w * w)


def penalised_jax(w, x):
    v = x @ w
    return jnp.sum(jnp.where(v > 0.0, v ** 3, 0.5 * v * v)) + jnp.sum(jnp.abs(w) * w * w)


def _selected(w):
    return np.where(w < 0.0, w ** 3, np.sin(w))


def through_a_helper(w):
    return np.sum(_selected(w) * np.abs(w - 0.25))


def through_a_helper_jax(w):
    return jnp.sum(jnp.where(w < 0.0, w ** 3, jnp.sin(w)) * jnp.abs(w - 0.25))


RNG = np.random.default_rng(31)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_hessian_through_where_and_abs_equals_jax(dtype):
    w = RNG.standard_normal(4).astype(dtype)
    x = RNG.standard_normal((7, 4)).astype(dtype)
    tol = 1e-9 if dtype == np.float64 else 2e-4
    got = hessian(penalised)(w, x)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, jax.hessian(penalised_jax)(w, x), rtol=tol, atol=tol)
    got = hessian(through_a_helper)(w)
    np.testing.assert_allclose(got, jax.hessian(through_a_helper_jax)(w), rtol=tol, atol=tol)


def test_third_derivative_through_where_and_abs_equals_jax():
    def f(t):
        return np.where(t > 0.1, t ** 4, np.cos(t)) * np.abs(t - 2.0)

    def f_jax(t):
        return jnp.where(t > 0.1, t ** 4, jnp.cos(t)) * jnp.abs(t - 2.0)

    for t in (-0.7, 0.6):
        np.testing.assert_allclose(grad(grad(grad(f)))(t), jax.grad(jax.grad(jax.grad(f_jax)))(t),
                                   rtol=1e-9)
