"""Hand tests of ``__subscript`` (Python subscripts, NumPy meaning), slice_row, slice_column,
slice_page, tuple_slice and store into them.

NumPy subscripts (and Python indexing for lists and strings) are the oracle; PhySL's
``slice`` with the original's rules is tested in test_original_slicing.py.
"""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx.errors import (
    PhylanxError,
    PhylanxIndexError,
    PhylanxKeyError,
    PhylanxTypeError,
    PhylanxValueError,
)
from phylanx.primitives.matrixops.slicing import subscript as slice_

from .harness import assert_like_numpy

ev = phylanx.evaluate

M = np.arange(12.).reshape(3, 4)
T = np.arange(24).reshape(2, 3, 4)
Q = np.arange(48.).reshape(2, 2, 3, 4)


# (PhySL index arguments, the NumPy subscript they mean)
ARRAY_CASES = [
    ("1", np.s_[1]),
    ("-1", np.s_[-1]),
    ("nil", np.s_[:]),
    ("list(1, nil)", np.s_[1:]),
    ("list(nil, 2)", np.s_[:2]),
    ("list(-2, nil)", np.s_[-2:]),
    ("list(nil, nil, -1)", np.s_[::-1]),
    ("list(-1, 0, -1)", np.s_[-1:0:-1]),
    ("list(nil, 0, -1)", np.s_[:0:-1]),
    ("list(2, nil, -2)", np.s_[2::-2]),
    ("list(0, 3, 2)", np.s_[0:3:2]),
    ("list(5, 10)", np.s_[5:10]),           # out-of-range slice bounds clip, as in NumPy
    ("list(2, 1)", np.s_[2:1]),             # empty selection
    ("1, -2", np.s_[1, -2]),
    ("nil, 2", np.s_[:, 2]),
    ("nil, list(nil, nil, -1)", np.s_[:, ::-1]),
    ("list(nil, nil, -1), list(3, 0, -2)", np.s_[::-1, 3:0:-2]),
    ("-1, list(1, -1)", np.s_[-1, 1:-1]),
    ("list(1, 3), list(nil, 2)", np.s_[1:3, :2]),
]


@pytest.mark.parametrize("physl, index", ARRAY_CASES, ids=[c[0] for c in ARRAY_CASES])
def test_matrix_basic_indexing(physl, index):
    assert_like_numpy(ev(f"lambda(x, __subscript(x, {physl}))", M), M[index])


@pytest.mark.parametrize("physl, index", [
    ("1", np.s_[1]), ("-1, 2", np.s_[-1, 2]), ("0, -1, -1", np.s_[0, -1, -1]),
    ("nil, list(nil, nil, -1), 1", np.s_[:, ::-1, 1]), ("list(nil, nil, -1), nil, list(1, 3)",
                                                       np.s_[::-1, :, 1:3]),
])
def test_tensor_indexing(physl, index):
    assert_like_numpy(ev(f"lambda(x, __subscript(x, {physl}))", T), T[index])


def test_vector_indexing_returns_numpy_scalars():
    v = np.array([1.5, 2.5, 3.5])
    out = ev("lambda(v, __subscript(v, -1))", v)
    assert type(out) is np.float64 and out == 3.5
    assert_like_numpy(ev("lambda(v, __subscript(v, list(nil, nil, -2)))", v), v[::-2])


def test_float32_and_bool_keep_their_dtype():
    f = np.float32([[1, 2], [3, 4]])
    assert_like_numpy(ev("lambda(x, __subscript(x, nil, 1))", f), f[:, 1])
    assert type(ev("lambda(x, __subscript(x, 1, 1))", f)) is np.float32
    b = np.array([True, False, True])
    assert_like_numpy(ev("lambda(x, __subscript(x, list(nil, nil, -1)))", b), b[::-1])


@pytest.mark.parametrize("index_args, index", [
    ((np.array([2, 0, 0]),), np.s_[[2, 0, 0]]),
    ((np.array([-1, 1]),), np.s_[[-1, 1]]),
    ((np.array([True, False, True]),), np.s_[[True, False, True]]),
    ((M > 4,), np.s_[M > 4]),
    ((None, np.array([3, 0])), np.s_[:, [3, 0]]),
    ((np.array([0, 2]), np.array([1, 3])), np.s_[[0, 2], [1, 3]]),
    ((np.array([[0], [2]]), np.array([1, 3])), np.s_[[[0], [2]], [1, 3]]),
    ((1, np.array([False, True, True, False])), np.s_[1, [False, True, True, False]]),
    ((np.array([], dtype=np.int64),), np.s_[np.array([], dtype=np.int64)]),
])
def test_advanced_indexing(index_args, index):
    names = [f"i{k}" for k in range(len(index_args))]
    code = f"lambda(x, {', '.join(names)}, __subscript(x, {', '.join(names)}))"
    assert_like_numpy(ev(code, M, *index_args), M[index])


