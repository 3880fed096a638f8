"""The JAX-like API against JAX itself: ``grad``/``value_and_grad`` of plain Python
functions and lambdas (translated on the fly), ``has_aux``, ``argnums``, and
``jacobian`` (``jacrev``) of array-valued functions."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import phylanx
from phylanx import Phylanx
from phylanx.autodiff import grad, jacobian, jacrev, value_and_grad

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(290)
X = RNG.standard_normal(4)
A = RNG.standard_normal((3, 4))


def close(got, want):
    jax.tree_util.tree_map(
        lambda g, w: np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12), got, want)


def plain(x, a, scale):
    h = np.tanh(a @ x) * scale
    return np.sum(h * h) + np.sum(np.exp(-x * x))


def plain_jax(x, a, scale):
    h = jnp.tanh(a @ x) * scale
    return jnp.sum(h * h) + jnp.sum(jnp.exp(-x * x))


@pytest.mark.parametrize("argnums", [0, 1, (0, 1, 2), (2, 0), -1])
def test_grad_of_a_plain_function_equals_jax(argnums):
    got = grad(plain, argnums)(X, A, 0.7)
    close(got, jax.grad(plain_jax, argnums)(X, A, 0.7))
    value, got = value_and_grad(plain, argnums)(X, A, 0.7)
    want_value, want = jax.value_and_grad(plain_jax, argnums)(X, A, 0.7)
    close(value, want_value)
    close(got, want)


def test_grad_of_a_lambda_equals_jax_and_is_translated_once():
    f = lambda x: np.sum(np.sin(x) * x ** 2)       # noqa: E731 - the case under test
    gradient = phylanx.grad(f)
    close(gradient(X), jax.grad(lambda x: jnp.sum(jnp.sin(x) * x ** 2))(X))
    close(gradient(2 * X), jax.grad(lambda x: jnp.sum(jnp.sin(x) * x ** 2))(2 * X))
    from phylanx.autodiff import api
    assert isinstance(api._TRANSLATED[f], phylanx.PhylanxDecorator)
    assert phylanx.grad(f)(X).shape == X.shape and len(
        [k for k in api._TRANSLATED.keys() if k is f]) == 1


def test_a_plain_function_phylanx_cannot_translate_is_a_located_error():
    def uses_a_generator(x):
        return sum(v for v in x)  # noqa: C419 - a generator argument, refused by the frontend

    with pytest.raises(phylanx.PhylanxError) as info:
        grad(uses_a_generator)(X)
    assert "uses_a_generator" in str(info.value) or info.value.loc is not None


def aux_fn(x, w):
    y = np.tanh(x * w)
    return np.sum(y ** 2), (y, np.max(x))


def aux_fn_jax(x, w):
    y = jnp.tanh(x * w)
    return jnp.sum(y ** 2), (y, jnp.max(x))


def test_has_aux_equals_jax():
    (value, aux), g = value_and_grad(aux_fn, (0, 1), has_aux=True)(X, 0.3)
    (want_value, want_aux), want = jax.value_and_grad(aux_fn_jax, (0, 1), has_aux=True)(X, 0.3)
    close((value, list(aux), g), (want_value, list(want_aux), want))
    g, aux = grad(aux_fn, has_aux=True)(X, 0.3)
    want, want_aux = jax.grad(aux_fn_jax, has_aux=True)(X, 0.3)
    close((g, list(aux)), (want, list(want_aux)))


def test_has_aux_needs_a_pair():
    with pytest.raises(phylanx.PhylanxTypeError, match="has_aux=True needs .* pair"):
        grad(lambda x: np.sum(x), has_aux=True)(X)


@Phylanx
def layer(x, a):
    return np.tanh(a @ x) * x[:3]


def layer_jax(x, a):
    return jnp.tanh(a @ x) * x[:3]


@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_jacobian_equals_jax_jacrev(argnums):
    close(jacobian(layer, argnums)(X, A), jax.jacrev(layer_jax, argnums)(X, A))
    assert jacrev is jacobian


def test_jacobian_of_a_matrix_result_a_scalar_result_and_has_aux():
    def outer_fn(x):
        return np.outer(x, x) * 0.5, np.sum(x)

    got, aux = jacobian(outer_fn, has_aux=True)(X)
    want, want_aux = jax.jacrev(lambda x: (jnp.outer(x, x) * 0.5, jnp.sum(x)),
                                has_aux=True)(X)
    assert got.shape == (4, 4, 4)
    close((got, aux), (want, want_aux))
    close(jacobian(plain)(X, A, 0.7), jax.jacrev(plain_jax)(X, A, 0.7))


def test_jacobian_refuses_a_non_float_result():
    with pytest.raises(phylanx.PhylanxTypeError, match="jacobian needs a function returning "
                                                       "a float array"):
        jacobian(lambda x: x > 0)(X)
