"""Fused reductions along the last axis (phylanx/fusion/rowreduce.py).

With the fixtures ``eager`` and ``installed`` (conftest.py) every region is hot at once
(no thresholds, compiled in the calling thread, kept even when slower), so the kernel
is what runs; the oracle is the
undecorated NumPy function: same dtype and shape, values within a tolerance relative to
each row's terms.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from phylanx import Phylanx, config, fusion
from phylanx.errors import PhylanxError
from phylanx.fusion import hot, rowreduce, strided, stridedmap

pytest.importorskip("numba")

RNG = np.random.default_rng(31)


def kernel_calls(found) -> int:
    return sum(e.calls for r in found if isinstance(r, rowreduce.RowReduction)
               for e in r.kernels.values() if isinstance(e, rowreduce.RowsKernel))


def assert_like_numpy(got, want):
    assert type(got) is type(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite], want[~finite])
    rtol = 1e-5 if want.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got[finite], want[finite], rtol=rtol,
                               atol=rtol * np.abs(want[finite]).max(initial=1.0))


def norms(x, y):
    return np.sum(x * x + y, axis=1)


def mean_exp(x):
    return np.mean(np.exp(x - 1.0), axis=-1, keepdims=True)


def last_of_three(x, y):
    return np.sum(x * y - 1.0, axis=2)


def run_like_numpy(fn, *args, calls=4):
    f = Phylanx(fn)
    for _ in range(calls):                   # plan, check, warm, timed turns
        assert_like_numpy(f(*args), fn(*args))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32"])
@pytest.mark.parametrize("y", ["scalar", "row", "column", "full"])
def test_sums_of_rows_like_numpy(eager, installed, dtype, y):
    x = (RNG.normal(size=(57, 6)) * 5).astype(dtype)
    other = {"scalar": 2, "row": RNG.normal(size=6), "column": RNG.normal(size=(57, 1)),
             "full": RNG.normal(size=(57, 6))}[y]
    if dtype.startswith("float") and y != "scalar":
        other = other.astype(dtype)
    run_like_numpy(norms, x, other)
    # a broadcast operand (row, column) is read in place by the strided kernel
    # (strided.py); the others by the contiguous row kernel
    assert (kernel_calls(installed) >= 2) == (y in ("scalar", "full"))
    strided_calls = sum(e.calls for r in installed for e in r.kernels.values()
                        if isinstance(e, strided.StridedKernel))
    assert (strided_calls >= 2) == (y in ("row", "column"))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_mean_with_keepdims_and_three_axes(eager, installed, dtype):
    run_like_numpy(mean_exp, RNG.normal(size=(40, 9)).astype(dtype))
    run_like_numpy(last_of_three, RNG.normal(size=(4, 5, 7)).astype(dtype),
                   RNG.normal(size=(4, 5, 7)).astype(dtype))
    assert kernel_calls(installed) >= 4


def test_nan_and_inf_rows(eager, installed):
    x = RNG.normal(size=(30, 4))
    x[3, 1] = np.nan
    x[5, 0] = np.inf
    x[7, :2] = [np.inf, -np.inf]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        run_like_numpy(norms, x, 0.5)
    assert kernel_calls(installed) >= 2


def first_axis(x):
    return np.sum(x * x, axis=0)


def whole(x):
    return np.sum(x * x, axis=-1)


@pytest.mark.parametrize("fn,shape", [(first_axis, (20, 5)), (whole, (20,)),
                                      (whole, (20, 0)), (norms, (0, 3))])
def test_other_axes_take_the_strided_kernel_and_empty_rows_numpy(eager, installed, fn,
                                                                  shape):
    x = RNG.normal(size=shape)
    args = (x, 1.0) if fn is norms else (x,)
    run_like_numpy(fn, *args)
    assert kernel_calls(installed) == 0
    strided_calls = sum(e.calls for r in installed for e in r.kernels.values()
                        if isinstance(e, strided.StridedKernel))
    assert (strided_calls > 0) == (0 not in shape)


def test_an_axis_out_of_range_is_numpys_located_error(eager):
    def bad(x):
        return np.sum(x * x, axis=2)
    f = Phylanx(bad)
    with pytest.raises(PhylanxError, match="axis") as err:
        f(RNG.normal(size=(10, 3)))
    assert err.value.loc is not None


def test_a_disagreeing_kernel_is_dropped_with_one_warning(eager, installed, monkeypatch):
    real = rowreduce.RowsKernel.__call__
    monkeypatch.setattr(rowreduce.RowsKernel, "__call__",
                        lambda self, shape, n, args: real(self, shape, n, args) + 1.0)
    x = RNG.normal(size=(25, 4))
    f = Phylanx(norms)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(4):
            assert_like_numpy(f(x, 1.0), norms(x, 1.0))
    assert len([c for c in caught if c.category is fusion.FusionWarning]) == 1
    (region,) = [r for r in installed if isinstance(r, rowreduce.RowReduction)]
    assert list(region.kernels.values()) == [hot._REJECTED]


@pytest.mark.parametrize("rows,chains", [(True, False), (False, True), (False, False)])
def test_settings(eager, installed, rows, chains):
    """``fusion_rows`` installs the row reductions, ``fusion`` the element-wise chains
    and whole-array reductions."""
    config.set("fusion_rows", rows)
    config.set("fusion", chains)
    try:
        def both(x):
            return np.sum(x * x, axis=1), np.sum(x * 2.0 + 1.0)
        x = RNG.normal(size=(30, 3))
        f = Phylanx(both)
        for _ in range(3):
            got, want = f(x), both(x)
            assert_like_numpy(got[0], want[0])
            np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
        axes = {r.axis for r in installed if isinstance(r, strided.AxisReduction)}
        assert (1 in axes) == rows
        assert (None in axes) == chains
    finally:
        config.reset("fusion")


def test_a_row_sum_in_a_loop_body_stays_with_the_tree(eager, installed):
    """Compiled loops take whole-array reductions only: a loop whose body sums rows runs
    in the tree (and its row sum fused there)."""
    def scaled(x, n):
        s = np.zeros(x.shape[0])
        for _ in range(n):
            s = s + np.sum(x * x, axis=1) * 0.5
        return s
    x = RNG.normal(size=(40, 3))
    run_like_numpy(scaled, x, 5)
    assert kernel_calls(installed) >= 2


def ratio(x, y):
    return np.sum(x / y, axis=1)


def test_errstate_raise_and_call_run_numpys_code(eager, installed):
    """A kernel neither raises nor calls back: under errstate raise/call the tree runs."""
    x, y = RNG.normal(size=(8, 4)), RNG.normal(size=(8, 4)) + 5.0
    f = Phylanx(ratio)
    for _ in range(4):
        f(x, y)                                   # hot, compiled, checked
    assert kernel_calls(installed) >= 1
    y[1, 2] = 0.0
    with np.errstate(divide="raise"):
        with pytest.raises(PhylanxError, match="divide by zero"):
            f(x, y)
    calls = []
    with np.errstate(divide="call", call=lambda *a: calls.append(a)):
        got = f(x, y)
    assert calls and np.isinf(got[1])


def python_ints(x, a, b):
    return np.sum(x * (a * b), axis=1)


def test_python_int_arithmetic_is_left_to_numpy(eager, installed):
    """Python ints of Python ints do not wrap (int64 in a kernel would)."""
    x = RNG.normal(size=(6, 3))
    f = Phylanx(python_ints)
    for a in (2 ** 31, 2 ** 40, 3):
        assert_like_numpy(f(x, a, a), python_ints(x, a, a))
    assert kernel_calls(installed) == 0


def test_float32_sums_overflow_as_numpys(eager, installed):
    """float32 rows add in float32: an overflowing running sum is inf, as NumPy's."""
    f = Phylanx(norms)
    x = RNG.normal(size=(5, 4)).astype(np.float32)
    for _ in range(4):
        f(x, np.float32(0))
    big = np.array([[3e38, 3e38, -3e38, -3e38]] * 5, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = norms(big / 1e19 * 1e19, np.float32(0))
        got = f(big / 1e19 * 1e19, np.float32(0))
    assert_like_numpy(got, want)
    assert kernel_calls(installed) >= 2


def exp_rows(x, y):
    return np.sum(np.exp(x) * y, axis=0)


def test_the_chain_under_another_axis_is_fused_with_it(eager, installed):
    """A reduction along the first axis is fused with the element-wise chain it reduces
    (the strided kernel, strided.py); the chain alone keeps its own closure for when
    the reduction gives its node back."""
    x, y = RNG.normal(size=(30, 4)), RNG.normal(size=(30, 4))
    run_like_numpy(exp_rows, x, y)
    assert [type(r) for r in installed] == [strided.AxisReduction, stridedmap.StridedMap]
    assert any(isinstance(e, strided.StridedKernel) and e.calls
               for e in installed[0].kernels.values())


def test_a_region_on_trial_is_settling_until_its_kernel_is_steady(eager, installed,
                                                                   monkeypatch):
    # benchmarks call a program until fusion.settling() is False: the timed calls are
    # then the kernel's steady state, not its compile, check or timing turns
    import weakref
    monkeypatch.setattr(hot, "_TRIALS", weakref.WeakSet())   # earlier tests' regions
    x = RNG.normal(size=(300, 8))
    f = Phylanx(norms)
    seen = []
    for _ in range(hot.SPEED_RUNS + 4):
        assert_like_numpy(f(x, 1.0), norms(x, 1.0))
        seen.append(hot.settling())
    assert any(seen) and not seen[-1]
    steady = seen.index(False, seen.index(True))      # on trial, then steady for good
    assert not any(seen[steady:])
    before = kernel_calls(installed)
    f(x, 1.0)
    assert kernel_calls(installed) == before + 1 and not hot.settling()   # the kernel


def test_a_planned_kernel_in_the_disk_cache_costs_a_tenth_once_numba_is_set_up(
        monkeypatch):
    # (a fixed cost, fusion_compile_cost_ms in ms; measured costs: tests/kernels/test_costs.py)
    from phylanx import config
    from phylanx.kernels import compiling, costs
    ready, cached = [False], []
    monkeypatch.setattr(compiling, "initialized", lambda: ready[0])
    monkeypatch.setattr(compiling, "is_cached", lambda source: cached.append(source) or True)
    config.set("fusion_compile_cost_ms", 0.001)       # 1000 ns
    costs.forget()
    try:
        planned = hot._Planned(compiling.Plan("src", None), (), None)
        assert not planned.due(500)                    # numba not set up: full cost
        ready[0] = True                                # another kernel set numba up
        assert planned.due(100)
        assert not planned.due(99) and cached == ["src"]   # looked up once
    finally:
        config.reset("fusion_compile_cost_ms")
        costs.forget()
