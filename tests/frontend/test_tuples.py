"""Tuples keep their Python meaning through the frontend, PhySL and the runtime.

Each test is one finding of issue 13 (a tuple read as a list, or as a PhySL range):
the decorated function must give what the undecorated one gives, kind of value
included (a tuple is a tuple at any depth, never a list).
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.errors import PhylanxError

from .helpers import check


def exact(got, expected) -> bool:
    """Equal values of the same kinds, recursively (tuple vs list, dict keys too)."""
    if type(got) is not type(expected):
        return False
    if isinstance(expected, (list, tuple)):
        return len(got) == len(expected) and all(map(exact, got, expected))
    if isinstance(expected, dict):
        return list(got) == list(expected) and all(map(exact, got, expected)) and \
            all(exact(got[k], expected[k]) for k in expected)
    if isinstance(expected, np.ndarray):
        return got.dtype == expected.dtype and np.array_equal(got, expected)
    return got == expected


@Phylanx
def element_through_stored_tuple(m):
    idx = (0, 1)
    return m[idx]


@Phylanx
def anti_diagonal(n):
    g = np.zeros((n, n))
    for i in range(n):
        p = (i, n - 1 - i)
        g[p] = 1.0
    return g


@Phylanx
def cell_of_grid(grid, pos):
    return grid[pos]


def test_a_tuple_in_a_variable_indexes_one_axis_each():
    m = np.arange(6.0).reshape(2, 3)
    assert check(element_through_stored_tuple, m) == 1.0
    check(anti_diagonal, 4)
    grid = np.arange(12).reshape(3, 4)
    assert check(cell_of_grid, grid, (2, 3)) == 11


@Phylanx
def rows_by_list(x, rows):
    picked = x[rows]
    x[rows] = -1.0
    return picked, x


def test_a_list_index_is_advanced_indexing_never_a_range():
    x = np.arange(12.0).reshape(4, 3)
    got = check(rows_by_list, x.copy(), [0, 2])
    assert got[0].shape == (2, 3) and np.array_equal(got[0][1], [6.0, 7.0, 8.0])


@Phylanx
def mixed_index(x, t):
    return x[t, 0], x[(1, 2)], x[1, t]


def test_a_tuple_among_other_indices_is_an_index_array():
    check(mixed_index, np.arange(12.0).reshape(3, 4), (0, 2))


@Phylanx
def report(epoch, loss):
    return "epoch %d loss %.3f" % (epoch, loss)  # noqa: UP031 - the finding itself


@Phylanx
def report_stored(epoch, loss):
    args = (epoch, loss)
    return "%d: %s" % args  # noqa: UP031 - a tuple in a variable


def test_percent_formatting_with_a_tuple():
    assert report(3, 0.5) == "epoch 3 loss 0.500"
    assert report_stored(3, 0.25) == report_stored.python(3, 0.25)


@Phylanx
def tuple_keys(a, b):
    d = {}
    d[(a, b)] = 1.0
    d[a, b + 1] = 2.0
    table = {(1, 2): "x"}
    return d, table[(1, 2)], (a, b) in d, d[a, b + 1]


def test_tuples_are_dictionary_keys():
    got = tuple_keys(1, 2)
    assert exact(got, tuple_keys.python(1, 2))
    assert list(got[0]) == [(1, 2), (1, 3)]


@Phylanx
def nested():
    return (1, (2, 3)), [4, (5, 6)], {"k": (7,)}


@Phylanx
def quotient(a, b):
    return divmod(a, b)


@Phylanx
def pairs(xs, ys):
    return list(zip(xs, ys)), list(enumerate(xs)), tuple(xs)


@Phylanx
def shape_in_list(x):
    return [x.shape]


def test_tuples_come_back_as_tuples_at_any_depth():
    got = nested()
    assert exact(got, nested.python())
    assert type(got[0][1]) is tuple and type(got[1]) is list and type(got[1][1]) is tuple
    assert type(got[2]["k"]) is tuple
    assert type(quotient(7, 2)) is tuple and quotient(7, 2) == (3, 1)
    z, e, t = pairs([1, 2], ["a", "b"])
    assert z == [(1, "a"), (2, "b")] and all(type(p) is tuple for p in z + e)
    assert e == [(0, 1), (1, 2)] and t == (1, 2) and type(t) is tuple
    assert shape_in_list(np.ones((2, 3))) == [(2, 3)]


@Phylanx
def assign_into_tuple(t):
    t[0] = 1
    return t


def test_a_tuple_cannot_be_changed():
    with pytest.raises(PhylanxError, match="tuple does not support item assignment"):
        assign_into_tuple((0, 1))
