"""Hand tests of the named logical primitives (booleans/logic.py) against NumPy:
``logical_not``, the n-ary ``logical_and/or/xor`` and ``__xor``, ``nonzero`` and ``where``."""
from __future__ import annotations

from functools import reduce

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxError

from .harness import assert_like_numpy, call

ev = phylanx.evaluate


@pytest.mark.parametrize("x", [
    np.array([1, 0, -2]), np.array([[0.0, np.nan], [-0.0, 0.5]], np.float32),
    np.array([True, False]), np.array([]), np.float64(0.0), np.int64(3),
    np.zeros((1, 2, 1, 2)), np.bool_(True),
])
def test_logical_not(x):
    assert_like_numpy(call("logical_not", x), np.logical_not(x))


def test_logical_not_of_nil_and_list():
    assert ev("logical_not(nil)") is np.True_
    assert_like_numpy(ev("logical_not(list(0, 2))"), np.array([True, False]))


NARY = {"logical_and": np.logical_and, "logical_or": np.logical_or,
        "logical_xor": np.logical_xor, "__xor": np.logical_xor}
NARY_ARGS = [
    (np.array([True, True, False, False]), np.array([True, False, True, False])),
    (np.array([[1], [0]]), np.array([2.5, 0.0, np.nan])),
    (np.array([1, 0, 3]), np.int64(1), np.array([0.0, 1.0, 1.0])),
    (np.bool_(True), np.bool_(False), np.bool_(True), np.bool_(True)),
    (np.zeros((0, 2), bool), np.array([True, False])),
    (np.ones((2, 1, 3), np.float32), np.zeros((1, 2, 2, 1), np.int64)),
]


@pytest.mark.parametrize("name", sorted(NARY))
@pytest.mark.parametrize("args", NARY_ARGS, ids=range(len(NARY_ARGS)))
def test_nary_logical(name, args):
    assert_like_numpy(call(name, *args), reduce(NARY[name], args))


def test_nary_logical_is_eager_and_checks_arity():
    # every operand is evaluated (no short-circuit unlike &&): the store runs
    assert ev("block(define(x, 0), logical_and(false, store(x, 1)), x)") == 1
    assert ev("block(define(x, 0), logical_or(true, store(x, 2)), x)") == 2
    for name in NARY:
        with pytest.raises(PhylanxError, match="at least two arguments"):
            ev(f"{name}([true, false])")
    with pytest.raises(PhylanxError):
        ev("logical_and([true, false], [true, false, true])")


@pytest.mark.parametrize("x", [
    np.array([0, 3, 0, -1]), np.array([[True, False], [False, True]]),
    np.array([[[0.0, np.nan], [1.5, 0.0]]]), np.zeros((2, 0)),
    np.arange(16).reshape(2, 2, 2, 2) % 3, np.array([], dtype=bool),
    np.array([0.0, -0.0]), np.array([1.0, 2.0], np.float32),
])
@pytest.mark.parametrize("name", ["nonzero", "where"])
def test_nonzero_and_where_of_condition(name, x):
    got = call(name, x)
    expected = np.nonzero(x)
    assert isinstance(got, list) and len(got) == len(expected)
    for g, e in zip(got, expected):
        assert_like_numpy(g, e)


def test_nonzero_errors():
    with pytest.raises(PhylanxError, match="at least 1 dimension"):
        ev("__npnonzero(3)")   # NumPy's spelling; nonzero(3) is the original's list([0])
    with pytest.raises(PhylanxError, match="operand has unsupported type"):
        ev("nonzero(\"abc\")")
    with pytest.raises(PhylanxError, match="must be a number or an array, got a string"):
        ev("__npnonzero(\"abc\")")


@pytest.mark.parametrize("c, x, y", [
    (np.array([True, False, True]), np.array([1, 2, 3]), np.float64(-1.0)),
    (np.array([[1], [0]]), np.array([[1.5, 2.5]], np.float32), np.float32(0.0)),
    (np.array([[1], [0]]), np.array([[1.5, 2.5]], np.float32),
     np.array([[0.0, 0.0]], np.float32)),
    (np.array([0.0, np.nan]), np.array([1, 2]), np.array([True, False])),
    (np.bool_(False), np.int64(1), np.int64(2)),
    (np.array([], dtype=bool), np.array([]), np.int64(0)),
    (np.ones((2, 1, 2, 1), bool), np.arange(4).reshape(2, 2), np.zeros((1, 1, 1, 2))),
])
def test_where_selects(c, x, y):
    assert_like_numpy(call("where", c, x, y), np.where(c, x, y))


# Python numbers (literals, numbers passed from Python) are weak scalars in NumPy's promotion:
# combined with a float32 array they keep it float32, in any argument position.
def test_where_keeps_python_numbers_weak():
    c = np.array([True, False])
    x = np.array([0.5, 3.0], dtype=np.float32)
    for args in [(c, 2, x), (c, x, 2.5), (c, 2, 3), (True, 2.5, 1)]:
        assert_like_numpy(call("where", *args), np.where(*args))


def test_where_errors():
    with pytest.raises(PhylanxError, match="1 argument .* or 3"):
        ev("where([true, false], [1, 2])")
    with pytest.raises(PhylanxError):
        ev("where([true, false], [1, 2, 3], 0)")
    with pytest.raises(PhylanxError, match="too many arguments"):
        ev("where(true, 1, 2, 3)")
