"""Corners of Python semantics, each decorated function against its ``.python``.

Augmented assignment to subscripts (evaluated once, arrays changed in place), ``bool()``
of containers, and built-in exceptions raised inside a decorated function keep their
Python class so ``except KeyError`` around the call works.
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx

from .helpers import check

EVALUATED: list = []


def position(i):
    EVALUATED.append(i)
    return i


@Phylanx
def bump_at_computed_index(items, i):
    items[position(i)] += 10
    return items


@pytest.mark.parametrize("items", [[1, 2, 3], np.array([1.0, 2.0, 3.0])])
def test_augmented_subscript_evaluates_its_index_once(items):
    EVALUATED.clear()
    want = bump_at_computed_index.python(items.copy(), -1)
    assert EVALUATED == [-1]
    EVALUATED.clear()
    got = bump_at_computed_index(items, -1)
    assert EVALUATED == [-1]
    assert np.array_equal(got, want)


@Phylanx
def bump_array_kept_in_a_list(a, m):
    arrays = [a, m]
    arrays[0] += 1
    arrays[1][0] *= 2   # a row of m, changed in place
    return a, m


def test_augmented_subscript_changes_an_array_element_in_place():
    a, m = np.zeros(2), np.ones((2, 2))
    got = check(bump_array_kept_in_a_list, a, m)
    assert got[0] is a and np.array_equal(a, [1.0, 1.0]) and np.array_equal(m[0], [2.0, 2.0])


@Phylanx
def truth_of_containers(items, mapping, text):
    return bool(items), bool(mapping), bool(text), bool([]), bool([0]), bool({}), bool("")


@pytest.mark.parametrize("items, mapping, text", [([], {}, ""), ([0.0], {"a": 0}, "x"),
                                                  ([1, 2], {}, "no")])
def test_bool_of_lists_dicts_and_strings_is_python_truth(items, mapping, text):
    check(truth_of_containers, items, mapping, text)


@Phylanx
def raising(kind):
    if kind == "key":
        raise KeyError("missing")
    if kind == "index":
        raise IndexError("too far")
    if kind == "zero":
        raise ZeroDivisionError("divide")
    if kind == "runtime":
        raise RuntimeError("failed")
    if kind == "not_implemented":
        raise NotImplementedError("later")
    raise ValueError("bad")


@pytest.mark.parametrize("kind, cls", [("key", KeyError), ("index", IndexError),
                                       ("zero", ZeroDivisionError), ("runtime", RuntimeError),
                                       ("not_implemented", NotImplementedError),
                                       ("other", ValueError)])
def test_raised_builtin_exceptions_keep_their_python_class(kind, cls):
    with pytest.raises(cls):
        raising.python(kind)
    with pytest.raises(cls, match="raising|missing|too far|divide|failed|later|bad"):
        raising(kind)


@Phylanx
def chained_comparison(x):
    return 0 < position(x) < 10, 5 < position(x) < position(-x) < 100


@pytest.mark.parametrize("x", [3, 7, 20])
def test_chained_comparison_evaluates_each_operand_once_and_stops_early(x):
    EVALUATED.clear()
    want = chained_comparison.python(x)
    evaluated_by_python = list(EVALUATED)
    EVALUATED.clear()
    assert chained_comparison(x) == want
    assert EVALUATED == evaluated_by_python


@Phylanx
def keywords_out_of_order(x):
    return np.clip(x, a_max=position(3), a_min=position(1)), np.sum(x, keepdims=True, axis=0)


def test_numpy_keywords_are_evaluated_in_the_order_written():
    EVALUATED.clear()
    check(keywords_out_of_order, np.arange(6.0))
    assert EVALUATED == [3, 1, 3, 1]   # the Python original, then the decorated function


@Phylanx
def _returned(items):
    return items


@Phylanx
def _literal():
    return [1.0, [2, 3], (4, np.float32(5))]


@Phylanx
def _accumulated(x, acc=[]):  # noqa: B006 - Python's shared default is the point
    acc.append(x)
    return acc


def _python_accumulated(x, acc=[]):  # noqa: B006
    acc.append(x)
    return acc


def test_a_returned_list_is_the_object_python_returns():
    # to_python copied every list a call returned: a list passed through came back a
    # new one, and a default list's growth was lost between calls
    items = [1.0, np.float64(2.0), "a", None, np.ones(2)]
    assert _returned(items) is items
    first, second = _literal(), _literal()
    assert first == second == _literal.python() and first is not second
    first[1].append(9)                      # a literal is built by each call, as in Python
    assert _literal()[1] == [2, 3]
    got = [_accumulated(k) for k in (1, 2)]
    want = [_python_accumulated(k) for k in (1, 2)]
    assert got == want and (got[0] is got[1]) == (want[0] is want[1])
    with_range = _returned([range(2), 1.0])   # a converted item: a new list, the rest kept
    assert with_range == [[0, 1], 1.0] and type(with_range[0]) is list
