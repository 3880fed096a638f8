"""Gradients through an augmented assignment into a slice (``b[1:3] *= 3.0``), against JAX.

Python runs ``b[i] op= v`` as ``t = b[i]; t op= v; b[i] = t``: the view ``t`` changes in
place, then is stored back where it already is.  The tape took that view's change for a
change of ``b`` through another name and refused the gradient of a fresh array, although
``b[i] = b[i] * v`` differentiated.  Views the user holds by name stay refused (guards)."""
import numpy as np
import pytest

import phylanx
from phylanx.autodiff import grad

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)

VECTOR = np.array([0.3, -1.2, 2.0, 0.7, -0.4])
MATRIX = np.arange(12.0).reshape(3, 4) / 7.0 - 0.5


def slice_product(a):
    b = a * 1.0
    b[1:3] *= 3.0
    return np.sum(b * a)


def jax_slice_product(a):
    b = a.at[1:3].multiply(3.0)
    return jnp.sum(b * a)


def step_sum(a):
    b = a * 2.0
    b[::2] += a[::2] ** 2
    b[::-2] -= np.sin(a[::-2])
    return np.sum(b * b)


def jax_step_sum(a):
    b = a * 2.0
    b = b.at[::2].add(a[::2] ** 2)
    b = b.at[::-2].add(-jnp.sin(a[::-2]))
    return jnp.sum(b * b)


def rows_columns(m):
    b = np.exp(m)
    b[1:, ::2] *= m[1:, ::2]
    b[0] /= 2.0
    return np.sum(b ** 2)


def jax_rows_columns(m):
    b = jnp.exp(m)
    b = b.at[1:, ::2].multiply(m[1:, ::2])
    b = b.at[0].divide(2.0)
    return jnp.sum(b ** 2)


def used_before_the_change(a):
    b = np.cos(a)
    before = b * a         # its rule needs b's values before the change
    b[1:4] -= a[1:4]
    return np.sum(before * b)


def jax_used_before_the_change(a):
    b = jnp.cos(a)
    before = b * a
    b = b.at[1:4].add(-a[1:4])
    return jnp.sum(before * b)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("ours, theirs, value", [
    (slice_product, jax_slice_product, VECTOR),
    (step_sum, jax_step_sum, VECTOR),
    (rows_columns, jax_rows_columns, MATRIX),
    (used_before_the_change, jax_used_before_the_change, VECTOR),
])
def test_augmented_assignment_into_a_slice_differentiates_as_jax(ours, theirs, value, dtype):
    value = value.astype(dtype)
    got = grad(ours)(value.copy())
    expected = np.asarray(jax.grad(theirs)(jnp.asarray(value)))
    assert got.dtype == dtype
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance)


def named_view_changed(a):
    b = a * 1.0
    v = b[1:3]
    v *= 3.0               # b changes through the name v
    return np.sum(b * a)


def view_held_before(a):
    b = a * 1.0
    c = b[0:2]             # sees the change below
    b[1:3] *= 3.0
    return np.sum(c * a[:2])


@pytest.mark.parametrize("function", [named_view_changed, view_held_before])
def test_a_change_seen_through_another_name_stays_a_located_error(function):
    """Guards (they passed before): the fix must not turn these into silent answers."""
    with pytest.raises(phylanx.PhylanxError, match="changed in place through another name"):
        grad(function)(VECTOR.copy())


def zero_d_product(a):
    s = np.zeros(())
    s += a[0] ** 2
    s *= a[1]              # the product's rule needs s from before this change
    return s + np.sum(a)


def jax_zero_d_product(a):
    return a[0] ** 2 * a[1] + jnp.sum(a)


def zero_d_in_a_loop(a):
    s = np.array(0.0)
    b = a * 1.0
    for i in range(3):
        s += np.sin(b[i])
        b[i] *= s
    return s * np.sum(b * b)


def jax_zero_d_in_a_loop(a):
    s, b = 0.0, a * 1.0
    for i in range(3):
        s = s + jnp.sin(b[i])
        b = b.at[i].multiply(s)
    return s * jnp.sum(b * b)


@pytest.mark.parametrize("ours, theirs", [(zero_d_product, jax_zero_d_product),
                                          (zero_d_in_a_loop, jax_zero_d_in_a_loop)])
def test_a_0d_array_changed_in_place_differentiates_as_jax(ours, theirs):
    """``s *= v`` changes a 0-d array in place (as NumPy's, since 178af18): the tape kept
    the changed array for the product recorded before it, so ``s``'s factor took the
    value after the change (a silently wrong gradient: -0.637 for 0.49)."""
    got = grad(ours)(VECTOR.copy())
    expected = np.asarray(jax.grad(theirs)(jnp.asarray(VECTOR)))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
