"""Slices in a translated array loop: ``x[a:b]``, ``x[a:b:s, i]`` as NumPy's basic subscript.

The law: for an ``ndarray`` and bounds that are Python ints or literal nils, the generic
``__subscript`` kernel given slice lists computes NumPy's basic subscript with the
Python slices they stand for (``slicing._basic_indices``), so the generated code may
index directly (a NumPy integer too: test_loop_index_kinds.py); any other kind of
bound (a nil held in a variable, a float, a bool) goes to the generic kernel as before.
Checked bit for bit against the tree and against the undecorated function, over random
bounds (negative, out of range, steps), and for errors.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phylanx import Phylanx, config
from phylanx.compiler import scalar_loops
from phylanx.errors import PhylanxError


def windows(x, a, b, n):
    acc = np.zeros(x.shape[1])
    for i in range(n):
        acc = acc + np.sum(x[a:b], axis=0) * (i + 1.0)
        acc = acc - np.sum(x[a + i:], axis=0)
    return acc


def strided_columns(x, a, b, n):
    total = 0.0
    for i in range(n):
        total = total + np.sum(x[a:b:2, i % x.shape[1]]) + np.sum(x[::-1, :b])
    return total


def growing_prefix(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc + np.sum(x[:i])
    return acc


def decorated(fn, translate=True):
    for name in ("scalar_loops", "array_loops"):
        config.set(name, translate)
    config.set("fusion", False)
    try:
        dec = Phylanx(fn)
        dec._ensure_compiled()
    finally:
        for name in ("scalar_loops", "array_loops", "fusion"):
            config.reset(name)
    return dec


def sources(dec) -> str:
    return "".join(n.run.scalar_loop.source for n in dec._function.body.walk()
                   if n.primitive in ("for_each", "while") and scalar_loops.translated(n))


def agree(fn, *args):
    fast, tree = decorated(fn), decorated(fn, translate=False)
    got = fast(*args)
    np.testing.assert_array_equal(got, tree(*args))
    np.testing.assert_allclose(got, fn(*args), rtol=1e-12, atol=1e-12)
    return fast


def test_the_slices_are_indexed_directly():
    x = np.arange(24.0).reshape(6, 4)
    dec = agree(windows, x, 1, 4, 3)
    # x[a:b] as a Python slice of the array, the generic kernel for other kinds
    assert re.search(r"= v\d+\[v\d+:v\d+\] if .* else k\d+\(", sources(dec))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(rows=st.integers(1, 8), cols=st.integers(1, 4), a=st.integers(-10, 10),
       b=st.integers(-10, 10), n=st.integers(0, 4), seed=st.integers(0, 2**16))
def test_random_bounds_agree_with_the_tree_and_numpy(rows, cols, a, b, n, seed):
    x = np.random.default_rng(seed).normal(size=(rows, cols))
    agree(windows, x, a, b, n)
    agree(strided_columns, x, a, b, n)
    agree(growing_prefix, x, n + rows)


@pytest.mark.parametrize("a, b", [(None, 3), (1, np.int64(3)), (True, 2), (0, None)])
def test_other_kinds_of_bounds_give_what_the_tree_gives(a, b):
    """A nil held in a variable, a NumPy integer, a boolean: the value or the error the
    tree gives."""
    x = np.arange(12.0).reshape(4, 3)
    fast, tree = decorated(windows), decorated(windows, translate=False)
    try:
        expected = tree(x, a, b, 2)
    except PhylanxError as e:
        with pytest.raises(type(e)) as caught:
            fast(x, a, b, 2)
        assert str(caught.value) == str(e)
    else:
        np.testing.assert_array_equal(fast(x, a, b, 2), expected)


def test_a_float_bound_is_the_same_located_error():
    x = np.arange(12.0).reshape(4, 3)
    errors = []
    for translate in (True, False):
        with pytest.raises(PhylanxError) as caught:
            decorated(windows, translate)(x, 1.5, 3, 2)
        errors.append(caught.value)
    assert type(errors[0]) is type(errors[1]) and str(errors[0]) == str(errors[1])
    assert errors[0].loc is not None and errors[0].loc.line == errors[1].loc.line
