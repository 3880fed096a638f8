"""Nested derivatives through lists (ad45): the inner reverse pass's additions of list
cotangents, its fitting of a list's item cotangents and the list-building rules are
recorded on the outer tape, item by item.

Until ad45 a list used twice added its two list cotangents outside the outer tape (the
Hessian of ``sum(a * b * a)`` with ``a``, ``b`` both joined from one list was a third
of JAX's, silently), and a scalar item's cast, or a row taken from an array cotangent
for a list operand, was not recorded (a zero second derivative).  JAX is the oracle.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import phylanx

jax.config.update("jax_enable_x64", True)

X, Y = np.array([0.5, 1.5]), np.array([-1.0])


def test_a_list_used_twice_adds_its_cotangents_on_the_outer_tape():
    def joined_twice(x, y):
        t = [x, y]
        a = np.concatenate(t)
        b = np.concatenate(t)
        return np.sum(a * b * a)

    def joined_twice_jax(x, y):
        a = jnp.concatenate([x, y])
        return jnp.sum(a * a * a)

    np.testing.assert_allclose(phylanx.hessian(joined_twice)(X, Y),
                               jax.hessian(joined_twice_jax)(X, Y), rtol=1e-12)


def test_scalars_stacked_and_a_list_of_floats_keep_their_second_derivative():
    def scalars(a, b):
        return np.sum(np.vstack([a, b]) ** 3)

    def floats(x):
        items = x.tolist()                   # Python floats, items of a list result
        first, second = items[0], items[1]
        return first * first * first + second ** 3 + np.sum(np.asarray(items) * x)

    def floats_jax(x):
        return jnp.sum(x ** 3) + jnp.sum(x * x)

    a, b = 0.5, 1.5
    got = phylanx.grad(phylanx.grad(scalars, 0), 0)(a, b)
    np.testing.assert_allclose(got, 6 * a, rtol=1e-12)
    np.testing.assert_allclose(phylanx.hessian(floats)(X), jax.hessian(floats_jax)(X),
                               rtol=1e-12)
