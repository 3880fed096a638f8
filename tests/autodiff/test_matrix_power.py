"""``np.linalg.matrix_power`` under ``@Phylanx`` (the ``matrix_power`` primitive): NumPy's
values for every integer exponent (0: the identity, negative: powers of the inverse), a
located error for a non-integer one, and its first and second derivatives against JAX
(the rule is equations of primitives, matrix_power among them)."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import phylanx
from phylanx import Phylanx
from phylanx.errors import PhylanxTypeError

jax.config.update("jax_enable_x64", True)

A = np.random.default_rng(44).standard_normal((3, 3)) + 2.0 * np.eye(3)


@Phylanx
def power_of(a, n):
    return np.linalg.matrix_power(a, n)


def test_every_integer_exponent_is_numpys():
    for n in range(-3, 5):
        np.testing.assert_allclose(power_of(A, n), np.linalg.matrix_power(A, n),
                                   rtol=1e-12, err_msg=f"n = {n}")
    stack = np.stack([A, A.T])
    np.testing.assert_allclose(power_of(stack, -2), np.linalg.matrix_power(stack, -2),
                               rtol=1e-12)


def test_a_float_exponent_is_a_located_error():
    with pytest.raises(PhylanxTypeError, match="must be an integer") as info:
        power_of(A, 2.0)
    assert info.value.loc is not None and "matrix_power" in str(info.value)


def loss(a):
    return np.sum(np.sin(np.linalg.matrix_power(a, 3))) + np.sum(
        np.linalg.matrix_power(a, -2) ** 2)


def loss_jax(a):
    return jnp.sum(jnp.sin(jnp.linalg.matrix_power(a, 3))) + jnp.sum(
        jnp.linalg.matrix_power(a, -2) ** 2)


def test_gradient_and_hessian_equal_jax():
    np.testing.assert_allclose(phylanx.grad(loss)(A), jax.grad(loss_jax)(A), rtol=1e-9)
    np.testing.assert_allclose(phylanx.hessian(loss)(A), jax.hessian(loss_jax)(A),
                               rtol=1e-8, atol=1e-10)
