"""Index kinds a translated loop takes directly: NumPy integer scalars, ``None``, and
slices in stores.

The law: the generic ``__subscript``/``store`` kernels read a NumPy integer scalar index
as ``int(i)`` (``indexing.to_index``) and ``__newaxis()`` as NumPy's ``None``, so
``x[i]``, ``x[:, i]`` and ``x[:, None]`` with ``i`` an element of an integer array
(``emit[s, obs[t]]``, a table lookup) are NumPy's own subscript of the same indices: the
generated code may index directly instead of calling the kernels every iteration.  A
store into slices of an array of one axis or more (``u[1:-1] = e``, ``x[a:b, i] = v``)
is NumPy's assignment with the Python slices (``indexing.put``), as reads are.
Checked bit for bit against the tree and the undecorated function over every integer
dtype and random indices (negative and out of range: the same error as the tree).
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phylanx.errors import PhylanxError

from .test_loop_slices import decorated, sources

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
              np.uint64]


def lookups(table, codes, n):
    """Elements and columns of ``table`` picked by the integer array ``codes``."""
    acc = 0.0
    out = np.zeros(n)
    for t in range(n):
        c = codes[t % codes.shape[0]]
        acc = acc + table[0, c] + np.sum(table[:, c])
        out[t] = acc
    return out


def column_outer(score, m, n):
    """``score[:, None] + m`` reduced over its rows: a max-plus product per step."""
    for _ in range(n):
        score = np.max(score[:, None] + m, axis=0)
    return score


def stores_at_codes(codes, n):
    out = np.zeros((2, n))
    for t in range(n):
        out[1, codes[t % codes.shape[0]]] = t + 1.0
    return out


def heat_steps(u, r, a, b, n):
    u = u.copy()
    for _ in range(n):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u[a:b] = u[a:b] * 0.5
    return u


def column_stores(x, a, b, n):
    for i in range(n):
        x[a:b, i % x.shape[1]] = x[a:b, i % x.shape[1]] + 1.0
        x[::2, :b] = -x[::2, :b]
    return x


def same_as_tree(fn, *args):
    """The translated loop's value, or error, is the tree's and NumPy's."""
    fast, tree = decorated(fn), decorated(fn, translate=False)
    try:
        expected = tree(*args)
    except PhylanxError as e:
        with pytest.raises(type(e)) as caught:
            fast(*args)
        assert str(caught.value) == str(e)
        return fast
    got = fast(*args)
    np.testing.assert_array_equal(got, expected)
    want = fn(*args)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)
    return fast


def test_numpy_integer_indices_are_indexed_directly():
    table = np.arange(12.0).reshape(3, 4)
    codes = np.array([3, 0, 2], dtype=np.int64)
    fast = same_as_tree(lookups, table, codes, 5)
    text = sources(fast)
    # the element read and the column read index the array itself when the index is a
    # NumPy integer, not only a Python int
    assert re.search(r"v\d+\[0, (t|v)\d+\] if .*type\((t|v)\d+\) in _ints", text), text
    assert re.search(r"v\d+\[:, (t|v)\d+\] if .*type\((t|v)\d+\) in _ints", text), text


def test_newaxis_is_indexed_directly():
    score = np.array([0.5, -1.0, 2.0])
    m = np.arange(9.0).reshape(3, 3) - 4.0
    fast = same_as_tree(column_outer, score, m, 4)
    assert re.search(r"v\d+\[:, None\] if \(type\(v\d+\) is _nd and v\d+\.ndim\) else",
                     sources(fast))


def test_stores_at_numpy_integer_indices_are_direct():
    codes = np.array([1, 0, 2], dtype=np.int32)
    fast = same_as_tree(stores_at_codes, codes, 3)
    assert re.search(r"if .*type\((t|v)\d+\) in _ints: v\d+\[1, (t|v)\d+\] =", sources(fast))


def test_slice_stores_are_direct():
    fast = same_as_tree(heat_steps, np.linspace(0.0, 1.0, 9) ** 2, 0.25, 2, 5, 3)
    text = sources(fast)
    assert re.search(r"if (f\d+|\(type\(v\d+\) is _nd and v\d+\.ndim\)): "
                     r"v\d+\[1:-1\] = t\d+", text), text
    assert re.search(r"v\d+\[(t|v)\d+:(t|v)\d+\] = t\d+", text), text


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(rows=st.integers(1, 6), cols=st.integers(1, 4), a=st.integers(-8, 8),
       b=st.integers(-8, 8), n=st.integers(0, 4), seed=st.integers(0, 2**16),
       kind=st.sampled_from([int, np.int64, np.int32]))
