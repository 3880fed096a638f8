"""``amax``/``amin`` over a middle axis by halving (``reductions.halving_extreme``,
conv44): taken for C-contiguous float32/float64 arrays whose block after the reduced
axis is 2 elements to ``HALVING_INNER_BYTES`` long, and exactly NumPy's result (NaN
included) for every shape, axis and ``keepdims``.

Guard (it passes on the old code's NumPy reduction too, kept because halving could
break it): ``test_extremes_equal_numpys``.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from phylanx.primitives.statistics import reductions


@pytest.fixture
def small_halved(monkeypatch):
    """Halving taken by arrays of any number of blocks (the examples here are small)."""
    monkeypatch.setattr(reductions, "HALVING_MIN_ROWS", 1)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([np.float32, np.float64]),
       hnp.array_shapes(min_dims=2, max_dims=4, min_side=1, max_side=9),
       st.data(), st.booleans(), st.booleans())
def test_extremes_equal_numpys(dtype, shape, data, keepdims, with_nan):
    saved = reductions.HALVING_MIN_ROWS
    reductions.HALVING_MIN_ROWS = data.draw(st.sampled_from([1, saved]))
    try:
        _extremes_equal_numpys(dtype, shape, data, keepdims, with_nan)
    finally:
        reductions.HALVING_MIN_ROWS = saved


def _extremes_equal_numpys(dtype, shape, data, keepdims, with_nan):
    a = data.draw(hnp.arrays(dtype, shape, elements=st.floats(-4, 4, width=32)))
    if with_nan:
        a.flat[data.draw(st.integers(0, a.size - 1))] = np.nan
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    for name, reference in (("amax", np.max), ("amin", np.min)):
        got = getattr(reductions, name)(a, axis, keepdims or None)
        want = reference(a, axis=axis, keepdims=keepdims)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_a_conv1d_pooling_takes_halving_and_a_single_column_does_not(monkeypatch, small_halved):
    calls = []
    real = reductions.halving_extreme
    monkeypatch.setattr(reductions, "halving_extreme",
                        lambda *a: calls.append(a[1].shape) or real(*a))
    rng = np.random.default_rng(44)
    pooled = rng.standard_normal((4, 33, 32)).astype(np.float32)   # 128-byte blocks
    np.testing.assert_array_equal(reductions.amax(pooled, 1), pooled.max(axis=1))
    np.testing.assert_array_equal(reductions.amin(pooled, -2, True),
                                  pooled.min(axis=1, keepdims=True))
    assert calls == [pooled.shape, pooled.shape]
    calls.clear()
    column = rng.standard_normal((4, 33, 1))         # one element: NumPy's own pass
    wide = rng.standard_normal((4, 33, 32))          # 256 bytes of float64: NumPy's
    for a in (column, wide, pooled[:, ::2], pooled.astype(np.float16)):
        np.testing.assert_array_equal(reductions.amax(a, 1), a.max(axis=1))
    assert calls == []
    assert reductions.HALVING_INNER_BYTES >= 2 * 8


@pytest.mark.parametrize("op", [np.maximum, np.minimum])
def test_halving_gives_a_new_array(op):
    # the result is never a view of the operand (an in-place change of either would
    # show in the other)
    a = np.arange(24.0).reshape(2, 3, 4)
    out = reductions.halving_extreme(op, a, 1)
    assert not np.shares_memory(out, a)
    np.testing.assert_array_equal(out, op.reduce(a, axis=1))


@pytest.mark.usefixtures("small_halved")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("length", [2, 3, 4, 5, 6])
def test_signed_zeros_come_out_as_numpys(dtype, length):
    # rev24: NumPy reduces a middle axis as a left fold of np.maximum/np.minimum, which
    # return their second operand on a tie, so of equal zeros of both signs the last one
    # along the axis is the result (np.max([[-0.], [0.]], 0) is 0.0, of [[0.], [-0.]]
    # -0.0); halving pairs other indices and gave the other sign for some orders
    # (1/amax(x) then -inf where NumPy's is inf).  Every order of -1, -0.0, 0.0 and 1
    # along the axis, two columns (a 2-element block: halving's case)
    import itertools
    rows = np.array(list(itertools.product([-1.0, -0.0, 0.0, 1.0], repeat=length)), dtype)
    a = np.stack([rows, rows[::-1]], axis=-1)          # (orders, length, 2)
    for name, reference in (("amax", np.max), ("amin", np.min)):
        got = getattr(reductions, name)(a, 1)
        want = reference(a, axis=1)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want), err_msg=name)


def test_a_few_blocks_take_numpys_reduction(monkeypatch):
    """Halving's fixed cost (its element-wise calls, the zero-sign check) is paid back
    only over many blocks: a small matrix (a Viterbi step's 8x8 candidates) takes NumPy's
    one reduction, a long one halving; both NumPy's result."""
    calls = []
    real = reductions.halving_extreme
    monkeypatch.setattr(reductions, "halving_extreme",
                        lambda *a: calls.append(a[1].shape) or real(*a))
    rng = np.random.default_rng(45)
    for shape in [(8, 8), (3, 8, 4), (64, 8)]:
        a = rng.standard_normal(shape)
        np.testing.assert_array_equal(reductions.amax(a, -2), a.max(axis=-2))
    assert calls == []
    long = rng.standard_normal((reductions.HALVING_MIN_ROWS, 4))
    np.testing.assert_array_equal(reductions.amin(long, 0), long.min(axis=0))
    assert calls == [long.shape]


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize("a, axis", [(np.arange(8.0), None), (np.arange(8.0), 0),
                                     (np.ones((8, 8)), 0), (np.arange(12).reshape(3, 4), -1),
                                     (np.array([True, False]), None)])
def test_a_small_extreme_is_numpys_reduction_in_few_calls(name, a, axis):
    """A loop's step over a small array pays every Python call of the kernel beside
    NumPy's one reduction: the plain case (a non-empty numeric array, an int axis or
    none, no options) converts nothing; the result is NumPy's, a scalar for a 0-d one."""
    from ..python_calls import python_calls
    got, called = python_calls(getattr(reductions, name), a, axis)
    assert len(called) <= 4, called          # the kernel, _extreme and two tests
    want = (np.max if name == "amax" else np.min)(a, axis=axis)
    assert type(got) is type(want) and np.array_equal(got, want)
