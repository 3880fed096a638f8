"""``maximum``/``minimum`` against a Python number: the rule compares in the dtype the
forward computed in, so a tie with a constant that float32 rounds (0.1) shares the
cotangent as JAX does (until bwd30 the constant was compared in float64, never tied,
and the array operand got the whole cotangent).  The float64 cases are guards (the
constant is exact there, they passed before)."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)      # as the other JAX comparisons here


@pytest.mark.parametrize("name", ["maximum", "minimum"])
@pytest.mark.parametrize("constant", [0.1, -2.7])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ties_with_a_python_number_share_the_cotangent_as_jax(name, constant, dtype):
    x = np.array([constant, -1.0, 2.0, constant, 0.5], dtype)   # two exact ties
    ours = getattr(np, name)
    theirs = getattr(jnp, name)
    got = phylanx.grad(lambda x: np.sum(ours(x, constant) * x))(x)
    want = np.asarray(jax.grad(lambda x: jnp.sum(theirs(x, constant) * x))(jnp.asarray(x)))
    assert want.dtype == dtype                 # JAX's constant is weak too
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)
