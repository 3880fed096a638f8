"""Convolutions large enough to run as row blocks on the task pool (conv_gemm.py +
blas_blocks.py): forward and VJP against NumPy window-view einsums, float32 and float64."""
from __future__ import annotations

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

from phylanx.autodiff import VJP
from phylanx.primitives import blas_blocks
from phylanx.primitives.keras_support.conv import conv1d, conv2d

RNG = np.random.default_rng(21)


def _windows(x, sizes, dilations):
    spans = [(k - 1) * d + 1 for k, d in zip(sizes, dilations)]
    view = sliding_window_view(x, spans, axis=tuple(range(1, 1 + len(sizes))))
    return view[(Ellipsis,) + tuple(slice(None, None, d) for d in dilations)]


def _reference(x, kernel, ct, dilations):
    """Output, d/dx and d/dkernel of the valid stride-1 correlation, by einsum (float64)."""
    x, kernel, ct = (np.asarray(v, np.float64) for v in (x, kernel, ct))
    if kernel.ndim == 3:
        win = _windows(x, kernel.shape[:1], dilations)                  # (B, L', C, k)
        out = np.einsum("blck,kco->blo", win, kernel)
        grad_k = np.einsum("blck,blo->kco", win, ct)
        grad_x = np.zeros_like(x)
        for t in range(kernel.shape[0]):
            off = t * dilations[0]
            grad_x[:, off:off + ct.shape[1]] += ct @ kernel[t].T
    else:
        win = _windows(x, kernel.shape[:2], dilations)                  # (B, H', W', C, kh, kw)
        out = np.einsum("bhwcij,ijco->bhwo", win, kernel)
        grad_k = np.einsum("bhwcij,bhwo->ijco", win, ct)
        grad_x = np.zeros_like(x)
        for i in range(kernel.shape[0]):
            for j in range(kernel.shape[1]):
                r, c = i * dilations[0], j * dilations[1]
                grad_x[:, r:r + ct.shape[1], c:c + ct.shape[2]] += ct @ kernel[i, j].T
    return out, grad_x, grad_k


CASES = [((8, 600, 16), (5, 16, 24), (1,)), ((6, 900, 12), (4, 12, 20), (3,)),
         ((4, 40, 30, 10), (3, 2, 10, 16), (1, 2))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("xshape", "kshape", "dilations"), CASES)
def test_blocked_convolution_and_vjp_match_numpy(dtype, xshape, kshape, dilations):
    x = RNG.normal(size=xshape).astype(dtype)
    kernel = RNG.normal(size=kshape).astype(dtype)
    conv = conv1d if kernel.ndim == 3 else conv2d
    out = conv(x, kernel, "valid", 1, dilations[0]) if kernel.ndim == 3 else \
        conv(x, kernel, "valid", [1, 1], list(dilations))
    ct = RNG.normal(size=out.shape).astype(dtype)
    flops = 2.0 * out[..., 0].size * kshape[-2] * kshape[-1] * np.prod(kshape[:-2])
    assert flops >= blas_blocks.MIN_FLOPS       # large enough for blocks (2+ pool threads)
    ref_out, ref_gx, ref_gk = _reference(x, kernel, ct, dilations)
    name = "conv1d" if kernel.ndim == 3 else "conv2d"
    dil = dilations[0] if kernel.ndim == 3 else list(dilations)
    grad_x, grad_k = VJP.get(name)(ct, out, x, kernel, "valid", 1, dil)
    tol = 1e-4 if dtype == np.float32 else 1e-11
    for got, ref in ((out, ref_out), (grad_x, ref_gx), (grad_k, ref_gk)):
        assert got.dtype == dtype and got.shape == ref.shape
        np.testing.assert_allclose(got, ref, atol=tol * np.abs(ref).max())


@pytest.mark.parametrize(("need_x", "need_k"), [(True, False), (False, True)])
def test_one_cotangent_alone_matches_numpy(need_x, need_k):
    # the one pass over row blocks computes what is asked and leaves out the other
    from phylanx.primitives.keras_support.conv_gemm import correlate_vjp
    xshape, kshape, dilations = CASES[1]
    x, kernel = RNG.normal(size=xshape), RNG.normal(size=kshape)
    ct = RNG.normal(size=(xshape[0], xshape[1] - (kshape[0] - 1) * dilations[0], kshape[-1]))
    _, ref_gx, ref_gk = _reference(x, kernel, ct, dilations)
    grad_x, grad_k = correlate_vjp(x, kernel, ct, dilations, need_x, need_k)
    assert (grad_x is None) != need_x and (grad_k is None) != need_k
    got, ref = (grad_x, ref_gx) if need_x else (grad_k, ref_gk)
    np.testing.assert_allclose(got, ref, atol=1e-11 * np.abs(ref).max())


def test_placed_rows_are_rows_of_the_placed_cotangent():
    # a block places the cotangent rows it reads itself (1-d): any row range, across
    # items, inside the zero rows, at the ends
    from phylanx.primitives.keras_support.conv_gemm import _placed, _placed_rows
    ct = RNG.normal(size=(3, 7, 2)).astype(np.float32)
    whole = _placed(ct, (3, 10, 5), np.float64)
    assert whole.dtype == np.float64 and whole.shape == (30, 2)
    for r0 in range(30):
        for r1 in range(r0 + 1, 31):
            np.testing.assert_array_equal(_placed_rows(ct, 10, r0, r1, np.float64),
                                          whole[r0:r1])
