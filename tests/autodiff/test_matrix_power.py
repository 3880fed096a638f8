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


def _equation_count(value) -> int:
    from phylanx.autodiff.equations import Eq
    if type(value) in (list, tuple):
        return sum(_equation_count(v) for v in value)
    if not isinstance(value, Eq):
        return 0
    return 1 + sum(_equation_count(a) for a in value.args)


def test_the_rule_of_a_large_exponent_is_logarithmic_in_it():
    # JAX's matrix_power squares repeatedly, and so does its gradient; a rule summing the
    # n terms (B^T)^k ct (B^T)^(n-1-k) made grad take 18 s at n = 1e5 and never end at
    # n = 2**40 (a rule of O(log n) equations: one matrix_power of a 2n x 2n block matrix)
    from phylanx.autodiff import VJP
    ct = np.ones((3, 3))
    for n in (1000, -1000):
        equations = VJP.get("matrix_power").equations(ct, ct, A, n)
        assert _equation_count(equations) < 64, n
    rotation = np.array([[0.6, -0.8], [0.8, 0.6]])      # its powers stay bounded
    stack = np.stack([rotation, rotation.T, np.eye(2)])

    def f(a, n):
        return np.sum(np.sin(np.linalg.matrix_power(a, n)))

    def f_jax(a, n):
        return jnp.sum(jnp.sin(jnp.linalg.matrix_power(a, n)))

    for a, n in ((stack, 2 ** 40 + 1), (stack, 7), (rotation, -(2 ** 20) - 3)):
        np.testing.assert_allclose(phylanx.grad(f)(a, n), jax.grad(f_jax)(a, n),
                                   rtol=1e-6, atol=1e-9 * abs(n), err_msg=f"n = {n}")
    np.testing.assert_allclose(phylanx.hessian(f)(rotation, 2 ** 12 + 1),
                               jax.hessian(f_jax)(rotation, 2 ** 12 + 1), rtol=1e-7,
                               atol=1e-9 * 2 ** 24)


def test_a_stack_to_a_negative_power_differentiates():
    # the inverse's transpose was built for a rank-0 operand (an equation's shape is not
    # the matrix's): a PhylanxValueError for every stack with n < 0
    stack = np.stack([A, A.T + np.eye(3)])
    for n in (-1, -2):
        np.testing.assert_allclose(phylanx.grad(loss_of_stack)(stack, n),
                                   jax.grad(loss_of_stack_jax)(stack, n), rtol=1e-9,
                                   err_msg=f"n = {n}")
    np.testing.assert_allclose(phylanx.hessian(loss_of_stack)(stack, -2),
                               jax.hessian(loss_of_stack_jax)(stack, -2), rtol=1e-8,
                               atol=1e-10)


def loss_of_stack(a, n):
    return np.sum(np.sin(np.linalg.matrix_power(a, n)))


def loss_of_stack_jax(a, n):
    return jnp.sum(jnp.sin(jnp.linalg.matrix_power(a, n)))
