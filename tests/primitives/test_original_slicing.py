"""PhySL ``slice``/``store`` read their indices as the original (compat addendum A.1);
Python subscripts in ``@Phylanx`` code (``__subscript``) keep NumPy's meaning.

Expected values are the addendum's rules and examples, written out by hand."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import Phylanx
from phylanx.errors import PhylanxError, PhylanxIndexError

ev = phylanx.evaluate
V = np.array([10, 20, 30, 40])
M = np.arange(12).reshape(3, 4)


def sl(x, args):
    return ev(f"lambda(x, slice(x, {args}))", x)


@pytest.mark.parametrize("args, expected", [
    ("list(1, 4), 0", 20),                                   # chained: v[1:4][0]
    ("nil, hstack(list(3, 0))", [40, 10]),                   # nil first: the second index
    ("vstack(list(hstack(list(0, 1)), hstack(list(1, 0))))", [[10, 20], [20, 10]]),
    ("1.9", 20),                                             # floats truncate
    ("list(3)", 40),                                         # list(i) is the index i
    ("list(true)", [10, 20, 30, 40]),                        # list(bool) a boolean index
    ("list()", [10, 20, 30, 40]),
    ("list(nil)", [10, 20, 30, 40]),
    ("false", []),
    ("list(nil, nil, -1)", [40, 30, 20, 10]),
    ("list(-3, -1)", [20, 30]),
    ("list(2, 2)", []),
    ("list(hstack(list(1, 9)), 3)", [20, 30]),              # an array entry: its first element
])
def test_vector_forms(args, expected):
    out = sl(V, args)
    np.testing.assert_array_equal(out, expected)
    assert np.asarray(out).dtype == V.dtype or np.size(out) == 0


@pytest.mark.parametrize("args, message", [
    ("list(2, 9)", "not clamped"),                # NumPy would clamp to [30, 40]
    ("list(4, nil)", "not clamped"),
    ("nil, nil", "does not support 2d slicing"),
    ("1, 2, 3", "does not support 3d slicing"),
    ("list(0, 3, 0)", "step can not be zero"),
    ("list(1, 2, 3, 4)", "too many indices given"),
    ("hstack(list(true, false))", "boolean index did not match"),
    ('"a"', "unsupported indexing type"),
    ("7", "out of range"),
])
def test_vector_errors(args, message):
    with pytest.raises(PhylanxError, match=message):
        sl(V, args)


@pytest.mark.parametrize("args, expected", [
    ("1", M[1]),
    ("nil, 2", M[2]),                               # explicit nil + int: row 2
    ("nil, hstack(list(2, 0))", M[None, [2, 0]]),   # shape (1, 2, 4)
    ("hstack(list(2, 0)), nil", M[None, [2, 0]]),   # (1, k, ncols), NumPy gives (k, 1, ncols)
    ("list(nil, nil), 2", M[:, 2]),                 # a range: the column
    ("list(0, 2), hstack(list(1))", M[0:2, 1]),     # one-element array beside a range: scalar
    ("list(0, 2), hstack(list(1, 3))", M[0:2][:, [1, 3]]),
    ("hstack(list(0, 2)), hstack(list(1, 3))", M[[0, 2], [1, 3]]),
    ("-1, list(1, nil)", M[-1, 1:]),
    ("list(1), list(2)", M[1, 2]),
])
def test_matrix_forms(args, expected):
    out = sl(M, args)
    np.testing.assert_array_equal(out, expected)
    assert np.shape(out) == np.shape(expected)


def test_slice_column_and_row_and_page():
    np.testing.assert_array_equal(ev("lambda(x, slice_column(x, 2))", M), M[:, 2])
    np.testing.assert_array_equal(ev("lambda(x, slice_column(x, hstack(list(0, 3))))", M),
                                  M[:, [0, 3]])
    np.testing.assert_array_equal(ev("lambda(x, slice_row(x, 1))", M), M[1])
    t = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(ev("lambda(x, slice_row(x, 1))", t), t[1])   # = slice(t, 1)
    np.testing.assert_array_equal(ev("lambda(x, slice_page(x, 1))", t), t[1])
    np.testing.assert_array_equal(ev("lambda(x, tuple_slice(x, list(1, 2)))", M), M[1, 2])


def test_scalars_lists_and_dicts():
    assert ev("slice(5, 0)") == 5 and ev("slice(5, -1)") == 5 and ev("slice(5, list(0, 1))") == 5
    with pytest.raises(PhylanxIndexError, match="first element from a scalar"):
        ev("slice(5, 1)")
    assert ev("slice(list(1, 2, 3), -1)") == 3
    assert ev("slice(list(1, 2, 3), list(1, 3))") == [2, 3]
    assert ev("slice(list(1, 2, 3), hstack(list(2, 0)))") == 3   # an array: its first element
    assert ev('slice(dict(list(list("a", 1))), "a")') == 1
    assert ev('slice(dict(list(list("a", 1))), "b")') is None     # missing key: nil


def test_stores():
    a = "define(a, hstack(list(0, 0, 0, 0)))"
    assert ev(f"block({a}, store(slice(a, list(1, 3)), 2.7), a)").tolist() == [0, 2, 2, 0]
    mask = "hstack(list(true, false, true, false))"
    assert ev(f"block({a}, store(slice(a, {mask}), 5), a)").tolist() == [5, 0, 5, 0]
    # a value as long as the whole vector: its first k entries go to the k places
    assert ev(f"block({a}, store(slice(a, {mask}), hstack(list(7, 8, 9, 6))), a)").tolist() \
        == [7, 0, 8, 0]
    # on a vector only the first non-nil index is used
    assert ev(f"block({a}, store(slice(a, 1, 3), 9), a)").tolist() == [0, 9, 0, 0]
    assert ev(f"block({a}, store(slice(a, list(3)), 1), a)").tolist() == [0, 0, 0, 1]
    m = ev("lambda(m, block(store(slice_column(m, 1), 0), store(slice(m, nil, 2), 7), m))",
           M.copy())
    expected = M.copy()
    expected[:, 1] = 0
    expected[2] = 7
    np.testing.assert_array_equal(m, expected)
    with pytest.raises(PhylanxError, match="not clamped"):
        ev(f"block({a}, store(slice(a, list(2, 9)), 1), a)")


def test_python_subscripts_keep_numpys_meaning():
    @Phylanx
    def f(v, m):
        return v[2:100], m[:, 2], m[0:2][1], m[np.array([0, 2])]

    v, m = np.arange(4), np.arange(12).reshape(3, 4)
    for ours, numpy in zip(f(v, m), f.python(v, m)):
        np.testing.assert_array_equal(ours, numpy)
    assert "__subscript(" in f.get_physl_source() and "slice(" not in f.get_physl_source()


def test_stores_into_a_0d_value_replace_its_one_element():
    # A.1.9: one index selecting element 0; the value converted to the target's dtype
    assert ev("block(define(s, 5), store(slice(s, 0), 7), s)") == 7
    assert ev("block(define(s, 5), store(slice(s, -1), 2.7), s)") == 2
    assert ev("block(define(s, 5.5), store(slice(s, list(0, 1)), 2), s)") == 2.0
    assert ev("block(define(f, x, block(store(slice_row(x, nil), 3), x)), f(1))") == 3
    with pytest.raises(PhylanxIndexError, match="first element from a scalar"):
        ev("block(define(s, 5), store(slice(s, 1), 7), s)")
    with pytest.raises(PhylanxError, match="0-d number"):
        ev("block(define(s, 5), store(slice(s, 0), hstack(list(1, 2))), s)")


def test_stores_into_a_range_of_a_list():
    # A.1.9: a step-1 range takes a list of its length, or any other value fills it
    lst = "define(l, list(1, 2, 3))"
    assert ev(f"block({lst}, store(slice(l, list(0, 2)), list(7, 8)), l)") == [7, 8, 3]
    assert ev(f"block({lst}, store(slice(l, list(1, nil)), 5), l)") == [1, 5, 5]
    with pytest.raises(PhylanxError, match="different size"):
        ev(f"block({lst}, store(slice(l, list(0, 2)), list(7)), l)")


def test_slice_column_of_a_one_element_2d_index_array():
    # A.1.5: with an implicit nil row, a 2-d index array of one element gives (1, nrows, 1)
    got = ev("lambda(x, slice_column(x, vstack(list(hstack(list(1))))))", M)
    np.testing.assert_array_equal(got, M[:, 1].reshape(1, 3, 1))


def test_an_array_filling_a_list_range_is_copied_per_element():
    """A later store through one element must not change the others (they were one
    array object)."""
    got = ev("block(define(l, list(1, 2, 3)), store(slice(l, list(0, 2)), [7, 8]), "
             "define(e, slice(l, 0)), store(slice(e, 0), 99), l)")
    assert [np.asarray(v).tolist() for v in got] == [[99, 8], [7, 8], 3]


def test_parallel_map_over_an_array_follows_fmap():
    assert ev("parallel_map(lambda(x, x / 2), [1, 3])").tolist() == [0, 1]
    assert ev("parallel_map(lambda(x, x / 2), list(1, 3))") == [0.5, 1.5]