def test_advanced_indexing_literal_arrays_in_physl():
    assert_like_numpy(ev("lambda(x, __subscript(x, [2, 0], nil))", M), M[[2, 0], :])
    assert_like_numpy(ev("lambda(x, __subscript(x, nil, [true, false, false, true]))", M),
                      M[:, [True, False, False, True]])


def test_python_range_value_is_a_slice():
    # a lazy range value (not the PhySL range primitive, which builds a list) means start:stop:step
    assert_like_numpy(slice_(M, range(2, 0, -1)), M[2:0:-1])


@pytest.mark.parametrize("physl, index", [
    ("0", np.s_[0]), ("-1", np.s_[-1]), ("list(1, nil)", np.s_[1:]),
    ("list(nil, nil, -1)", np.s_[::-1]), ("list(-1, 0, -2)", np.s_[-1:0:-2]), ("nil", np.s_[:]),
])
def test_lists_index_like_python(physl, index):
    items = [np.int64(10), np.int64(20), np.int64(30), np.int64(40)]
    assert ev(f"__subscript(list(10, 20, 30, 40), {physl})") == items[index]


def test_lists_with_index_arrays_and_nested_indices():
    assert ev("__subscript(list(10, 20, 30), [2, 0])") == [30, 10]
    assert ev("__subscript(list(10, 20, 30), [true, false, true])") == [10, 30]
    nested = "list(list(1, 2, 3), list(4, 5, 6))"
    assert ev(f"__subscript(__subscript({nested}, 1), -1)") == 6          # l[1][-1]
    # l[1, -1] on a list is Python's TypeError, never silently l[1][-1]
    for kind, value in (("list", nested), ("tuple", "tuple(1, 2)"), ("range", "range(3)")):
        with pytest.raises(PhylanxTypeError, match=f"{kind} indices must be integers"):
            ev(f"__subscript({value}, 1, -1)")
    with pytest.raises(TypeError, match="string indices must be integers"):
        ev('__subscript("ab", 0, 0)')
    item = ev("__subscript(list(1.5, 2.5), 0)")
    assert type(item) is float   # the element as it is in the list, as in Python


def test_strings_index_like_python():
    s = "phylanx"
    assert ev(f'__subscript("{s}", 0)') == s[0]
    assert ev(f'__subscript("{s}", -1)') == s[-1]
    assert ev(f'__subscript("{s}", list(nil, nil, -1))') == s[::-1]
    assert ev(f'__subscript("{s}", list(1, 5, 2))') == s[1:5:2]
    assert ev(f'__subscript("{s}", [0, 2])') == s[0] + s[2]


def test_dictionaries():
    d = 'dict(list(list("a", 1), list("b", [4, 5, 6])))'
    assert ev(f'__subscript({d}, "a")') == 1
    assert ev(f'__subscript(__subscript({d}, "b"), -1)') == 6
    # several indices on a dictionary are one tuple key, as Python's d[a, b]
    pairs = 'dict(list(list(tuple("b", -1), 7)))'
    assert ev(f'__subscript({pairs}, "b", -1)') == 7
    assert ev(f'__subscript({pairs}, tuple("b", -1))') == 7
    with pytest.raises(PhylanxKeyError, match="key 'c' not found"):
        ev(f'__subscript({d}, "c")')
    assert ev("lambda(d, __subscript(d, 3))", {3: "three"}) == "three"


def test_tuple_slice_is_slice_with_a_list_of_indices():
    assert_like_numpy(ev("lambda(x, tuple_slice(x, list(-1, list(nil, nil, -1))))", M),
                      M[-1, ::-1])
    assert_like_numpy(ev("lambda(x, tuple_slice(x, list(1, 2, 3)))", T), T[1, 2, 3])
    assert_like_numpy(ev("lambda(x, tuple_slice(x, 1))", M), M[1])


# -- store into slices ------------------------------------------------------------------

