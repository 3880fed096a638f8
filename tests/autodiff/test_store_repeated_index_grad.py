"""Gradients of a store with a repeated integer index (``b[[0, 0, 2]] = v``), against JAX.

NumPy keeps one write per element (the last); the writes it overwrote have no effect on
the result, so their values get no cotangent.  The store's rule gave every occurrence the
element's cotangent: a silently wrong gradient.  JAX's oracle spells the kept writes out."""
import numpy as np
import pytest

from phylanx.autodiff import grad

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)

VECTOR = np.array([0.5, -1.0, 2.0, 0.3])
MATRIX = np.arange(12.0).reshape(4, 3) / 5.0 - 0.7


def store_repeated(a):
    b = a * 1.0
    b[np.array([0, 0, 2])] = a[:3] ** 2
    return np.sum(b * b)


def jax_store_repeated(a):
    b = a.at[0].set(a[1] ** 2).at[2].set(a[2] ** 2)     # the write of a[0] ** 2 is lost
    return jnp.sum(b * b)


def add_repeated(a):
    b = np.sin(a)
    b[np.array([3, 1, 3])] += a[1:] * 2.0               # b[3] keeps b[3] + 2 * a[3]
    return np.sum(b ** 3)


def jax_add_repeated(a):
    b = jnp.sin(a)
    b = b.at[1].set(b[1] + a[2] * 2.0).at[3].set(b[3] + a[3] * 2.0)
    return jnp.sum(b ** 3)


def rows_repeated(m):
    b = m * 2.0
    b[np.array([2, 0, 2])] = np.cos(m[:3])
    return np.sum(b * m)


def jax_rows_repeated(m):
    b = (m * 2.0).at[0].set(jnp.cos(m[1])).at[2].set(jnp.cos(m[2]))
    return jnp.sum(b * m)


@pytest.mark.parametrize("ours, theirs, value", [
    (store_repeated, jax_store_repeated, VECTOR),
    (add_repeated, jax_add_repeated, VECTOR),
    (rows_repeated, jax_rows_repeated, MATRIX),
])
def test_a_repeated_index_gives_the_overwritten_writes_no_cotangent(ours, theirs, value):
    np.testing.assert_allclose(ours(value.copy()), theirs(jnp.asarray(value)), rtol=1e-12)
    got = grad(ours)(value.copy())
    np.testing.assert_allclose(got, jax.grad(theirs)(jnp.asarray(value)), rtol=1e-12,
                               atol=1e-12)
