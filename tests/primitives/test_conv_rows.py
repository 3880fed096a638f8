"""The 1-d convolutions' window matrix read in place (``keras_support/conv_rows.py``,
conv50): its forward and kernel cotangent equal an independent tap-loop reference
(float64 sums) and the other forms (the primitive with the setting ``conv_rows`` off),
for every padding and stride, odd lengths (the stride not dividing them), a kernel as
long as the padded input, float32 kept float32 and mixed dtypes; the primitive takes it
for windows longer than the copied form's; dilation goes to the other forms.  Gradients
against JAX: ``tests/autodiff/test_kept_windows.py``."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx import config
from phylanx.primitives.keras_support import conv_rows
from phylanx.primitives.keras_support._windows import pad_amounts
from phylanx.primitives.keras_support.adjoints import conv_cotangents
from phylanx.primitives.keras_support.conv import conv1d


@pytest.fixture(autouse=True)
def one_blas_thread(monkeypatch):
    """The form serves only while BLAS runs one thread (``conv_rows.one_blas_thread``):
    taken as so here, whatever this process's BLAS does."""
    monkeypatch.setattr(conv_rows, "one_blas_thread", lambda: True)


def _set_rows(monkeypatch, on: bool) -> None:
    monkeypatch.setattr(config, "_overrides", {**config._overrides, "conv_rows": on})
    monkeypatch.setattr(config, "_cache", {})


def _tap_reference(x, kernel, ct, padding, stride):
    """(output, kernel cotangent) in float64, one strided slice per kernel tap."""
    x, kernel = np.asarray(x, np.float64), np.asarray(kernel, np.float64)
    (before, after), = pad_amounts(x.shape[1:2], kernel.shape[:1], (stride,), (1,), padding)
    xpad = np.pad(x, [(0, 0), (before, after), (0, 0)])
    outs = (xpad.shape[1] - kernel.shape[0]) // stride + 1
    out = np.zeros((x.shape[0], outs, kernel.shape[-1]))
    grad_k = np.zeros(kernel.shape)
    for tap in range(kernel.shape[0]):
        cells = xpad[:, tap:tap + stride * (outs - 1) + 1:stride]
        out += cells @ kernel[tap]
        grad_k[tap] = np.tensordot(cells, np.asarray(ct, np.float64), axes=([0, 1], [0, 1]))
    return out, grad_k


@settings(max_examples=60, deadline=None)
@given(batch=st.integers(1, 4), length=st.integers(1, 13), channels=st.sampled_from([1, 3, 16]),
       outs=st.integers(1, 5), size=st.integers(1, 7), stride=st.integers(1, 3),
       padding=st.sampled_from(["valid", "same", "causal"]),
       dtypes=st.sampled_from([("float32", "float32"), ("float64", "float64"),
                               ("float32", "float64")]),
       seed=st.integers(0, 2 ** 16))
def test_in_place_windows_equal_the_taps_and_the_other_forms(
        batch, length, channels, outs, size, stride, padding, dtypes, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, length, channels)).astype(dtypes[0])
    kernel = rng.standard_normal((size, channels, outs)).astype(dtypes[1])
    pads = pad_amounts((length,), (size,), (stride,), (1,), padding)
    if length + sum(pads[0]) < size:
        return                          # no output: the primitive's own error
    dtype = np.result_type(x, kernel)
    assert conv_rows.fits(x, kernel, (stride,), (1,), pads)
    got = conv_rows.correlate(x, kernel, (stride,), pads)
    ct = rng.standard_normal(got.shape).astype(dtype)
    got_k = conv_rows.kernel_cotangent(x, kernel.shape, ct, (stride,), pads, dtype)
    want, want_k = _tap_reference(x, kernel, ct, padding, stride)
    config.set("conv_rows", False)
    try:
        other = conv1d(x, kernel, padding, stride)
        _, other_k = conv_cotangents(x, kernel, ct, padding, stride, need_x=False)
    finally:
        config.reset("conv_rows")
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for a, b in ((got, want), (got_k, want_k), (got, other), (got_k, other_k)):
        assert a.dtype == dtype and a.shape == b.shape and a.flags.c_contiguous
        np.testing.assert_allclose(a, b, rtol=0, atol=tol * max(np.abs(b).max(), 1.0))


