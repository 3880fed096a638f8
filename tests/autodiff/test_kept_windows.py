"""The window matrix a convolution's forward multiplied, kept for its kernel's cotangent
(``autodiff/saved.py``, ``conv_windows.correlate_keeping``): ``value_and_grad`` of a
Conv1D/Conv2D loss copies the windows once, and its gradients equal JAX's for float32
and float64, every padding, stride and dilation, a layer in a helper function; the same
with the two products as blocks on the task pool (conv46).

Guard (it passed before conv44, kept because the kept matrix could break it):
``test_a_changed_input_leaves_the_kept_windows_as_they_were``.
"""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import Phylanx, config
from phylanx.ops import conv1d, conv2d
from phylanx.primitives.keras_support import conv_windows

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)      # as the other JAX comparisons here

RNG = np.random.default_rng(44)


def _jax_conv(x, w, padding, stride=1, dilation=1):
    nsp = w.ndim - 2
    numbers = ("NWC", "WIO", "NWC") if nsp == 1 else ("NHWC", "HWIO", "NHWC")
    return jax.lax.conv_general_dilated(x, w, (stride,) * nsp, padding,
                                        rhs_dilation=(dilation,) * nsp,
                                        dimension_numbers=numbers)


def _copies(monkeypatch) -> list:
    """Records each window copy of a kernel cotangent made again from the input."""
    calls = []
    real = conv_windows.kernel_cotangent
    monkeypatch.setattr(conv_windows, "kernel_cotangent",
                        lambda *a: calls.append(1) or real(*a))
    return calls


@Phylanx
def features(x, w, b):
    return np.maximum(conv1d(x, w, "causal") + b, 0.0)


@Phylanx
def causal_loss(w, b, x):
    return np.mean(np.max(features(x, w, b), axis=1) ** 2)


@Phylanx
def strided_loss(w, b, x):
    return np.sum(np.tanh(conv1d(x, w, "same", 2) - b)) / x.shape[0]


@Phylanx
def dilated_loss(w, b, x):
    return np.sum(np.minimum(conv1d(x, w, "valid", 1, 3) * b, 1.0) ** 2)


def _jax_losses():
    def causal(w, b, x):
        h = jnp.maximum(_jax_conv(x, w, [((w.shape[0] - 1), 0)]) + b, 0.0)
        return jnp.mean(jnp.max(h, axis=1) ** 2)

    def strided(w, b, x):
        return jnp.sum(jnp.tanh(_jax_conv(x, w, "SAME", 2) - b)) / x.shape[0]

    def dilated(w, b, x):
        return jnp.sum(jnp.minimum(_jax_conv(x, w, "VALID", dilation=3) * b, 1.0) ** 2)
    return {"causal": causal, "strided": strided, "dilated": dilated}


LOSSES = {"causal": causal_loss, "strided": strided_loss, "dilated": dilated_loss}


@pytest.fixture
def two_threads():
    """A pool of two threads (row blocks need two), the previous setting after."""
    from phylanx import config
    from phylanx.runtime import executors
    before = config.get("threads")
    executors.set_threads(2)
    yield
    executors.set_threads(before)


