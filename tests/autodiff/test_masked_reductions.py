"""NumPy's ``where=`` of the reductions (adb50): it was refused at compile time.  Values
against the undecorated function (NumPy), gradients against JAX (zero where the mask is
False)."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)

X = np.array([[-2.0, -1.0, 0.5], [1.0, 2.0, 3.0]])
MASK = np.array([[False, True, True], [True, False, True]])

CASES = {
    "sum": (lambda x, m: np.sum(x, where=m), lambda x, m: jnp.sum(x, where=m)),
    "sum-axis": (lambda x, m: np.sum(x, axis=0, where=m),
                 lambda x, m: jnp.sum(x, axis=0, where=m)),
    "method-sum": (lambda x, m: x.sum(where=m), lambda x, m: jnp.sum(x, where=m)),
    "mean": (lambda x, m: np.mean(x, where=m), lambda x, m: jnp.mean(x, where=m)),
    "mean-keepdims": (lambda x, m: np.mean(x, 1, keepdims=True, where=m),
                      lambda x, m: jnp.mean(x, 1, keepdims=True, where=m)),
    "method-mean-row-mask": (lambda x, m: x.mean(axis=1, where=m[0]),
                             lambda x, m: jnp.mean(x, axis=1, where=m[0])),
    "prod": (lambda x, m: np.prod(x, axis=1, where=m), lambda x, m: jnp.prod(x, 1, where=m)),
    "max-initial": (lambda x, m: np.max(x, initial=-5.0, where=m),
                    lambda x, m: jnp.max(x, initial=-5.0, where=m)),
    "method-min-initial": (lambda x, m: x.min(axis=1, initial=5.0, where=m),
                           lambda x, m: jnp.min(x, axis=1, initial=5.0, where=m)),
}


@pytest.mark.parametrize("case", CASES)
def test_where_of_a_reduction_is_numpys_and_its_gradient_jaxs(case):
    reduce, jax_reduce = CASES[case]
    got = phylanx.Phylanx(reduce)(X, MASK)
    np.testing.assert_allclose(got, reduce(X, MASK), rtol=1e-15)
    assert np.asarray(got).dtype == np.asarray(reduce(X, MASK)).dtype
    grad = phylanx.grad(lambda x: np.sum(reduce(x, MASK) ** 2))(X)
    want = jax.grad(lambda x: jnp.sum(jax_reduce(x, MASK) ** 2))(X)
    np.testing.assert_allclose(grad, np.asarray(want), rtol=1e-12)


def test_where_of_any_all_nansum_and_integers_is_numpys():
    def reductions(x, m, n):
        return (np.any(x > 1.5, where=m), np.all(x > -1.5, where=m),
                np.nansum(x, where=m), np.sum(n, where=m), np.mean(n, 0, where=m),
                np.mean(x, 1, np.float32, None, True, where=m))   # NumPy's positions
    ints = np.array([[100, 100, 100], [100, 100, 27]], np.int8)
    x = X.copy()
    x[0, 0] = np.nan
    for a, b in zip(phylanx.Phylanx(reductions)(x, MASK, ints), reductions(x, MASK, ints)):
        np.testing.assert_array_equal(a, b)
        assert np.asarray(a).dtype == np.asarray(b).dtype


def test_max_with_where_and_no_initial_is_a_located_error_as_numpy_refuses_it():
    with pytest.raises(ValueError):
        np.max(X, where=MASK)
    with pytest.raises(phylanx.PhylanxError, match="needs initial=") as caught:
        phylanx.Phylanx(lambda x, m: np.max(x, where=m))(X, MASK)
    assert caught.value.loc is not None and caught.value.loc.file == __file__