STORE_CASES = [
    ("__subscript(x, 1)", "[7, 8, 9, 10]", np.s_[1], [7, 8, 9, 10]),
    ("__subscript(x, -1, -1)", "42", np.s_[-1, -1], 42),
    ("__subscript(x, nil, list(nil, nil, -1))", "[1, 2, 3, 4]", np.s_[:, ::-1], [1, 2, 3, 4]),
    ("__subscript(x, list(-1, nil, -2), 0)", "[5, 6]", np.s_[-1::-2, 0], [5, 6]),
    ("__subscript(x, [2, 0])", "0", np.s_[[2, 0]], 0),
    ("__subscript(x, [true, false, true], 1)", "[-1, -2]", np.s_[[True, False, True], 1], [-1, -2]),
    ("slice_row(x, 0)", "[1, 1, 1, 1]", np.s_[0], [1, 1, 1, 1]),
    ("slice_row(x, list(nil, nil, -1))", "[[0, 1, 2, 3]]", np.s_[::-1], [[0, 1, 2, 3]]),
    ("slice_column(x, -1)", "[9, 8, 7]", np.s_[:, -1], [9, 8, 7]),
    ("slice_column(x, list(1, 3))", "0", np.s_[:, 1:3], 0),
    ("tuple_slice(x, list(1, 2))", "99", np.s_[1, 2], 99),
]


@pytest.mark.parametrize("target, value, index, py_value", STORE_CASES,
                         ids=[c[0] for c in STORE_CASES])
def test_store_into_slices(target, value, index, py_value):
    start = "[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]"
    out = ev(f"block(define(x, {start}), store({target}, {value}), x)")
    expected = np.arange(12).reshape(3, 4)
    expected[index] = py_value
    assert_like_numpy(out, expected)


def test_store_into_list_and_dict():
    assert ev("block(define(xs, list(1, 2, 3)), store(__subscript(xs, -1), 9), xs)") == [1, 2, 9]
    code = ("block(define(xs, list(1, 2, 3, 4)), "
            "store(__subscript(xs, list(nil, nil, -2)), [7, 8]), xs)")
    expected = [1, 2, 3, 4]
    expected[::-2] = [7, 8]
    assert ev(code) == expected
    d = ev('block(define(d, dict(list(list("a", 1)))), store(__subscript(d, "b"), 2), d)')
    assert d == {"a": 1, "b": 2}


def test_store_through_python_argument_changes_it_like_numpy():
    x = np.zeros(4)
    ev("lambda(x, store(__subscript(x, list(nil, nil, 2)), 1.5))", x)
    np.testing.assert_array_equal(x, [1.5, 0, 1.5, 0])


# -- errors --------------------------------------------------------------------------------

@pytest.mark.parametrize("code, error, message", [
    ("__subscript([1, 2, 3], 3)", PhylanxIndexError, "out of bounds"),
    ("__subscript([1, 2, 3], -4)", PhylanxIndexError, "out of bounds"),
    ("__subscript([[1, 2], [3, 4]], 0, 2)", PhylanxIndexError, "out of bounds"),
    ("__subscript([[1, 2], [3, 4]], [0, 5])", PhylanxIndexError, "out of bounds"),
    ("__subscript([1, 2, 3], [true, false])", PhylanxIndexError, "boolean index"),
    ("__subscript([1, 2, 3], 0, 0)", PhylanxIndexError, "too many indices"),
    ("__subscript([1, 2, 3], list(0, 3, 0))", PhylanxValueError, "step cannot be zero"),
    ("__subscript([1, 2, 3], list(0, 1, 2, 3))", PhylanxValueError, "1 to 3 elements"),
    ("__subscript([1, 2, 3], \"a\")", PhylanxTypeError, "cannot index with a string"),
    ("__subscript([1, 2, 3], list(0.5, 2))", PhylanxTypeError, "slice indices must be integers"),
    ("__subscript([1.0, 2.0], [0.5])", PhylanxIndexError, "must be of integer"),
    ("__subscript(list(1, 2), 2)", PhylanxIndexError, "out of bounds for a list of length 2"),
    ("__subscript(list(1, 2), [0, 2])", PhylanxIndexError, "out of bounds"),
    ("__subscript(\"ab\", 5)", PhylanxIndexError, "out of bounds"),
    ("__subscript(5, 0)", PhylanxTypeError, "not subscriptable"),
    ("block(define(x, [1, 2]), store(__subscript(x, 2), 0))", PhylanxIndexError, "out of bounds"),
])
def test_errors_are_located(code, error, message):
    with pytest.raises(error, match=message) as info:
        ev(code)
    assert info.value.loc is not None and info.value.loc.line == 1


def test_out_of_range_error_points_at_the_slice():
    code = "block(\n  define(x, [1, 2, 3]),\n  __subscript(x, 7)\n)"
    with pytest.raises(PhylanxError) as info:
        ev(code)
    assert info.value.loc.line == 3 and info.value.primitive == "__subscript"