def _forced_blocks(monkeypatch) -> list:
    """Row blocks at any size (conv46's blocked window products); records the number of
    blocks of each fork."""
    from phylanx.primitives import blas_blocks
    monkeypatch.setattr(config, "_overrides", {**config._overrides, "conv_blocks": True})
    monkeypatch.setattr(config, "_cache", {})
    monkeypatch.setattr(blas_blocks, "MIN_FLOPS", 2)
    monkeypatch.setattr(blas_blocks, "MIN_ROWS", 1)
    forks = []
    real = conv_windows.fork_join
    monkeypatch.setattr(conv_windows, "fork_join",
                        lambda thunks, **kw: forks.append(len(thunks)) or real(thunks, **kw))
    return forks


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_the_kernel_cotangent_reuses_the_forward_windows(monkeypatch, two_threads, name):
    # 3 input channels: the window form serves both dtypes.  JAX's reference is taken
    # in float64 for both (one compile per loss), float32 within float32's rounding.
    # Then again with the products as blocks on the pool (conv46; forced at this size)
    w, b, x = (RNG.standard_normal(s) * 0.5 for s in [(4, 3, 5), (5,), (3, 23, 3)])
    want_value, want = jax.jit(jax.value_and_grad(_jax_losses()[name], (0, 1)))(
        *map(jnp.asarray, (w, b, x)))
    calls = _copies(monkeypatch)
    for blocked in (False, True):
        forks = _forced_blocks(monkeypatch) if blocked else []
        for dtype, tol in ((np.float32, 2e-5), (np.float64, 1e-11)):
            forks.clear()
            value, grads = phylanx.value_and_grad(LOSSES[name], (0, 1))(
                *(a.astype(dtype) for a in (w, b, x)))
            assert calls == []         # the forward's matrix served the kernel's cotangent
            if blocked:                # forward and kernel cotangent, each as blocks
                assert len(forks) == 2 and min(forks) > 1
            np.testing.assert_allclose(value, want_value, rtol=tol)
            for g, ref in zip(grads, want):
                assert g.dtype == dtype
                np.testing.assert_allclose(g, np.asarray(ref), rtol=tol, atol=tol)


@Phylanx
def conv2d_loss(w, x):
    return np.sum(conv2d(x, w, "same", [2, 1]) ** 2)


