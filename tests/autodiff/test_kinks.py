"""Gradients at the kinks (ad46, issue 29 item 3): at a point where a function has no
derivative, phylanx takes JAX's one-sided or shared choice (docs/autodiff.md, "Kinks"):
``abs`` +1 at 0 (so the 1-norm and the sign of the inf-norms), ties of ``max``/``min``,
``maximum``/``minimum`` and ``clip`` shared, ``fmax``/``fmin`` ties to the second
operand, ``relu`` 0 at 0, ``sqrt`` inf at 0; first and second derivatives against
JAX's at the kink points.  The deliberate differences from JAX (a zero 2-norm, a zero
vector's inf-norm, ``hypot(0, 0)``, a leaky relu at its threshold) are checked against
their stated convention."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx.ops import relu

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)

AT_ZERO = np.array([0.0, -0.0, 1.5, -2.0, 0.0])
TIES = np.array([2.0, -2.0, 0.0, 2.0, 1.0])
MATRIX = np.array([[0.0, 1.0, -3.0], [0.0, -1.0, 2.0], [-0.0, 2.0, 0.0]])   # zeros, ties


def kinks(a, t, m):
    """One primitive at its kink per item: ``a`` has zeros (and -0.0), ``t`` ties, ``m``
    zeros and ties of column and row sums."""
    return np.stack([
        np.sum(np.abs(a) * (1.0 + a)), np.abs(a[1]), np.linalg.norm(a, 1),
        np.linalg.norm(t, np.inf), np.linalg.norm(a, -np.inf), np.linalg.norm(a, 3),
        np.linalg.norm(m, 1), np.linalg.norm(m, -1), np.linalg.norm(m, np.inf),
        np.linalg.norm(m, -np.inf), np.max(t), np.min(a * a),
        np.sum(np.max(m, 0) * np.arange(3.0)),
        np.sum(np.maximum(a, 0.0) * a), np.sum(np.minimum(t, t[::-1]) * t),
        np.sum(np.fmax(t, 2.0) + np.fmax(0.0, t) * t),
        np.sum(np.fmin(t, 0.0) * t + np.fmin(-2.0, t)),
        np.sum(np.clip(t, -2.0, 0.0) * t)])


def kinks_jax(a, t, m):
    return jnp.stack([
        jnp.sum(jnp.abs(a) * (1.0 + a)), jnp.abs(a[1]), jnp.linalg.norm(a, 1),
        jnp.linalg.norm(t, jnp.inf), jnp.linalg.norm(a, -jnp.inf), jnp.linalg.norm(a, 3),
        jnp.linalg.norm(m, 1), jnp.linalg.norm(m, -1), jnp.linalg.norm(m, jnp.inf),
        jnp.linalg.norm(m, -jnp.inf), jnp.max(t), jnp.min(a * a),
        jnp.sum(jnp.max(m, 0) * jnp.arange(3.0)),
        jnp.sum(jnp.maximum(a, 0.0) * a), jnp.sum(jnp.minimum(t, t[::-1]) * t),
        jnp.sum(jnp.fmax(t, 2.0) + jnp.fmax(0.0, t) * t),
        jnp.sum(jnp.fmin(t, 0.0) * t + jnp.fmin(-2.0, t)),
        jnp.sum(jnp.clip(t, -2.0, 0.0) * t)])


NAMES = ["abs", "abs of a scalar", "norm 1", "norm inf (ties)", "norm -inf", "norm 3",
         "matrix norm 1", "matrix norm -1", "matrix norm inf", "matrix norm -inf",
         "max (ties)", "min", "max along an axis", "maximum", "minimum", "fmax", "fmin",
         "clip"]


def test_the_gradients_at_the_kinks_are_jax_s():
    """Each item's gradient (a row of the Jacobian) against JAX's (one compile for all:
    JAX op by op costs seconds here)."""
    points = (AT_ZERO, TIES, MATRIX)
    got = phylanx.jacobian(kinks, (0, 1, 2))(*points)
    want = jax.jit(jax.jacrev(kinks_jax, (0, 1, 2)))(*points)
    for k, name in enumerate(NAMES):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g[k], np.asarray(w)[k], rtol=1e-12, atol=1e-15,
                                       err_msg=name)


def test_relu_at_zero_is_jax_s_and_the_slope_from_below_at_its_threshold():
    x = np.array([0.0, 1.0, -1.0, 6.0, 0.5])
    np.testing.assert_array_equal(phylanx.grad(lambda v: np.sum(relu(v)))(x),
                                  [0.0, 1.0, 0.0, 1.0, 1.0])   # jax.nn.relu's: 0 at 0
    np.testing.assert_array_equal(phylanx.grad(lambda v: np.sum(relu(v, 0.0, 6.0)))(x),
                                  [0.0, 1.0, 0.0, 0.0, 1.0])   # jax.nn.relu6's
    # a leaky relu at its threshold: alpha, the slope from below (TensorFlow's and
    # PyTorch's leaky relu; jax.nn.leaky_relu takes 1 there)
    np.testing.assert_array_equal(phylanx.grad(lambda v: np.sum(relu(v, 0.1)))(x),
                                  [0.1, 1.0, 0.1, 1.0, 1.0])
    np.testing.assert_array_equal(phylanx.grad(lambda v: np.sum(relu(v, 0.1, None, 0.5)))(x),
                                  [0.1, 1.0, 0.1, 1.0, 0.1])


def test_sqrt_at_zero_is_infinite_as_jax_s():
    # (not in the Jacobian above: its other rows' zero cotangents times inf are NaN)
    assert phylanx.grad(lambda v: np.sqrt(v[0]) + v[1])(AT_ZERO)[0] == np.inf
    assert jax.grad(jnp.sqrt)(0.0) == np.inf


def test_second_derivatives_at_the_kinks_are_jax_s():
    """The slopes are constants of the derivative: the Hessian sees the chosen side."""
    def ours(x):
        return (np.sum(np.abs(x) * x * x) + np.linalg.norm(x, 1) * np.sum(x * x)
                + np.sum(np.fmax(x, 0.0) ** 3) + np.sum(np.clip(x, -2.0, 0.0) ** 2 * x))

    def theirs(x):
        return (jnp.sum(jnp.abs(x) * x * x) + jnp.linalg.norm(x, 1) * jnp.sum(x * x)
                + jnp.sum(jnp.fmax(x, 0.0) ** 3) + jnp.sum(jnp.clip(x, -2.0, 0.0) ** 2 * x))

    np.testing.assert_allclose(phylanx.hessian(ours)(AT_ZERO),
                               np.asarray(jax.jit(jax.hessian(theirs))(AT_ZERO)), rtol=1e-12)


def test_the_conventions_that_differ_from_jax():
    """A zero 2-norm (or p-) norm: gradient 0, the minimum-norm subgradient (JAX: NaN,
    from x / |x|); a zero vector's inf-norm: abs's +1 times max's shared ties, 1/n each
    (JAX: 1/(2n), from its max(0, ...)); hypot(0, 0): 0 (JAX: 1/2 each, from its
    scaling)."""
    zeros = np.zeros(4)
    np.testing.assert_array_equal(phylanx.grad(lambda v: np.linalg.norm(v))(zeros), zeros)
    np.testing.assert_array_equal(phylanx.grad(lambda v: np.linalg.norm(v, 3))(zeros), zeros)
    np.testing.assert_array_equal(phylanx.grad(lambda v: np.linalg.norm(v, np.inf))(zeros),
                                  np.full(4, 0.25))
    np.testing.assert_array_equal(
        phylanx.grad(lambda v: np.sum(np.hypot(v, v[::-1])))(zeros), zeros)
