"""Constructs users of the original Phylanx wrote (issue 12, item 2): each decorated
function is compared with its undecorated Python original, in value and in type/dtype."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx, execution_tree

from .helpers import check

A = np.array([[0.5, -1.25, 2.0], [1.0, 0.375, -0.75]])
B = np.array([[4.0, 5.0], [6.0, 7.0]])


# --- iteration -----------------------------------------------------------------------

@Phylanx
def rows_of(a):
    out = []
    for row in a:
        out.append(row * 2)
    return out


@Phylanx
def row_sums(a):
    total = 0.0
    for row in a:
        total = total + np.sum(row)
    return total


@Phylanx
def keys_of(d):
    out = []
    for key in d:
        out.append(key)
    return out


@Phylanx
def values_by_key(d):
    total = 0
    for key in d:
        total = total + d[key]
    return total


def test_for_row_in_2d_array():
    check(rows_of, A, strict=True)
    check(row_sums, A, strict=True)


def test_for_key_in_dict():
    check(keys_of, {"a": 1, "b": 2, "c": 3}, strict=True)
    check(values_by_key, {"a": 1, "b": 2, "c": 3}, strict=True)


# --- list(...) ------------------------------------------------------------------------

@Phylanx
def list_of(x):
    return list(x)


@Phylanx
def list_of_range(n):
    return list(range(1, n, 2))


@Phylanx
def list_of_literal_tuple():
    return list((1, 2.5, 3))


@Phylanx
def list_of_literal_string():
    return list("abc")


@Phylanx
def list_of_literal_dict():
    return list({"x": 1, "y": 2})


@pytest.mark.parametrize("value", [
    np.array([1.0, 2.0, 3.0]),
    np.array([1, 2, 3], dtype=np.int64),
    A,
    {"a": 1, "b": 2},
    (1, 2, 3),
    "abc",
], ids=["array-1d", "array-1d-int", "array-2d", "dict", "tuple", "string"])
def test_list_of_argument(value):
    check(list_of, value, strict=True)


def test_list_of_range_and_literals():
    check(list_of_range, 8, strict=True)
    check(list_of_literal_tuple, strict=True)
    check(list_of_literal_string, strict=True)
    check(list_of_literal_dict, strict=True)


# --- print(None) ----------------------------------------------------------------------

@Phylanx
def prints_none():
    print(None)
    return 0


def test_print_none_matches_python(capsys):
    prints_none.python()
    expected = capsys.readouterr().out
    prints_none()
    assert capsys.readouterr().out == expected == "None\n"


# --- NumPy calls with keyword arguments ------------------------------------------------

@Phylanx
def np_eye():
    return np.eye(3, k=2)


@Phylanx
def np_full():
    return np.full((2, 2), fill_value=3.0)


@Phylanx
def np_argmax(a):
    return np.argmax(a, axis=1)


@Phylanx
def np_sum_keepdims(a):
    return np.sum(a, axis=0, keepdims=True)


@Phylanx
def np_linspace():
    return np.linspace(0, 1, num=5, endpoint=False)


@Phylanx
def np_arange_keywords():
    return np.arange(start=1, stop=7, step=2)


@Phylanx
def np_zeros_int():
    return np.zeros((2, 3), dtype=np.int64)


@Phylanx
def np_concatenate(a, b):
    return np.concatenate([a, b], axis=1)


@Phylanx
def np_clip_a_min(a):
    return np.clip(a, a_min=0, a_max=1)


@Phylanx
def np_clip_min(a):
    return np.clip(a, min=0, max=1)


@Phylanx
def np_round(a):
    return np.round(a, decimals=2)


@Phylanx
def np_mean_last(a):
    return np.mean(a, axis=-1)


@Phylanx
def np_std_ddof(a):
    return np.std(a, ddof=1)


@Phylanx
def np_where(a):
    return np.where(a > 0, a, 0)


@Phylanx
def np_cumsum(a):
    return np.cumsum(a, axis=0)


@Phylanx
def np_sort(a):
    return np.sort(a, axis=0)


@Phylanx
def np_max(a):
    return np.max(a, axis=0)


@Phylanx
def np_reshape(a):
    return np.reshape(a, (3, 2))


@Phylanx
def np_transpose(a):
    return np.transpose(a, axes=(1, 0))


@Phylanx
def np_repeat(a):
    return np.repeat(a, repeats=2, axis=0)


@Phylanx
def np_tile(a):
    return np.tile(a, reps=(1, 2))


NUMPY_CALLS = [
    (np_eye, ()),
    (np_full, ()),
    (np_argmax, (A,)),
    (np_sum_keepdims, (A,)),
    (np_linspace, ()),
    (np_arange_keywords, ()),
    (np_zeros_int, ()),
    (np_concatenate, (A[:, :2], B)),
    (np_clip_a_min, (A,)),
    (np_clip_min, (A,)),
    (np_round, (A / 3,)),
    (np_mean_last, (A,)),
    (np_std_ddof, (A,)),
    (np_where, (A,)),
    (np_cumsum, (A,)),
    (np_sort, (A,)),
    (np_max, (A,)),
    (np_reshape, (A,)),
    (np_transpose, (A,)),
    (np_repeat, (A,)),
    (np_tile, (A,)),
]


@pytest.mark.parametrize("fn,args", NUMPY_CALLS, ids=[f.__name__ for f, _ in NUMPY_CALLS])
def test_numpy_call_with_keywords(fn, args):
    check(fn, *args, strict=True)


# --- lambdas, returns, None defaults ----------------------------------------------------

@Phylanx
def lambda_called(x):
    square = lambda v: v * v  # noqa: E731
    return square(x) + square(2)


@Phylanx
def early_return_if_else(x):
    if x > 0:
        return x * 2
    else:
        return -x
    return 0


@Phylanx
def early_return_in_loop(a):
    for i in range(len(a)):
        if a[i] < 0:
            return i
    return -1


@Phylanx
def none_default(x, y=None):
    if y is None:
        return x + 1
    return x + y


def test_lambda_assigned_and_called():
    check(lambda_called, 3, strict=True)
    check(lambda_called, np.array([1.0, 2.0]), strict=True)


def test_several_returns():
    for x in (3, -4, 0):
        check(early_return_if_else, x, strict=True)
    check(early_return_in_loop, np.array([1.0, 2.0, -3.0, -4.0]), strict=True)
    check(early_return_in_loop, np.array([1.0, 2.0]), strict=True)


def test_none_defaults():
    check(none_default, 3, strict=True)
    check(none_default, 3, y=None, strict=True)
    check(none_default, 3, y=4, strict=True)
    check(none_default, np.array([1.0, 2.0]), np.array([0.5, 0.5]), strict=True)


# --- calls between decorated functions, compiler states ---------------------------------

@Phylanx
def caller_defined_first(x):
    return callee_defined_later(x) + 1


@Phylanx
def callee_defined_later(x):
    return x * 10


def test_decorated_calls_decorated_defined_later():
    check(caller_defined_first, 4, strict=True)
    check(caller_defined_first, np.array([1.0, 2.0]), strict=True)


def plain_twice(x):
    return x * 3 + 1


twice_a = Phylanx(plain_twice)
twice_b = Phylanx(plain_twice)
twice_other_state = Phylanx(compiler_state=execution_tree.compiler_state("item2"))(plain_twice)


def test_same_function_decorated_twice():
    for fn in (twice_a, twice_b, twice_other_state):
        check(fn, 2, strict=True)
        check(fn, np.array([1.0, 2.0]), strict=True)
    assert twice_a(5) == twice_b(5) == twice_other_state(5) == plain_twice(5)
