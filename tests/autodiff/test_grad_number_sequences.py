"""A list or tuple of numbers is differentiated as what it is, as JAX does: the function
receives a list (tuple) of numbers and the gradient is a list (tuple).  Before, it was
made one array: ``t + (0.0,)`` broadcast where the function, called, concatenates, so
``value_and_grad`` returned another value than the function and other gradients."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import phylanx

jax.config.update("jax_enable_x64", True)


def padded_mean(t):
    return np.mean(np.array(t + (0.0,))) * t[0]


def padded_mean_jax(t):
    return jnp.mean(jnp.array(t + (0.0,))) * t[0]


def appended_sum(t):
    return np.sum(np.array(t + [t[0] * t[1]]) ** 2)


def appended_sum_jax(t):
    return jnp.sum(jnp.array(t + [t[0] * t[1]]) ** 2)


@pytest.mark.parametrize(("fn", "peer", "arg"), [
    (padded_mean, padded_mean_jax, (2.0, 4.0)),
    (appended_sum, appended_sum_jax, [1.5, -0.5]),
], ids=["tuple", "list"])
def test_a_sequence_of_numbers_is_differentiated_as_that_sequence(fn, peer, arg):
    value, gradient = phylanx.value_and_grad(fn)(arg)
    want_value, want_gradient = jax.value_and_grad(peer)(arg)
    assert np.isclose(value, fn(arg)) and np.isclose(value, want_value)
    assert type(gradient) is type(arg) and len(gradient) == len(arg)
    np.testing.assert_allclose(np.array(gradient, float), np.array(want_gradient, float),
                               rtol=1e-12)
