"""Hand tests of the reductions (reductions.py) against NumPy/SciPy: axis None/int/negative/
list, keepdims, initial, dtype, empty and 0-d inputs, NaN, dtype variants and errors."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.special

import phylanx
from phylanx.errors import PhylanxError

from .harness import assert_like_numpy, call

ev = phylanx.evaluate


ORACLES = {
    "sum": np.sum, "prod": np.prod, "amax": np.max, "amin": np.min, "mean": np.mean,
    "var": np.var, "std": np.std, "all": np.all, "any": np.any,
    "logsumexp": scipy.special.logsumexp,
}

ARRAYS = [
    np.arange(-3, 9).reshape(3, 4),
    (np.arange(24.0).reshape(2, 3, 4) - 10) / 7,
    np.array([[0.5, -1.5], [2.0, 0.25]], dtype=np.float32),
    np.array([[True, False, True], [True, True, True]]),
    np.arange(16).reshape(2, 2, 1, 4) % 5,
    np.array([1.0, np.nan, 3.0]),
    np.array([-np.inf, 2.0, np.inf]),
]


def axes_for(x):
    n = np.ndim(x)
    return [None, 0, -1, n - 1] + ([[0, -1], [1, 2]] if n >= 3 else [])


# keepdims alternates over the axes of each array (both values for the first array)
CASES = [(x, ax, keep) for i, x in enumerate(ARRAYS) for j, ax in enumerate(axes_for(x))
         for keep in ((False, True) if i == 0 else ((i + j) % 2 == 1,))]


@pytest.mark.parametrize("name", sorted(ORACLES))
@pytest.mark.parametrize("x, axis, keepdims", CASES,
                         ids=[f"{x.dtype}{x.shape}-ax{a}-k{int(k)}" for x, a, k in CASES])
def test_reduction_matches_numpy(name, x, axis, keepdims):
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    if name == "logsumexp" and x.dtype == np.bool_:
        x = x.astype(np.int64)   # SciPy refuses bool; phylanx takes it as numbers
    with np.errstate(all="ignore"):
        expected = ORACLES[name](x, axis=np_axis, keepdims=keepdims)
        got = call(name, x, axis, np.bool_(keepdims))
    assert_like_numpy(got, expected)


@pytest.mark.parametrize("name", sorted(ORACLES))
def test_scalar_input(name):
    x = np.float64(2.5)
    expected = ORACLES[name](x)
    assert_like_numpy(call(name, x), expected)
    if name not in ("mean", "var", "std"):
        # an integer axis of 0-d, as NumPy
        assert_like_numpy(call(name, x, np.int64(0)), expected)
    else:
        with pytest.raises(PhylanxError, match="axis 0 is out of bounds for a 0-d array"):
            call(name, x, np.int64(0))


def test_axis_given_as_physl_list_or_array_literal():
    x = np.arange(24).reshape(2, 3, 4)
    assert_like_numpy(ev("lambda(x, sum(x, list(0, 2)))", x), np.sum(x, axis=(0, 2)))
    assert_like_numpy(ev("lambda(x, amax(x, [-1, 0], true))", x),
                      np.max(x, axis=(-1, 0), keepdims=True))
    assert_like_numpy(ev("lambda(x, mean(x, __arg(axis, list(1))))", x), np.mean(x, axis=(1,)))


@pytest.mark.parametrize("name", sorted(ORACLES))
def test_bad_axis(name):
    x = np.ones((2, 3))
    with pytest.raises(PhylanxError, match=r"axis 2 is out of bounds for a 2-d array"):
        call(name, x, np.int64(2))
    with pytest.raises(PhylanxError, match=r"axis -3 is out of bounds"):
        call(name, x, np.int64(-3))
    with pytest.raises(PhylanxError, match="repeated axis"):
        call(name, x, [0, -2])
    with pytest.raises(PhylanxError, match="axis must be an integer"):
        call(name, x, "rows")


@pytest.mark.parametrize("name, fn", [("sum", np.sum), ("prod", np.prod),
                                      ("amax", np.max), ("amin", np.min)])
@pytest.mark.parametrize("initial", [np.int64(5), np.float64(-2.5)])
def test_initial(name, fn, initial):
    x = np.array([[1, 4], [3, 2]])
    assert_like_numpy(ev(f"lambda(x, i, {name}(x, 0, false, i))", x, initial),
                      fn(x, axis=0, initial=initial))
    assert_like_numpy(ev(f"lambda(x, i, {name}(x, __arg(initial, i)))", x, initial),
                      fn(x, initial=initial))
    empty = np.zeros((0, 3))
    assert_like_numpy(call(name, empty, np.int64(0), np.bool_(True), initial),
                      fn(empty, axis=0, keepdims=True, initial=initial))


@pytest.mark.parametrize("name", ["amax", "amin"])
def test_empty_extremum_needs_initial(name):
    with pytest.raises(PhylanxError, match="empty array .* without an 'initial' value"):
        call(name, np.array([]))
    with pytest.raises(PhylanxError, match="along axis 1"):
        call(name, np.zeros((2, 0)), np.int64(1))
    # reducing a non-empty axis of an empty array is fine, as in NumPy
    assert_like_numpy(call(name, np.zeros((2, 0)), np.int64(0)), np.max(np.zeros((2, 0)), axis=0))


def test_empty_sum_prod_any_all():
    e = np.zeros((0, 3), np.int64)
    for name in ("sum", "prod", "all", "any", "logsumexp"):
        assert_like_numpy(call(name, e, np.int64(0)), ORACLES[name](e, axis=0))
    with pytest.warns(RuntimeWarning):
        assert np.isnan(call("mean", np.array([])))


@pytest.mark.parametrize("code, expected", [
    ("sum([1, 2, 3], nil, false, nil, \"float32\")", np.sum([1, 2, 3], dtype=np.float32)),
    ("sum([true, true], __arg(dtype, \"bool\"))", np.sum([True, True], dtype=bool)),
    ("prod([[1, 2], [3, 4]], 0, __arg(dtype, \"float\"))",
     np.prod([[1, 2], [3, 4]], axis=0, dtype=float)),
    ("mean([1, 2, 4], __arg(dtype, \"float32\"))", np.mean([1, 2, 4], dtype=np.float32)),
    ("var([1.0, 2.0, 4.0], nil, nil, nil, \"float32\")",
     np.var([1.0, 2.0, 4.0], dtype=np.float32)),
    ("std([[1, 2], [4, 8]], 1, true, nil, \"float32\")",
     np.std([[1, 2], [4, 8]], axis=1, keepdims=True, dtype=np.float32)),
    ("amax([1.7, -2.5], __arg(dtype, \"int\"))", np.max(np.array([1.7, -2.5]).astype(int))),
    ("amin([[1.7, 3.2]], 1, true, nil, \"int\")", np.array([[1]])),
    ("logsumexp([1, 2], __arg(dtype, \"float32\"))",
     scipy.special.logsumexp(np.array([1, 2], np.float32))),
    ("logsumexp([0.0, 0.0], nil, nil, nil, \"int\")", np.int64(0)),
])
def test_dtype_argument(code, expected):
    assert_like_numpy(ev(code), expected)


def test_dummy_arguments_are_ignored():
    x = np.array([[1.0, 2.0], [3.0, 5.0]])
    assert_like_numpy(ev("lambda(x, mean(x, 0, false, 123))", x), np.mean(x, axis=0))
    assert_like_numpy(ev("lambda(x, var(x, __arg(dummy_, 1), __arg(axis, 1)))", x),
                      np.var(x, axis=1))
    assert_like_numpy(ev("lambda(x, std(x, nil, nil, \"ignored\"))", x), np.std(x))
    assert_like_numpy(ev("lambda(x, all(x, 1, false, 7, 8))", x), np.all(x, axis=1))
    assert_like_numpy(ev("lambda(x, any(x, __arg(dummy1, 0), __arg(dummy0, 0)))", x), np.any(x))
    assert_like_numpy(ev("lambda(x, logsumexp(x, 1, true, 42))", x),
                      scipy.special.logsumexp(x, axis=1, keepdims=True))


def test_logsumexp_dtype_variants():
    x = np.array([[1.0, 2.0], [0.5, -1.0]])
    assert_like_numpy(call("logsumexp__float", x, np.int64(1)), scipy.special.logsumexp(x, axis=1))
    assert_like_numpy(call("logsumexp__int", x),
                      scipy.special.logsumexp(x.astype(int)).astype(np.int64))
    assert_like_numpy(call("logsumexp__float", x.astype(int), [0, 1], np.bool_(True)),
                      scipy.special.logsumexp(x.astype(int), axis=(0, 1), keepdims=True))
    # only the data is cast: an axis of 2 must not turn into True (= 1) in the __bool variant
    cube = np.arange(24.0).reshape(2, 3, 4) - 12
    assert_like_numpy(call("logsumexp__bool", cube, np.int64(2)),
                      scipy.special.logsumexp(cube.astype(bool).astype(float), axis=2).astype(bool))


def test_reductions_reject_non_numbers():
    with pytest.raises(PhylanxError, match="must be a number or an array, got a string"):
        ev("sum(\"abc\")")
    with pytest.raises(PhylanxError, match="got a nil"):
        ev("mean(nil)")
