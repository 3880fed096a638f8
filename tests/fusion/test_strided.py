"""Reductions of broadcast operands read in place (phylanx/fusion/strided.py).

With the fixtures ``eager`` and ``installed`` (conftest.py) every region is hot at once
(no thresholds, compiled in the calling thread, kept even when slower), so the kernel
is what runs.  The oracle is the undecorated NumPy function: same type, dtype and
shape, NaN where NumPy has NaN, values within a relative tolerance of 1e-12 (float64)
or 1e-5 (float32) of the largest magnitude (the kernel sums in float64 in sequence,
NumPy pairwise in the dtype).  No full-size copy: tracemalloc's peak during a steady
call stays below the size of the broadcast intermediate.
"""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phylanx import Phylanx
from phylanx.fusion import hot, strided

pytest.importorskip("numba")

RNG = np.random.default_rng(47)
CALLS = 14          # plan, check, warm, the nine timed turns, and two steady calls


def strided_calls(found) -> int:
    return sum(e.calls for r in found for e in r.kernels.values()
               if isinstance(e, strided.StridedKernel))


def kernel_calls(found) -> int:
    return sum(e.calls for r in found for e in r.kernels.values()
               if isinstance(e, hot._Kernel))


def assert_like_numpy(got, want):
    assert type(got) is type(want)
    assert np.shape(got) == np.shape(want) and got.dtype == want.dtype
    got, want = np.asarray(got), np.asarray(want)
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    rtol = 1e-5 if want.dtype == np.float32 else 1e-12
    scale = float(np.nanmax(np.abs(want), initial=1.0))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, equal_nan=True)


def pairwise(a, b):
    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)


def farthest(a, b):
    return np.max(np.abs(a[:, None, :] - b[None, :, :]), axis=1, keepdims=True)


def nearest(a, b):
    return np.min(np.abs(a[:, None, :] - b[None, :, :]), axis=0)


def mean_all(a, b):
    return np.mean(np.exp(a[:, None, :] - b[None, :, :]))


def centred(x, mu):
    return np.sum((x - mu[None, :]) * (x + mu[None, :]), axis=1)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("fn", [pairwise, farthest, nearest, mean_all])
def test_broadcast_reductions_like_numpy_without_a_full_copy(eager, installed, fn, dtype):
    a = RNG.normal(size=(120, 16)).astype(dtype)
    b = RNG.normal(size=(90, 16)).astype(dtype)
    f = Phylanx(fn)
    for _ in range(CALLS):
        assert_like_numpy(f(a, b), fn(a, b))
    assert strided_calls(installed) >= 3
    # a kept kernel's re-check runs NumPy once a period (hot.FusedRegion.keep): the
    # measured call is the kernel's
    for entry in (e for r in installed for e in r.kernels.values()
                  if isinstance(e, strided.StridedKernel)):
        entry.recheck_due = False
    tracemalloc.start()
    try:
        got = f(a, b)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert_like_numpy(got, fn(a, b))
    full = 120 * 90 * 16 * np.dtype(dtype).itemsize      # the broadcast intermediate
    assert peak < full / 4, f"peak {peak} bytes: a full-size copy ({full} bytes)"


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32"])
def test_a_broadcast_row_of_every_dtype(eager, installed, dtype):
    x = (RNG.normal(size=(200, 12)) * 9).astype(dtype)
    mu = (RNG.normal(size=12) * 9).astype(dtype)
    f = Phylanx(centred)
    for _ in range(CALLS):
        assert_like_numpy(f(x, mu), centred(x, mu))
    assert strided_calls(installed) >= 3


def test_nan_wins_a_max_and_a_sum(eager, installed):
    a = RNG.normal(size=(40, 5))
    b = RNG.normal(size=(30, 5))
    a[3, 2] = np.nan
    b[7, 0] = np.inf
    for fn in (farthest, pairwise, nearest):
        f = Phylanx(fn)
        with np.errstate(invalid="ignore"):
            for _ in range(CALLS):
                assert_like_numpy(f(a, b), fn(a, b))
    assert strided_calls(installed) >= 9


def test_the_source_indexes_operands_by_the_full_shape():
    """The generated loop reads every array operand at the full (broadcast) indices
    and accumulates in memory order: outer axes in parallel, the reduced one, then the
    inner ones (the plan is printable text)."""
    from phylanx.fusion.regions import find_regions
    f = Phylanx(nearest)
    a, b = RNG.normal(size=(4, 3)), RNG.normal(size=(5, 3))
    f(a, b)
    (region,) = find_regions([f._function.body])
    values = [a[:, None, :], b[None, :, :]]
    record: list = [None] * (len(region.ops) + 1)
    from phylanx.fusion.regions import interpret
    interpret(region, values, record)
    plan = strided.plan_strided(region, ["v", "v"], values, record, (0, 1, 2), False)
    source = plan.source.split("def kernel_par")[1].split("@njit")[0]
    assert "L0[r0, j0, j1]" in source and "L1[r0, j0, j1]" in source
    assert "out[p, j0, j1] = _minimum(out[p, j0, j1]" in source


SHAPES = st.tuples(st.integers(1, 5), st.integers(1, 6), st.integers(1, 7))


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=SHAPES, masks=st.tuples(st.integers(0, 7), st.integers(0, 7)),
       axis=st.sampled_from([None, 0, 1, 2, -1]), keepdims=st.booleans(),
       reduction=st.sampled_from(["sum", "mean", "amax", "amin"]),
       dtype=st.sampled_from(["float64", "float32"]))
def test_fused_and_unfused_agree_on_random_broadcasts(eager, installed, shape, masks, axis,
                                                      keepdims, reduction, dtype):
    """Law: a reduction of an element-wise expression of broadcast operands equals the
    same reduction of the materialised expression (NumPy), to the rounding stated in
    the module docstring: each operand is the full shape with some axes of length one
    (bit i of its mask)."""
    a_shape = tuple(1 if masks[0] >> i & 1 else n for i, n in enumerate(shape))
    b_shape = tuple(1 if masks[1] >> i & 1 else n for i, n in enumerate(shape))
    rng = np.random.default_rng(sum(shape) + masks[0] * 8 + masks[1])
    a = rng.normal(size=a_shape).astype(dtype)
    b = rng.normal(size=b_shape).astype(dtype)
    reduce = getattr(np, {"amax": "max", "amin": "min"}.get(reduction, reduction))

    def program(a, b):
        return reduce(a * b - np.abs(b), axis=axis, keepdims=keepdims)
    # the same text as every other example: one kernel per layout and dtype
    source = (f"def program(a, b):\n    return np.{reduce.__name__}(a * b - np.abs(b), "
              f"axis={axis}, keepdims={keepdims})\n")
    namespace = {"np": np}
    exec(compile(source, "<random-broadcast>", "exec"), namespace)
    f = Phylanx(source=source)(namespace["program"])
    before = kernel_calls(installed)
    for _ in range(5):          # plan, check, warm, two timed turns of the kernel
        assert_like_numpy(f(a, b), program(a, b))
    assert kernel_calls(installed) > before        # a kernel (of any layout) ran
