"""Hand tests of argmax, argmin, argsort, sort, unique and power against NumPy."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxTypeError, PhylanxValueError

from .harness import assert_like_numpy

ev = phylanx.evaluate

ARRAYS = [
    np.array([3., 1., 4., 1., 5., 9., 2., 6.]),
    np.array([[3, 1, 4], [1, 5, 9], [2, 6, 5]]),
    (np.arange(24.).reshape(2, 3, 4) * 7) % 5,
    ((np.arange(48).reshape(2, 2, 3, 4) * 5) % 7).astype(np.float32),
    np.array([[True, False], [False, True]]),
    np.array([2., np.nan, 7., np.nan]),
    np.array([-np.inf, 3., np.inf, -0.0, 0.0]),
]
IDS = [f"{a.dtype}{a.shape}" for a in ARRAYS]


def axes_of(a):
    return [None, *range(-a.ndim, a.ndim)]


@pytest.mark.parametrize("a", ARRAYS, ids=IDS)
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin_both_overloads(name, a):
    numpy_fn = getattr(np, name)
    assert_like_numpy(ev(f"lambda(a, {name}(a))", a), numpy_fn(a))
    for axis in axes_of(a):
        assert_like_numpy(ev(f"lambda(a, axis, {name}(a, axis))", a, axis), numpy_fn(a, axis=axis))


def test_argmax_of_scalars_lists_and_empty_axes():
    assert_like_numpy(ev("argmax(7)"), np.argmax(7))
    assert_like_numpy(ev("argmin(list(3, 1, 2))"), np.argmin([3, 1, 2]))
    empty = np.zeros((0, 3))
    assert_like_numpy(ev("lambda(a, argmax(a, 1))", empty), np.argmax(empty, axis=1))


@pytest.mark.parametrize("code, error, message", [
    ("argmax([[1, 2]], 2)", PhylanxValueError, "out of bounds"),
    ("argmin([[1, 2]], -3)", PhylanxValueError, "out of bounds"),
    ('argmax("abc")', PhylanxTypeError, "numeric array"),
])
def test_argmax_errors(code, error, message):
    with pytest.raises(error, match=message):
        ev(code)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_of_empty_raises_like_numpy(name):
    empty = np.zeros((2, 0))
    with pytest.raises(ValueError):
        getattr(np, name)(empty)
    with pytest.raises(PhylanxValueError, match="empty array"):
        ev(f"lambda(a, {name}(a))", empty)
    with pytest.raises(PhylanxValueError, match="empty array"):
        ev(f"lambda(a, {name}(a, 1))", empty)


@pytest.mark.parametrize("a", ARRAYS, ids=IDS)
@pytest.mark.parametrize("kind", ["quicksort", "mergesort", "heapsort", "stable"])
def test_sort_and_argsort_every_axis(a, kind):
    assert_like_numpy(ev("lambda(a, sort(a))", a), np.sort(a))
    for axis in axes_of(a):
        code_sort = "lambda(a, axis, kind, sort(a, axis, kind))"
        assert_like_numpy(ev(code_sort, a, axis, kind), np.sort(a, axis=axis, kind=kind))
        if kind in ("mergesort", "stable"):   # ties: only stable sorts have one right answer
            code_arg = "lambda(a, axis, kind, argsort(a, axis, kind))"
            assert_like_numpy(ev(code_arg, a, axis, kind), np.argsort(a, axis=axis, kind=kind))


def test_argsort_default_sorts_the_last_axis():
    a = np.array([[3., 1., 2.], [9., 7., 8.]])
    assert_like_numpy(ev("lambda(a, argsort(a))", a), np.argsort(a))
    assert_like_numpy(ev("lambda(a, argsort(a, __arg(axis, 0)))", a), np.argsort(a, axis=0))
    assert_like_numpy(ev("lambda(a, sort(a, __arg(kind, \"stable\")))", a),
                      np.sort(a, kind="stable"))


def test_sort_of_scalars_and_empty():
    assert_like_numpy(ev("sort(3.0, nil)"), np.sort(3.0, axis=None))
    with pytest.raises(ValueError):
        np.sort(np.float64(3.0))
    with pytest.raises(np.exceptions.AxisError, match="out of bounds for a 0-d array"):
        ev("sort(3.0)")          # (an AxisError, as NumPy's; it was a plain ValueError)
    # argsort runs on a 0-d value as on a 1-d one, as NumPy's (it was refused, user49)
    for code, axis in (("argsort(3.0)", -1), ("argsort(3.0, 0)", 0)):
        assert_like_numpy(ev(code), np.argsort(3.0, axis=axis))
    with pytest.raises(np.exceptions.AxisError):
        ev("argsort(3.0, 1)")
    empty = np.zeros((0, 2))
    assert_like_numpy(ev("lambda(a, sort(a, 0))", empty), np.sort(empty, axis=0))
    assert_like_numpy(ev("lambda(a, argsort(a))", empty), np.argsort(empty))


@pytest.mark.parametrize("code, message", [
    ('sort([2, 1], -1, "bogo")', "sort kind must be one of"),
    ('argsort([2, 1], -1, "quicksort", "f")', "cannot specify an order"),
    ("sort([2, 1], 1)", "out of bounds"),
    ("argsort([[2, 1]], -3)", "out of bounds"),
])
def test_sort_errors(code, message):
    with pytest.raises(PhylanxValueError, match=message):
        ev(code)


@pytest.mark.parametrize("a, axis", [
    (np.array([3, 1, 3, 2, 1]), None),
    (np.array([[1., 2.], [2., 1.]]), None),
    (np.array([[1, 2], [1, 2], [0, 5]]), 0),
    (np.array([[1, 2, 1], [3, 4, 3]]), -1),
    (np.array([1., np.nan, 1., np.nan]), None),
    (np.float32([2, 2, 1]), None),
    (np.array([True, False, True]), None),
    (np.zeros(0), None),
    (np.arange(24).reshape(2, 3, 4) % 2, 1),
])
def test_unique_both_overloads(a, axis):
    code = "lambda(a, unique(a))" if axis is None else "lambda(a, axis, unique(a, axis))"
    args = (a,) if axis is None else (a, axis)
    assert_like_numpy(ev(code, *args), np.unique(a, axis=axis))


def test_unique_errors():
    with pytest.raises(PhylanxValueError, match="out of bounds"):
        ev("unique([[1, 2]], 2)")


@pytest.mark.parametrize("base, exponent", [
    (np.arange(5.), np.float64(2)),
    (np.array([2, 3]), np.array([[0], [3]])),
    (np.float32([1, 4, 9]), np.float32(0.5)),
    (np.float32([1, 4, 9]), np.array([2., 2., 2.])),
    (np.array([2., 3.]), np.int64(-1)),
    (np.array([True, False]), np.array([2, 0])),
    (np.array([True, False]), np.array([True, True])),
    (np.int64(3), np.int64(4)),
    (np.float64(2.5), np.float64(-2)),
    (np.array([0.5, 2.]), np.array([-np.inf, np.inf])),
    (np.zeros((0, 2)), np.float64(3)),
])
def test_power_like_numpy(base, exponent):
    assert_like_numpy(ev("lambda(b, e, power(b, e))", base, exponent), np.power(base, exponent))


def test_power_warnings_and_specials_follow_numpy():
    base, exponent = np.array([-8., 0.]), np.array([1 / 3, -1.])
    with np.errstate(all="ignore"):
        expected = np.power(base, exponent)
        actual = ev("lambda(b, e, power(b, e))", base, exponent)
    assert_like_numpy(actual, expected)
    with pytest.warns(RuntimeWarning):
        np.power(base, exponent)
    with pytest.raises(Exception, match="divide by zero|invalid value"):
        # pytest turns NumPy's RuntimeWarning into an error; phylanx lets it surface too
        ev("lambda(b, e, power(b, e))", base, exponent)


def test_integer_to_negative_integer_power_raises_like_numpy():
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        np.power(np.array([2, 3]), -1)
    with pytest.raises(PhylanxValueError, match="negative integer exponent") as info:
        ev("power([2, 3], -1)")
    assert info.value.loc is not None


def test_power_dtype_variants():
    assert_like_numpy(ev("power__float([2, 3], -1)"), np.power(np.array([2., 3.]), -1.))
    assert_like_numpy(ev("power__int([2.7, 3.2], 2)"), np.power(np.array([2, 3]), 2))
    assert_like_numpy(ev("power__bool([0, 2], 0)"),
                      np.power(np.array([False, True]), False).astype(bool))


def test_power_rejects_strings():
    with pytest.raises(PhylanxTypeError, match="base of power must be a number"):
        ev('power("a", 2)')