def test_conv2d_reuses_the_forward_windows_too(monkeypatch):
    w, x = RNG.standard_normal((3, 2, 4, 3)), RNG.standard_normal((2, 7, 6, 4))
    calls = _copies(monkeypatch)
    got = phylanx.grad(conv2d_loss, 0)(w, x)
    assert calls == []
    want = jax.jit(jax.grad(lambda w: jnp.sum(jax.lax.conv_general_dilated(
        x, w, (2, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")) ** 2)))(w)
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-11, atol=1e-11)


@Phylanx
def input_only_loss(x, w):
    return np.sum(conv1d(x, w) ** 2)


def test_nothing_is_kept_when_the_kernel_is_not_differentiated(monkeypatch):
    # the input's cotangent does not use the windows: the forward keeps nothing
    kept = []
    real = conv_windows.correlate_keeping
    monkeypatch.setattr(conv_windows, "correlate_keeping",
                        lambda *a: kept.append(1) or real(*a))
    x, w = RNG.standard_normal((2, 9, 3)), RNG.standard_normal((3, 3, 2))
    got = phylanx.grad(input_only_loss, 0)(x, w)
    want = jax.jit(jax.grad(lambda x: jnp.sum(_jax_conv(x, w, "VALID") ** 2)))(
        jnp.asarray(x))
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-11, atol=1e-11)
    kept.clear()
    phylanx.grad(input_only_loss, 1)(x, w)
    assert kept == [1]                 # and the kernel's gradient does keep it


@Phylanx
def changed_after(w, x):
    y = x * 1.0
    h = conv1d(y, w, "same")
    y += 3.0                            # the input changes after the convolution read it
    return np.sum(h ** 2) + np.sum(y * h)


def test_a_changed_input_leaves_the_kept_windows_as_they_were():
    w, x = RNG.standard_normal((3, 2, 2)), RNG.standard_normal((2, 11, 2))

    def reference(w, x):
        h = _jax_conv(x, w, "SAME")
        return jnp.sum(h ** 2) + jnp.sum((x + 3.0) * h)
    got = phylanx.grad(changed_after, 0)(w, x)
    want = jax.jit(jax.grad(reference))(jnp.asarray(w), jnp.asarray(x))
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-11, atol=1e-11)


def test_a_kept_matrix_that_does_not_fit_is_not_used():
    x, w = RNG.standard_normal((2, 9, 3)), RNG.standard_normal((3, 3, 2))
    out, matrix = conv_windows.correlate_keeping(x, w, (1,), (1,), [(0, 0)])
    ct = RNG.standard_normal(out.shape)
    want = conv_windows.kernel_cotangent(x, w.shape, ct, (1,), (1,), [(0, 0)],
                                         np.dtype(np.float64))
    np.testing.assert_allclose(
        conv_windows.kernel_cotangent_of(matrix, w.shape, ct, np.dtype(np.float64)), want,
        rtol=1e-12)
    for wrong in (matrix.astype(np.float32), matrix[:-1], matrix[:, :-1]):
        assert conv_windows.kernel_cotangent_of(wrong, w.shape, ct,
                                                np.dtype(np.float64)) is None


def test_blocked_products_equal_one_product(monkeypatch, two_threads):
    # the forward and the kernel's cotangent built from the input again (nothing kept:
    # nested grad, a tiled operand), whole and in slices, as blocks: the same as one
    # product each (float64, odd length, stride 2)
    x, w = RNG.standard_normal((4, 31, 3)), RNG.standard_normal((3, 3, 2))
    ct = RNG.standard_normal((4, 15, 2))
    args = (x, w.shape, ct, (2,), (1,), [(0, 0)], np.dtype(np.float64))
    want = conv_windows.kernel_cotangent(*args)
    want_out = conv_windows.correlate(x, w, (2,), (1,), [(0, 0)])
    forks = _forced_blocks(monkeypatch)
    for slice_bytes in (conv_windows.SLICE_BYTES, 500):
        monkeypatch.setattr(conv_windows, "SLICE_BYTES", slice_bytes)
        forks.clear()
        np.testing.assert_allclose(conv_windows.kernel_cotangent(*args), want, rtol=1e-12)
        assert forks and min(forks) > 1
    monkeypatch.setattr(conv_windows, "SLICE_BYTES", 1 << 20)
    forks.clear()
    out, matrix = conv_windows.correlate_keeping(x, w, (2,), (1,), [(0, 0)])
    assert forks == [2]                                 # one block per pool thread
    np.testing.assert_allclose(out, want_out, rtol=1e-12)
    np.testing.assert_allclose(conv_windows.kernel_cotangent_of(matrix, w.shape, ct,
                                                                np.dtype(np.float64)),
                               want, rtol=1e-12)


@pytest.mark.parametrize("name", ["causal", "strided"])
def test_windows_read_in_place_agree_with_jax_and_the_other_forms(monkeypatch, name):
    # conv50: 16 channels, kernel 7 (448 / 896 bytes a window, past the copied form):
    # the forward and the kernel's cotangent over the window matrix read in place
    # (conv_rows.py), against JAX and against the setting off (shifted GEMMs)
    from phylanx.primitives.keras_support import conv_rows
    monkeypatch.setattr(conv_rows, "one_blas_thread", lambda: True)   # (whatever BLAS does)
    w, b, x = (RNG.standard_normal(s) * 0.3 for s in [(7, 16, 5), (5,), (3, 23, 16)])
    want_value, want = jax.jit(jax.value_and_grad(_jax_losses()[name], (0, 1)))(
        *map(jnp.asarray, (w, b, x)))
    served = []
    real = conv_rows.kernel_cotangent
    monkeypatch.setattr(conv_rows, "kernel_cotangent", lambda *a: served.append(1) or real(*a))
    for dtype, tol in ((np.float32, 5e-5), (np.float64, 1e-11)):
        args = [a.astype(dtype) for a in (w, b, x)]
        value, grads = phylanx.value_and_grad(LOSSES[name], (0, 1))(*args)
        monkeypatch.setattr(config, "_overrides", {**config._overrides, "conv_rows": False})
        monkeypatch.setattr(config, "_cache", {})
        other_value, others = phylanx.value_and_grad(LOSSES[name], (0, 1))(*args)
        monkeypatch.setattr(config, "_overrides", {**config._overrides, "conv_rows": True})
        monkeypatch.setattr(config, "_cache", {})
        np.testing.assert_allclose(value, want_value, rtol=tol)
        np.testing.assert_allclose(value, other_value, rtol=tol)
        for g, ref, other in zip(grads, want, others):
            assert g.dtype == dtype
            np.testing.assert_allclose(g, np.asarray(ref), rtol=tol, atol=tol)
            np.testing.assert_allclose(g, other, rtol=tol, atol=tol)
    assert served == [1, 1]
