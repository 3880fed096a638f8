"""Large einsums, and their VJP rule's einsums, are planned (``optimize=True``: BLAS
products) rather than summed in NumPy's own loop (conv44: a pointwise convolution
spelled ``einsum("blc,ck->blk", h, w)`` took 5-10x its product, forward and backward);
small ones are not (planning costs more than it saves).  Values agree with NumPy's
einsum, gradients with JAX's, float32 staying float32.

Guard (it passed before conv44): ``test_subscripts_that_do_not_fit_keep_numpys_error``.
"""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import Phylanx
from phylanx.errors import PhylanxValueError
from phylanx.primitives.matrixops import numpy_products

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)      # as the other JAX comparisons here

RNG = np.random.default_rng(44)


def _spy(monkeypatch) -> list:
    """The ``optimize`` argument of every ``np.einsum`` call."""
    seen = []
    real = np.einsum

    def einsum(*args, **kwargs):
        seen.append(bool(kwargs.get("optimize", False)))
        return real(*args, **kwargs)
    monkeypatch.setattr(np, "einsum", einsum)
    return seen


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_large_contraction_is_planned_and_a_small_one_is_not(monkeypatch, dtype):
    big = [RNG.standard_normal(s).astype(dtype) for s in [(8, 40, 32), (32, 10)]]
    small = [RNG.standard_normal(s).astype(dtype) for s in [(2, 3, 4), (4, 5)]]
    seen = _spy(monkeypatch)
    got_big = numpy_products.einsum("blc,ck->blk", *big)
    got_small = numpy_products.einsum("blc,ck->blk", *small)
    assert seen == [True, False]
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for got, operands in ((got_big, big), (got_small, small)):
        assert got.dtype == dtype
        np.testing.assert_allclose(got, np.matmul(*operands), rtol=tol, atol=tol)


def test_the_work_counts_every_label_once_and_the_broadcast_axes():
    # "...ij,...jk": the broadcast extent (4 x 3 against 3) counts once, at its largest
    shapes = [(4, 3, 5, 6), (3, 6, 7)]
    work = numpy_products.einsum_work("...ij,...jk->...ik", shapes)
    assert work == np.broadcast_shapes((4, 3), (3,))[0] * 3 * 5 * 6 * 7
    assert numpy_products.einsum_work("ij,jk", [(5, 6), (6, 7)]) == 5 * 6 * 7
    assert numpy_products.einsum_work("ij,jk", [(5, 6)]) == 0          # not the operands


def test_subscripts_that_do_not_fit_keep_numpys_error():
    with pytest.raises(PhylanxValueError):
        numpy_products.einsum("ijk,kl->il", np.ones((40, 40)), np.ones((40, 40)))


@Phylanx
def pointwise_loss(h, w, b):
    y = np.einsum("blc,ck->blk", np.tanh(h), w) + b
    return np.mean(y ** 2)


def test_the_rules_einsums_are_planned_and_agree_with_jax(monkeypatch):
    h, w, b = (RNG.standard_normal(s) for s in [(6, 40, 32), (32, 10), (10,)])

    def reference(h, w, b):
        return jnp.mean((jnp.einsum("blc,ck->blk", jnp.tanh(h), w) + b) ** 2)
    want = jax.jit(jax.grad(reference, (0, 1)))(*map(jnp.asarray, (h, w, b)))
    fn = phylanx.grad(pointwise_loss, (0, 1))
    fn(h, w, b)                       # compiled before the spy watches
    seen = _spy(monkeypatch)
    for dtype, tol in ((np.float32, 2e-5), (np.float64, 1e-11)):
        seen.clear()
        grads = fn(*(a.astype(dtype) for a in (h, w, b)))
        assert seen == [True, True, True]      # the forward and both cotangents
        for g, ref in zip(grads, want):
            assert g.dtype == dtype
            np.testing.assert_allclose(g, np.asarray(ref), rtol=tol, atol=tol)


# rev24: a planned einsum contracts pairs of operands in their own dtype, where NumPy's
# einsum computes everything in the operands' common dtype: two int8 operands were
# multiplied in int8 (wrapping: zeros for 100 * 100 * 256) before meeting the float64 one,
# two float16 ones overflowed to inf.  The rule's einsums are planned too (guard below:
# NumPy's planner starts from the cotangent there in every case tried, so it passes)
MIXED = [(np.int8, 100, np.float64, 0.5), (np.uint8, 200, np.float32, 0.25),
         (np.float16, 16, np.float32, 1e-3)]


@pytest.mark.parametrize("narrow, fill, wide, scale", MIXED)
def test_mixed_dtypes_compute_in_the_common_dtype(narrow, fill, wide, scale):
    a, b = np.full((1, 256), fill, narrow), np.full((256, 256), fill, narrow)
    c = np.full((256, 64), scale, wide)          # 4M multiply-adds: planned
    got = numpy_products.einsum("ij,jk,kl->il", a, b, c)
    want = np.einsum("ij,jk,kl->il", a, b, c)
    assert got.dtype == want.dtype and np.isfinite(want).all()
    # NumPy's own loop sums 65536 float32 products in float32 (about 1e-3 off)
    np.testing.assert_allclose(got, want, rtol=1e-12 if wide == np.float64 else 2e-3)


@Phylanx
def mixed_loss(a, b, c):
    return np.sum(np.einsum("ij,jk,kl->il", a, b, c))


def test_a_mixed_dtype_gradient_computes_in_the_common_dtype():
    # guard (passes before the fix): the first operand's cotangent "il,jk,kl->ij" has
    # two int8 factors, which must not be multiplied in int8
    a = RNG.standard_normal((256, 2))
    b, c = np.full((2, 4), 100, np.int8), np.full((4, 256), 100, np.int8)
    got = phylanx.grad(mixed_loss, 0)(a, b, c)
    want = np.broadcast_to((b.astype(np.float64) @ c).sum(axis=1), a.shape)
    np.testing.assert_allclose(got, want, rtol=1e-12)
