"""Global max/min pooling's rule on a Conv1D loss's hot path (cg43): ``amax``/``amin``
share a tie's cotangent as JAX does (``ct / count``, one rounding; the float shares
``ct * (1 / count)`` were rounded twice before), and a fresh Conv1D loss (dilated,
strided, padded, ``minimum``/``amin``, float32 and float64) differentiates as JAX.

Guards (they passed before cg43, kept because the no-tie shortcut could break them):
``test_extreme_rule_without_a_hit_gives_zeros`` and
``test_a_fresh_conv1d_loss_equals_jax``.
"""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import Phylanx
from phylanx.autodiff.table import VJP
from phylanx.ops import conv1d

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)      # as the other JAX comparisons here

RNG = np.random.default_rng(43)


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_extreme_rule_shares_ties_as_jax_bit_for_bit(name, dtype):
    # rows of three- and five-way ties (the shares 1/3, 1/5 are not exact) and rows
    # without ties; cotangents drawn at random
    rows = np.array([[2.0, 2.0, 2.0, -1.0, 0.5], [-3.0] * 5, [1.0, 4.0, 0.0, 2.0, 3.0]])
    x = np.tile(rows if name == "amax" else -rows, (40, 1)).astype(dtype)
    ct = RNG.standard_normal(x.shape[0]).astype(dtype)
    reduce = jnp.max if name == "amax" else jnp.min
    _, vjp = jax.vjp(lambda v: reduce(v, axis=1), jnp.asarray(x))
    want = np.asarray(vjp(jnp.asarray(ct))[0])
    out = (np.max if name == "amax" else np.min)(x, axis=1)
    (got,) = VJP.get(name)(ct, out, x, 1)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_extreme_rule_without_a_hit_gives_zeros(dtype):
    # a NaN row has no element equal to its maximum: no cotangent there, the others'
    # as usual (the no-tie shortcut must not be taken)
    x = np.array([[1.0, np.nan, 2.0], [3.0, 5.0, 5.0]], dtype)
    out = np.max(x, axis=1)
    (got,) = VJP.get("amax")(np.array([1.0, 2.0], dtype), out, x, 1)
    np.testing.assert_array_equal(got, np.array([[0, 0, 0], [0, 1, 1]], dtype))


@Phylanx
def fresh_conv_loss(w1, b1, w2, x, target):
    h = np.minimum(conv1d(x, w1, "same", 1, 2) - b1, 1.5)
    g = np.tanh(conv1d(h, w2, "causal", 3))
    return np.sum((np.min(g, axis=1) - target) ** 2) / x.shape[0]


def fresh_conv_loss_jax(w1, b1, w2, x, target):
    def conv(v, w, padding, stride=1, dilation=1):
        return jax.lax.conv_general_dilated(v, w, (stride,), padding,
                                            rhs_dilation=(dilation,),
                                            dimension_numbers=("NWC", "WIO", "NWC"))
    h = jnp.minimum(conv(x, w1, "SAME", dilation=2) - b1, 1.5)
    g = jnp.tanh(conv(h, w2, [(w2.shape[0] - 1, 0)], 3))
    return jnp.sum((jnp.min(g, axis=1) - target) ** 2) / x.shape[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_fresh_conv1d_loss_equals_jax(dtype):
    arrays = [RNG.standard_normal(s) * 0.3 for s in
              [(3, 4, 6), (6,), (4, 6, 5), (2, 17, 4), (2, 5)]]
    arrays = [a.astype(dtype) for a in arrays]
    value, grads = phylanx.value_and_grad(fresh_conv_loss, (0, 1, 2))(*arrays)
    # jitted: op by op, JAX's dilated convolutions took 4x longer here
    want_value, want = jax.jit(jax.value_and_grad(fresh_conv_loss_jax, (0, 1, 2)))(
        *map(jnp.asarray, arrays))
    tol = 2e-5 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(value, want_value, rtol=tol)
    for g, w in zip(grads, want):
        assert g.dtype == dtype
        np.testing.assert_allclose(g, np.asarray(w), rtol=tol, atol=tol)