def test_random_slice_stores_agree_with_the_tree_and_numpy(rows, cols, a, b, n, seed, kind):
    x = np.random.default_rng(seed).normal(size=(rows, cols))
    same_as_tree(column_stores, x, kind(a), kind(b), n)
    same_as_tree(heat_steps, x[:, 0].copy(), 0.25, kind(a), kind(b), n)


@pytest.mark.parametrize("target", [np.array(2.0), [1.0, 2.0, 3.0], (1.0, 2.0, 3.0)])
def test_slice_stores_into_other_kinds_give_what_the_tree_gives(target):
    """A 0-d array, a list, a tuple: the tree's store, its value or its located error."""
    same_as_tree(heat_steps, target, 0.25, 0, 1, 1)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(dtype=st.sampled_from(INT_DTYPES), rows=st.integers(1, 4), cols=st.integers(1, 5),
       codes=st.lists(st.integers(-7, 7), min_size=1, max_size=5), n=st.integers(0, 6),
       seed=st.integers(0, 2**16))
def test_random_integer_indices_agree_with_the_tree_and_numpy(dtype, rows, cols, codes, n,
                                                              seed):
    table = np.random.default_rng(seed).normal(size=(rows, cols))
    if np.dtype(dtype).kind == "u":
        codes = [abs(c) for c in codes]
    codes = np.array(codes, dtype=dtype)
    same_as_tree(lookups, table, codes, n)
    same_as_tree(stores_at_codes, codes, n)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(k=st.integers(1, 5), n=st.integers(0, 4), seed=st.integers(0, 2**16),
       dtype=st.sampled_from([np.float32, np.float64]))
def test_max_plus_steps_agree(k, n, seed, dtype):
    rng = np.random.default_rng(seed)
    same_as_tree(column_outer, rng.normal(size=k).astype(dtype),
                 rng.normal(size=(k, k)).astype(dtype), n)


@pytest.mark.parametrize("code", [np.bool_(True), 1.0, np.float64(1.0)])
def test_other_index_kinds_give_what_the_tree_gives(code):
    """A NumPy bool or a float stays with the generic kernels: their value or error."""
    table = np.arange(12.0).reshape(3, 4)
    codes = np.array([code, code], dtype=np.asarray(code).dtype)
    same_as_tree(lookups, table, codes, 2)


def first_of(seq, k, n):
    acc = 0.0
    for _ in range(n):
        acc = acc + seq[k]
    return acc


def put_at(seq, k, n):
    for _ in range(n):
        seq[k] = 9.0
    return seq


@pytest.mark.parametrize("translate", [True, False])
@pytest.mark.parametrize("seq", [[1.0, 2.0, 3.0], (1.0, 2.0, 3.0)])
def test_a_numpy_bool_does_not_index_a_list_or_tuple(seq, translate):
    """Python refuses ``seq[np.True_]`` (no ``__index__``: a TypeError); the generic
    kernels read it as ``int(True)``, the element at 1, a silent wrong answer."""
    with pytest.raises(TypeError):
        first_of(seq, np.True_, 1)
    with pytest.raises(PhylanxError, match="indices must be integers or slices"):
        decorated(first_of, translate)(seq, np.True_, 1)
    if type(seq) is list:
        with pytest.raises(TypeError):
            put_at(list(seq), np.True_, 1)
        with pytest.raises(PhylanxError, match="indices must be integers or slices"):
            decorated(put_at, translate)(list(seq), np.True_, 1)
    # a Python bool is an int to Python
    assert decorated(first_of, translate)(seq, True, 1) == first_of(seq, True, 1)


def bool_axis(x, k, n):
    out = x
    for _ in range(n):
        out = x[:, k]
    return out, x[k, :, None]


@pytest.mark.parametrize("translate", [True, False])
@pytest.mark.parametrize("k", [np.True_, np.False_, True, False])
def test_a_bool_scalar_index_is_a_new_axis_of_the_mask_not_an_axis_indexed(k, translate):
    """NumPy's ``x[:, True]`` of a 1-d ``x`` has shape (n, 1) (a 0-d mask adds an axis):
    a bool scalar is not one of the indices counted against ``x.ndim``."""
    x = np.arange(3.0)
    got, want = decorated(bool_axis, translate)(x, k, 2), bool_axis(x, k, 2)
    for g, w in zip(got, want):
        assert np.shape(g) == w.shape
        np.testing.assert_array_equal(g, w)
