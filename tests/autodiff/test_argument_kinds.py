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


def test_float_and_integer_arguments_are_still_differentiated():
    """Guard: the kinds the docs promise (float32 stays float32, integers as float64)."""
    for w in (np.array([0.5, -1.0], np.float32), np.array([1, 2]), 1.5):
        got = phylanx.grad(lambda w: np.sum(np.sin(w) * w))(w)
        x = np.asarray(w, np.float64)
        np.testing.assert_allclose(got, np.sin(x) + x * np.cos(x), rtol=1e-6)
        assert np.asarray(got).dtype == (np.float32 if np.asarray(w).dtype == np.float32
                                         else np.float64)
