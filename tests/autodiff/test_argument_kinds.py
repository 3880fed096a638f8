"""What ``grad`` differentiates: float arguments and float results; the rest is a located
error at the caller's line, as JAX refuses them, never numbers that look right (user43).

Before: a complex argument got a gradient that followed neither JAX's convention nor
PyTorch's consistently (``|z|**2`` gave 2z, JAX 2 conj(z)); an integer result (``argmax``)
got zeros where JAX raises; a masked array was differentiated without its mask; and the
refusals of a bool argument or a bad ``argnums`` said nothing of where they came from.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxTypeError, PhylanxValueError


def _located_here(error) -> None:
    loc = error.loc
    assert loc is not None and loc.file == __file__ and loc.line > 0, str(error)


def test_a_complex_argument_is_refused():
    z = np.array([1 + 2j, 3 - 1j])
    with pytest.raises(PhylanxTypeError, match="complex128 array") as caught:
        phylanx.grad(lambda w: np.sum(np.abs(w) ** 2))(z)
    _located_here(caught.value)
    with pytest.raises(PhylanxTypeError, match="complex"):
        phylanx.grad(lambda w: np.real(w * w))(np.complex128(1 + 1j))


@pytest.mark.parametrize("function, jax_function", [
    (lambda w: np.argmax(w), lambda w: jnp.argmax(w)),
    (lambda w: np.sum(w > 0), lambda w: jnp.sum(w > 0)),
    (lambda w: np.sum(w * 1j), lambda w: jnp.sum(w * 1j)),
], ids=["argmax", "count", "complex"])
def test_a_result_that_is_not_a_real_float_is_refused_as_jax_does(function, jax_function):
    w = np.array([0.5, -1.0, 2.0])
    with pytest.raises(TypeError):
        jax.grad(jax_function)(jnp.asarray(w))
    with pytest.raises(PhylanxTypeError, match="returning a (real )?float scalar") as caught:
        phylanx.grad(function)(w)
    _located_here(caught.value)


def test_a_masked_array_argument_is_refused():
    masked = np.ma.array([1.0, 2.0, 100.0], mask=[0, 0, 1])
    with pytest.raises(PhylanxTypeError, match="MaskedArray") as caught:
        phylanx.grad(lambda w: np.sum(w * w))(masked)
    _located_here(caught.value)


def test_refused_arguments_and_argnums_point_at_the_callers_line():
    w = np.ones(3)
    with pytest.raises(PhylanxTypeError, match="bool array") as caught:
        phylanx.grad(lambda w: np.sum(w))(w > 0)
    _located_here(caught.value)
    with pytest.raises(PhylanxValueError, match="out of range") as caught:
        phylanx.grad(lambda w: np.sum(w), argnums=3)(w)
    _located_here(caught.value)
    with pytest.raises(PhylanxTypeError, match="argnums must be") as caught:
        phylanx.grad(lambda w: np.sum(w), argnums="w")
    _located_here(caught.value)
    with pytest.raises(PhylanxValueError, match="returning a scalar") as caught:
        phylanx.grad(lambda w: w * 2.0)(w)
    _located_here(caught.value)


def test_float_arguments_are_differentiated_in_their_float_type():
    """Guard: the kinds the docs promise (float32 stays float32, a Python float float64)."""
    for w in (np.array([0.5, -1.0], np.float32), np.array([1.0, 2.0]), 1.5):
        got = phylanx.grad(lambda w: np.sum(np.sin(w) * w))(w)
        x = np.asarray(w, np.float64)
        np.testing.assert_allclose(got, np.sin(x) + x * np.cos(x), rtol=1e-6)
        assert np.asarray(got).dtype == (np.float32 if np.asarray(w).dtype == np.float32
                                         else np.float64)


_SQUARES = lambda x: np.sum(x * x)      # noqa: E731


@pytest.mark.parametrize("argument", [
    np.arange(5, dtype=np.int8) * 10, np.array([1, 2]), 3, np.int32(3), True,
    np.array([True, False]), [np.ones(2), np.array([1, 2])], {"w": np.arange(3)},
], ids=["int8", "int64", "int", "np-int", "bool", "bool-array", "in-a-list", "in-a-dict"])
@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "jacobian", "hessian",
                                       "has_aux"])
def test_an_integer_or_boolean_differentiated_argument_is_refused_as_jax_does(
        argument, transform):
    """adb50: an integer argument was differentiated as a float64 copy, so an int8
    ``x * x`` (which wraps) gave value_and_grad's value 3000.0 where the call gives 36:
    now a located error, as JAX's ``grad(f)(3)``."""
    def f(x):
        leaves = x if isinstance(x, list) else list(x.values()) if isinstance(x, dict) \
            else [x]
        return sum(_SQUARES(leaf) for leaf in leaves)

    if not isinstance(argument, (list, dict)):
        with pytest.raises(TypeError):
            jax.grad(lambda x: jnp.sum(x * x))(argument)
        f = _SQUARES
    call = {"grad": lambda: phylanx.grad(f)(argument),
            "value_and_grad": lambda: phylanx.value_and_grad(f)(argument),
            "jacobian": lambda: phylanx.jacobian(f)(argument),
            "hessian": lambda: phylanx.hessian(f)(argument),
            "has_aux": lambda: phylanx.value_and_grad(lambda x: (f(x), 1.0),
                                                      has_aux=True)(argument)}[transform]
    with pytest.raises(PhylanxTypeError, match="pass a float") as caught:
        call()
    _located_here(caught.value)


def test_integer_arguments_not_differentiated_are_passed_unchanged():
    """Integers outside argnums are data (indices, counts): the function sees them as
    they are, and the value is the call's."""
    x = np.arange(4.0)
    value, (gx,) = phylanx.value_and_grad(lambda x, n, t: np.sum(x[:n] * x[:n]) +
                                          np.sum(t * t), argnums=(0,))(
        x, 2, np.arange(3, dtype=np.int8) * 50)
    assert value == 1.0 + np.sum((np.arange(3, dtype=np.int8) * 50) ** 2)
    np.testing.assert_array_equal(gx, [0.0, 2.0, 0.0, 0.0])