def test_what_the_form_serves(monkeypatch):
    x, kernel = np.ones((2, 9, 4), np.float32), np.ones((3, 4, 2), np.float32)
    assert conv_rows.fits(x, kernel, (2,), (1,), [(1, 1)])
    assert not conv_rows.fits(x, kernel, (1,), (2,), [(0, 0)])           # dilated
    assert not conv_rows.fits(x, np.ones((3, 3, 4, 2)), (1, 1), (1, 1), [(0, 0)] * 2)
    assert not conv_rows.fits(x.astype(np.float16), kernel.astype(np.float16), (1,), (1,),
                              [(0, 0)])
    assert not conv_rows.fits(x[:0], kernel, (1,), (1,), [(0, 0)])       # empty batch
    assert not conv_rows.fits(np.ones((2, 9, 128)), np.ones((3, 128, 2)), (1,), (1,),
                              [(0, 0)])                                  # many channels
    assert not conv_rows.fits(x, np.ones((3, 4, 0), np.float32), (1,), (1,), [(0, 0)])
    monkeypatch.setattr(conv_rows, "one_blas_thread", lambda: False)
    assert not conv_rows.fits(x, kernel, (1,), (1,), [(0, 0)])          # threaded BLAS
    monkeypatch.setattr(conv_rows, "one_blas_thread", lambda: True)
    _set_rows(monkeypatch, False)
    assert not conv_rows.fits(x, kernel, (1,), (1,), [(0, 0)])


@pytest.mark.parametrize("padding", ["valid", "same"])
def test_the_forward_reads_the_input_without_a_window_copy(monkeypatch, padding):
    # the products' left operands are views of the (padded) input, not copies
    x = np.random.default_rng(5).standard_normal((3, 20, 16)).astype(np.float32)
    kernel = np.ones((5, 16, 8), np.float32)
    seen = []
    real = np.matmul

    def spy(a, b, **kw):
        seen.append(not a.flags.owndata and not a.flags.writeable)   # conv_rows' views
        return real(a, b, **kw)
    monkeypatch.setattr(conv_rows.np, "matmul", spy)
    want = _tap_reference(x, kernel, np.zeros((3, 20 if padding == "same" else 16, 8)),
                          padding, 1)[0]
    got = conv_rows.correlate(x, kernel, (1,), pad_amounts((20,), (5,), (1,), (1,),
                                                           padding))
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert seen and all(seen) and len(seen) == 5


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_primitive_takes_it_past_the_copied_form(monkeypatch, dtype):
    # 16 channels, kernel 7: 448 (float32) and 896 (float64) bytes a window, beyond
    # conv_windows.ROW_BYTES; the forward and the kernel's cotangent both come here
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 21, 16)).astype(dtype)
    kernel = rng.standard_normal((7, 16, 4)).astype(dtype)
    served = []
    for name in ("correlate", "kernel_cotangent"):
        real = getattr(conv_rows, name)
        monkeypatch.setattr(conv_rows, name,
                            lambda *a, real=real, name=name: served.append(name) or real(*a))
    got = conv1d(x, kernel, "same", 2)
    ct = rng.standard_normal(got.shape).astype(dtype)
    _, got_k = conv_cotangents(x, kernel, ct, "same", 2, need_x=False)
    assert served == ["correlate", "kernel_cotangent"]
    want, want_k = _tap_reference(x, kernel, ct, "same", 2)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for a, b in ((got, want), (got_k, want_k)):
        assert a.dtype == dtype
        np.testing.assert_allclose(a, b, rtol=0, atol=tol * np.abs(b).max())
