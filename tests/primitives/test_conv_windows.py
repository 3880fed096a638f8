"""The window-matrix form of the convolutions (``keras_support/conv_windows.py``): it
serves the convolutions with few input channels, and its forward and kernel cotangent
agree with an independent tap-loop reference (float64 sums) for every padding, stride
and dilation the primitives take, float32 kept float32.  (Against JAX: the registry-wide
VJP check, ``tests/autodiff/test_rules_jax.py``.)"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx.primitives.keras_support import conv_windows
from phylanx.primitives.keras_support._windows import pad_amounts
from phylanx.primitives.keras_support.adjoints import conv_cotangents
from phylanx.primitives.keras_support.conv import conv1d, conv2d


def _tap_reference(x, kernel, ct, padding, strides, dilations):
    """(output, kernel cotangent) in float64, one strided slice per kernel tap."""
    nsp = kernel.ndim - 2
    x, kernel = np.asarray(x, np.float64), np.asarray(kernel, np.float64)
    pads = pad_amounts(x.shape[1:1 + nsp], kernel.shape[:nsp], strides, dilations, padding)
    xpad = np.pad(x, [(0, 0), *pads, (0, 0)])
    outs = [(n + b + a - (k - 1) * d - 1) // s + 1 for n, (b, a), k, s, d in
            zip(x.shape[1:1 + nsp], pads, kernel.shape[:nsp], strides, dilations)]
    out = np.zeros((x.shape[0], *outs, kernel.shape[-1]))
    grad_k = np.zeros(kernel.shape)
    for tap in np.ndindex(*kernel.shape[:nsp]):
        cells = xpad[(slice(None),) + tuple(slice(t * d, t * d + s * (n - 1) + 1, s) for
                                            t, s, d, n in zip(tap, strides, dilations, outs))]
        out += cells @ kernel[tap]
        if ct is not None:
            grad_k[tap] = np.tensordot(cells, np.asarray(ct, np.float64),
                                       axes=(list(range(nsp + 1)), list(range(nsp + 1))))
    return out, grad_k


def _close(got, want, dtype) -> None:
    assert got.dtype == dtype and got.shape == want.shape
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=0, atol=tol * max(np.abs(want).max(), 1.0))


def test_few_channels_take_the_window_form(monkeypatch) -> None:
    calls = []
    monkeypatch.setattr(conv_windows, "correlate",
                        lambda *a, real=conv_windows.correlate: calls.append(1) or real(*a))
    monkeypatch.setattr(conv_windows, "kernel_cotangent",
                        lambda *a, real=conv_windows.kernel_cotangent: calls.append(2) or
                        real(*a))
    x = np.ones((4, 40, 16), np.float32)
    kernel = np.ones((5, 16, 32), np.float32)
    y = conv1d(x, kernel)
    conv_cotangents(x, kernel, np.ones_like(y), need_x=False)
    assert calls == [1, 2]
    assert conv_windows.fits(x, kernel)
    # many channels: the row of a window would be too long to copy profitably
    assert not conv_windows.fits(np.ones((1, 9, 64)), np.ones((5, 64, 8)))
    assert not conv_windows.fits(x, np.ones((5, 16, 0), np.float32))


@settings(max_examples=30, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float64]),
       channels=st.integers(1, 9), outs=st.integers(1, 6), taps=st.integers(1, 5),
       length=st.integers(6, 20), batch=st.integers(1, 3),
       padding=st.sampled_from(["valid", "same", "causal"]),
       step=st.integers(1, 3), dilation=st.integers(1, 3), seed=st.integers(0, 99))
def test_conv1d_and_its_kernel_cotangent_match_the_tap_loop(
        dtype, channels, outs, taps, length, batch, padding, step, dilation, seed) -> None:
    if step > 1 and dilation > 1:
        dilation = 1                  # not both above 1 (Keras' rule, conv1d's check)
    if padding == "valid" and (taps - 1) * dilation + 1 > length:
        taps = 1
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, length, channels)).astype(dtype)
    kernel = rng.normal(size=(taps, channels, outs)).astype(dtype)
    assert conv_windows.fits(x, kernel)
    y = conv1d(x, kernel, padding, step, dilation)
    ct = rng.normal(size=y.shape).astype(dtype)
    want, want_k = _tap_reference(x, kernel, ct, padding, (step,), (dilation,))
    _close(y, want, dtype)
    grad_x, grad_k = conv_cotangents(x, kernel, ct, padding, step, dilation)
    _close(grad_k, want_k, dtype)
    assert grad_x.shape == x.shape and grad_x.dtype == dtype
    only_k = conv_cotangents(x, kernel, ct, padding, step, dilation, need_x=False)
    assert only_k[0] is None
    np.testing.assert_array_equal(only_k[1], grad_k)


@pytest.mark.parametrize("padding, strides, dilations",
                         [("valid", (1, 1), (1, 1)), ("same", (2, 1), (1, 1)),
                          ("same", (1, 1), (2, 1))])
def test_conv2d_with_few_channels(padding, strides, dilations) -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 9, 8, 3)).astype(np.float32)
    kernel = rng.normal(size=(3, 2, 3, 4)).astype(np.float32)
    assert conv_windows.fits(x, kernel)
    y = conv2d(x, kernel, padding, strides, dilations)
    ct = rng.normal(size=y.shape).astype(np.float32)
    want, want_k = _tap_reference(x, kernel, ct, padding, strides, dilations)
    _close(y, want, np.float32)
    _close(conv_cotangents(x, kernel, ct, padding, strides, dilations)[1], want_k,
           np.float32)


def test_mixed_dtypes_compute_in_the_result_dtype() -> None:
    rng = np.random.default_rng(6)
    x = rng.normal(size=(2, 12, 4)).astype(np.float32)
    kernel = rng.normal(size=(3, 4, 2))
    y = conv1d(x, kernel, "same")
    assert y.dtype == np.float64
    ct = rng.normal(size=y.shape).astype(np.float32)
    want, want_k = _tap_reference(x, kernel, ct, "same", (1,), (1,))
    _close(y, want, np.float64)
    _close(conv_cotangents(x, kernel, ct, "same")[1], want_k, np.float64)



@pytest.mark.parametrize("slice_bytes", [2000, 200])
def test_large_convolutions_copy_their_windows_in_slices(monkeypatch, slice_bytes) -> None:
    # a bound below the whole window matrix: slices of the batch (2000 bytes), of one
    # item's first output axis (200); the same results as the tap loop
    monkeypatch.setattr(conv_windows, "SLICE_BYTES", slice_bytes)
    copies = []
    real = conv_windows._matrix
    monkeypatch.setattr(conv_windows, "_matrix",
                        lambda *a: copies.append(1) or real(*a))
    rng = np.random.default_rng(8)
    for x, kernel, strides in ((rng.normal(size=(5, 41, 3)), rng.normal(size=(3, 3, 2)), (2,)),
                               (rng.normal(size=(3, 7, 6, 2)), rng.normal(size=(2, 3, 2, 4)),
                                (1, 2))):
        x, kernel = x.astype(np.float32), kernel.astype(np.float32)
        conv = conv1d if kernel.ndim == 3 else conv2d
        copies.clear()
        y = conv(x, kernel, "same", strides[0] if kernel.ndim == 3 else strides)
        assert len(copies) > 1
        ct = rng.normal(size=y.shape).astype(np.float32)
        want, want_k = _tap_reference(x, kernel, ct, "same", strides, (1,) * len(strides))
        _close(y, want, np.float32)
        _close(conv_cotangents(x, kernel, ct, "same", strides[0] if kernel.ndim == 3
                               else strides, need_x=False)[1], want_k, np.float32)


def test_no_copy_exceeds_the_slice_bound_when_one_output_row_does(monkeypatch) -> None:
    # a wide image: one output row of one item (39 cells x 32 bytes) already holds more
    # window matrix than SLICE_BYTES, so the rows themselves are cut into ranges of cells
    monkeypatch.setattr(conv_windows, "SLICE_BYTES", 200)
    sizes = []
    real = conv_windows._matrix
    monkeypatch.setattr(conv_windows, "_matrix",
                        lambda *a: (lambda m: sizes.append(m.nbytes) or m)(real(*a)))
    rng = np.random.default_rng(9)
    x = rng.normal(size=(2, 3, 40, 2)).astype(np.float32)
    kernel = rng.normal(size=(2, 2, 2, 3)).astype(np.float32)
    y = conv2d(x, kernel, "valid")
    ct = rng.normal(size=y.shape).astype(np.float32)
    grad_k = conv_cotangents(x, kernel, ct, "valid", need_x=False)[1]
    assert sizes and max(sizes) <= conv_windows.SLICE_BYTES
    want, want_k = _tap_reference(x, kernel, ct, "valid", (1, 1), (1, 1))
    _close(y, want, np.float32)
    _close(grad_k, want_k, np.float32)


def test_sliced_products_write_into_the_output_without_a_buffer_of_their_own(
        monkeypatch) -> None:
    # two slices of the batch: each slice's product is written into the output itself,
    # so the most memory held at once is the output and one window matrix, not also
    # a product buffer of half the output (which is then copied in)
    import tracemalloc
    monkeypatch.setattr(conv_windows, "SLICE_BYTES", 1000)
    rng = np.random.default_rng(10)
    x, kernel = rng.normal(size=(2, 100, 1)), rng.normal(size=(1, 1, 64))
    want = _tap_reference(x, kernel, np.zeros((2, 100, 64)), "valid", (1,), (1,))[0]
    tracemalloc.start()
    try:
        y = conv1d(x, kernel, "valid")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    _close(y, want, np.float64)
    assert peak < 1.25 * y.nbytes, (peak, y.nbytes)


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.bool_, np.float16, np.float32])
@pytest.mark.parametrize("fill", [0, 1.5, -np.inf, np.nan])
def test_padding_is_np_pads(dtype, fill):
    # rev24: conv44's ``_windows.padded`` (np.pad's replacement) filled with
    # ``np.full``, which casts unsafely: -inf or NaN into an int array (the max-pooling
    # adjoint pads with -inf) silently became 0 or INT_MIN where np.pad raised
    from phylanx.primitives.keras_support._windows import padded
    x = (np.arange(12).reshape(2, 3, 2) - 5).astype(dtype)
    pads = [(1, 2)]
    try:
        want = np.pad(x, [(0, 0), *pads, (0, 0)], constant_values=fill)
    except (OverflowError, ValueError) as e:
        with pytest.raises(type(e)):
            padded(x, pads, fill)
        return
    got = padded(x, pads, fill)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("blocks", [1, 4])
def test_an_empty_batch_convolves_to_an_empty_output_and_a_zero_kernel_cotangent(
        monkeypatch, blocks) -> None:
    """A rank's batch tile may be empty (model parallel, uneven data): NumPy's answer for
    no rows, whatever the block count (``_ranges`` of 0 was ``range(0, 0, 0)``)."""
    monkeypatch.setattr(conv_windows, "_block_count", lambda *_: blocks)
    rng = np.random.default_rng(5)
    x = np.zeros((0, 12, 3), np.float32)
    kernel = rng.normal(size=(4, 3, 5)).astype(np.float32)
    y = conv1d(x, kernel, "valid", 1, 1)
    assert y.shape == (0, 9, 5) and y.dtype == np.float32
    grad_x, grad_k = conv_cotangents(x, kernel, np.zeros(y.shape, np.float32), "valid", 1, 1)
    assert grad_x.shape == x.shape
    np.testing.assert_array_equal(grad_k, np.zeros(kernel.shape, np.float32))
