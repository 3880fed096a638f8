"""Winograd's F(m, r) for 1-d convolutions (keras_support/conv_winograd.py): exact
transforms, results and both gradients against the per-tap products (float64 as the
oracle, tolerances relative to the data), the hot/cold policy and the fallback."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import Phylanx, config
from phylanx.kernels.compiling import FusionWarning, available
from phylanx.ops import conv1d
from phylanx.primitives.keras_support import conv_gemm
from phylanx.primitives.keras_support import conv_winograd as cw

#: float32's Winograd error is a few times the direct sums', relative to the output's
#: scale: the bound these tests hold every kernel size served to
TOL = {np.float32: 2e-5, np.float64: 1e-12}


@pytest.fixture
def fresh(monkeypatch):
    """Winograd's per-process state emptied for the test and restored after it."""
    for name in ("_kernels", "_calls", "_failed", "_pending"):
        monkeypatch.setattr(cw, name, type(getattr(cw, name))())
    monkeypatch.setattr(cw, "MIN_FLOPS", 0)
    config.set("fusion_background", False)
    yield
    config.reset("fusion_background")
    config.reset("conv_winograd")


def _relative_error(got, want) -> float:
    return float(np.abs(np.asarray(got, np.float64) - want).max() / np.abs(want).max())


@pytest.mark.parametrize("r", range(2, 8))
def test_transforms_compute_the_valid_correlation(r):
    rng = np.random.default_rng(r)
    for m, taps in ((cw.outputs_per_tile(r), r), (r, cw.outputs_per_tile(r))):
        at, g, bt = cw.transforms(m, taps)
        d, k = rng.normal(size=cw.ALPHA), rng.normal(size=taps)
        np.testing.assert_allclose(at @ ((g @ k) * (bt @ d)), np.correlate(d, k, "valid"),
                                   rtol=1e-12, atol=1e-12)


def _direct(x, k, ct):
    """The per-tap products in float64: the oracle."""
    x64, k64, ct64 = (a.astype(np.float64) for a in (x, k, ct))
    config.set("conv_winograd", False)
    y = np.asarray(conv_gemm.correlate(x64, k64, (1,)))
    gx, gk = conv_gemm.correlate_vjp(x64, k64, ct64, (1,))
    config.set("conv_winograd", True)
    return y, gx, gk


#: every kernel size's transforms in one dtype at least, float32 at the smallest and the
#: largest kernel (F(2, 7): the largest constants, float32's largest error), float64 at
#: r = 5 (the module the other tests use) and 7; each pair is a module compiled (2-3 s of
#: CPU on a cold cache), the code is the same text but for the dtype's name
@pytest.mark.parametrize("r,dtype", [(2, np.float32), (5, np.float64), (7, np.float32),
                                     (7, np.float64)])
def test_results_and_gradients_match_the_direct_form(fresh, r, dtype):
    # odd lengths: tiles run across batch items and past the last row
    rng = np.random.default_rng(10 + r)
    batch, length, chans, outs = 3, 203, 33, 40
    x = rng.normal(size=(batch, length, chans)).astype(dtype)
    k = (rng.normal(size=(r, chans, outs)) / np.sqrt(r * chans)).astype(dtype)
    ct = rng.normal(size=(batch, length - r + 1, outs)).astype(dtype)
    y0, gx0, gk0 = _direct(x, k, ct)
    module = cw.compiled(cw.outputs_per_tile(r), r, dtype)
    assert cw.kernels(x, k, (1,)) is not None       # compiled above: served at once
    y = conv_gemm.correlate(x, k, (1,))
    gx, gk = conv_gemm.correlate_vjp(x, k, ct, (1,))
    assert y.dtype == gx.dtype == gk.dtype == dtype
    for got, want in ((y, y0), (gx, gx0), (gk, gk0)):
        assert _relative_error(got, want) < TOL[dtype]
    only_x = cw.correlate_vjp(module, x, k, ct, need_x=True, need_k=False)
    only_k = cw.correlate_vjp(module, x, k, ct, need_x=False, need_k=True)
    assert only_x[1] is None and only_k[0] is None
    assert _relative_error(only_x[0], gx0) < TOL[dtype]
    assert _relative_error(only_k[1], gk0) < TOL[dtype]


