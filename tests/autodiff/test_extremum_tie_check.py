"""conv47: ``maximum``/``minimum`` of two operands look for ties as the operands' equality
(both then equal the result) and, with none, make only the wanted operands' hits; the
rule must give the bits of the tie-counting form it replaced (every operand's hits, an
int8 count, shares where it exceeds 1) on ties, NaNs, signed zeros, infinities,
broadcasting, Python numbers and integers, and a Conv1D loss through it JAX's gradients.
"""
from __future__ import annotations

import jax
import numpy as np
import pytest

import phylanx
from phylanx.autodiff.rule_helpers import arr_with, is_wanted, masked
from phylanx.autodiff.table import VJP
from phylanx.ops import conv1d


def _counted(ct, out, *operands, wanted=None):
    """The rule before conv47: every operand's hits, ties counted in int8."""
    result = np.asarray(out)
    hits = [arr_with(v, result) == result for v in operands]
    ties = hits[0].astype(np.int8)
    for hit in hits[1:]:
        ties += hit
    ct = np.asarray(ct)
    with np.errstate(divide="ignore", invalid="ignore"):
        shared = ct / ties if ties.max(initial=0) > 1 else ct
        return tuple(masked(hit, shared) if is_wanted(wanted, i) else None
                     for i, hit in enumerate(hits))


def _bits(a):
    return None if a is None else np.ascontiguousarray(a).view(np.uint8)


rng = np.random.default_rng(47)
_X = rng.normal(size=(3, 4, 5))
_SPECIALS = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1.5, -1.5, 0.1, 3.0, -2.0])


def _cases(dtype):
    x = _X.astype(dtype)
    tied = x.copy()
    tied[0, 0, :2] = 0.0                                  # ties with the constant 0
    special = np.resize(_SPECIALS, x.shape).astype(dtype)
    return [
        (x, 0.0), (0.0, x), (tied, 0.0), (tied, -0.0), (x, np.float32(0.1)),
        (special, 0.0), (special, 1.5), (special, np.nan), (x, x[:, :1, :]),   # broadcast
        (x, x[::-1]), (x, x.copy()), (x, np.arange(5)), (special, special[::-1]),
        (x, 2),                                            # a Python int
    ]


@pytest.mark.parametrize("name", ["maximum", "minimum"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cotangent", ["dense", "broadcast", "special"])
def test_two_operand_rule_gives_the_tie_counting_bits(name, dtype, cotangent):
    rule = VJP.get(name)
    for a, b in _cases(dtype):
        out = getattr(np, name)(a, b)
        ct = {"dense": rng.normal(size=out.shape),
              "broadcast": np.broadcast_to(rng.normal(size=out.shape[:-1] + (1,)), out.shape),
              "special": np.resize(_SPECIALS[::-1], out.shape)}[cotangent].astype(out.dtype)
        for wanted in ((True, False), (False, True), (True, True)):
            got = rule(ct, out, a, b, wanted=wanted)
            want = _counted(ct, out, a, b, wanted=wanted)
            for g, w in zip(got, want):
                assert (g is None) == (w is None)
                if g is not None:
                    assert g.dtype == w.dtype and g.shape == w.shape
                    assert np.array_equal(_bits(g), _bits(w)), (name, a, b, wanted)


jnp = jax.numpy
lax = jax.lax
jax.config.update("jax_enable_x64", True)      # as the other JAX comparisons here


@pytest.mark.parametrize("dtype,padding,stride,dilation,activation", [
    (np.float32, "valid", 1, 1, "relu"), (np.float64, "causal", 1, 1, "clamp"),
    (np.float64, "same", 2, 1, "relu"), (np.float32, "same", 1, 2, "clamp")])
def test_conv1d_relu_loss_gradients_match_jax(dtype, padding, stride, dilation, activation):
    """A Conv1D layer with a bias, ``maximum(., 0.0)`` (or ``minimum(., 1.0)``), mean
    pooling: every parameter's gradient against JAX (the rule's no-tie path; the
    pre-activations of a random draw never equal the constant)."""
    x = rng.normal(size=(3, 17, 4)).astype(dtype)
    w = (rng.normal(size=(3, 4, 6)) * 0.5).astype(dtype)
    b = rng.normal(size=6).astype(dtype)
    v = rng.normal(size=(6, 2)).astype(dtype)
    ours_act = (lambda h: np.maximum(h, 0.0)) if activation == "relu" else \
        (lambda h: np.minimum(h, 1.0))
    jax_act = (lambda h: jnp.maximum(h, 0.0)) if activation == "relu" else \
        (lambda h: jnp.minimum(h, 1.0))

    def ours(w, b, v):
        h = ours_act(conv1d(x, w, padding, stride, dilation) + b)
        return np.sum(np.mean(h, axis=1) @ v)

    pad = {"valid": "VALID", "same": "SAME", "causal": [((3 - 1) * dilation, 0)]}[padding]

    def theirs(w, b, v):
        h = lax.conv_general_dilated(x, w, (stride,), pad, rhs_dilation=(dilation,),
                                     dimension_numbers=("NWC", "WIO", "NWC"))
        return jnp.sum(jnp.mean(jax_act(h + b), axis=1) @ v)

    want = jax.jit(jax.grad(theirs, (0, 1, 2)))(w, b, v)
    got = phylanx.grad(ours, (0, 1, 2))(w, b, v)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    for g, e in zip(got, want):
        assert g.dtype == dtype
        np.testing.assert_allclose(g, np.asarray(e), rtol=tol, atol=tol)