def test_the_cotangent_dtype_picks_the_kernel_and_odd_operands_are_served(fresh):
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 90, 32)).astype(np.float32)
    k = (rng.normal(size=(5, 32, 32)) / 12).astype(np.float32)
    ct64 = rng.normal(size=(2, 86, 32))
    module = cw.compiled(4, 5, np.float64)
    # a float64 cotangent: the float64 kernels, whose result is float64-accurate
    assert cw.kernels(x, k, (1,), ct64) is module
    assert cw.kernels(x, k, (1,), ct64.astype(np.complex128)) is None   # complex: direct
    _, gx0, gk0 = _direct(x, k, ct64)
    gx, gk = conv_gemm.correlate_vjp(x, k, ct64, (1,))
    assert gx.dtype == gk.dtype == np.float64
    assert _relative_error(gx, gx0) < 1e-12 and _relative_error(gk, gk0) < 1e-12
    # read-only and non-contiguous operands are copied to what the kernels take
    x64 = x.astype(np.float64)
    k64 = k.astype(np.float64)
    y0 = _direct(x64, k64, ct64)[0]
    x64.setflags(write=False)
    assert _relative_error(conv_gemm.correlate(x64, k64, (1,)), y0) < 1e-12
    wide = np.zeros((2, 90, 64))
    wide[:, :, ::2] = x64
    assert _relative_error(conv_gemm.correlate(wide[:, :, ::2], k64, (1,)), y0) < 1e-12


@pytest.mark.parametrize("padding", ["valid", "same", "causal"])
def test_value_and_grad_through_conv1d(fresh, padding):
    def loss(x, w, g):
        return np.sum(conv1d(x, w, padding) * g)
    step = phylanx.value_and_grad(Phylanx(loss), argnums=(0, 1))
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 130, 32))
    w = rng.normal(size=(5, 32, 36)) / 12
    out_len = 126 if padding == "valid" else 130
    g = rng.normal(size=(4, out_len, 36))
    config.set("conv_winograd", False)
    want_value, (want_gx, want_gw) = step(x, w, g)
    config.set("conv_winograd", True)
    cw.compiled(4, 5, np.float64)
    value, (gx, gw) = step(x, w, g)
    assert cw._kernels                               # the Winograd kernels served it
    assert abs(value - want_value) <= 1e-12 * abs(want_value) + 1e-9
    assert _relative_error(gx, want_gx) < 1e-12
    assert _relative_error(gw, want_gw) < 1e-12


def test_cold_calls_do_not_compile_and_a_failed_compile_falls_back(fresh, monkeypatch,
                                                                   tmp_path):
    config.set("fusion_cache_dir", str(tmp_path))     # nothing cached: the hot policy
    attempts = []

    def broken(m, r, dtype):
        attempts.append((m, r))
        raise RuntimeError("no kernel today")
    monkeypatch.setattr(cw, "compiled", broken)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 100, 32)).astype(np.float32)
    k = rng.normal(size=(5, 32, 32)).astype(np.float32)
    want = _direct(x, k, np.zeros((2, 96, 32)))[0]
    try:
        for _ in range(cw.HOT_CALLS - 1):
            assert _relative_error(conv_gemm.correlate(x, k, (1,)), want) < 1e-5
        assert attempts == []                        # a cold call never compiles
        with pytest.warns(FusionWarning, match="did not compile.*no kernel today"):
            got = conv_gemm.correlate(x, k, (1,))
        assert attempts == [(4, 5)]
        assert _relative_error(got, want) < 1e-5     # the direct form served it
        conv_gemm.correlate(x, k, (1,))
        assert attempts == [(4, 5)]                  # failed once: not tried again
    finally:
        config.reset("fusion_cache_dir")


def test_setting_off_and_unfit_convolutions_keep_the_direct_form(fresh):
    x = np.zeros((2, 64, 32))
    assert cw.kernels(x, np.zeros((5, 32, 32)), (2,)) is None          # dilated
    assert cw.kernels(x, np.zeros((9, 32, 32)), (1,)) is None          # 9 taps
    assert cw.kernels(x, np.zeros((5, 32, 8)), (1,)) is None           # few channels
    assert cw.kernels(x.astype(np.int64), np.zeros((5, 32, 32), np.int64), (1,)) is None
    config.set("conv_winograd", False)
    assert cw.kernels(x, np.zeros((5, 32, 32)), (1,)) is None
    assert available()
