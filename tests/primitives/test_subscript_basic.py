"""``__subscript`` of an array by Python ints, nils and slice lists (NumPy's basic
indexing, the kernel's direct path) against NumPy's own subscript: values, dtypes,
views, NumPy scalars and the errors of an index out of range.  A guard of
``slicing._basic_indices`` (it passes on the code before it: same results, less work).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx.errors import PhylanxError
from phylanx.primitives.matrixops.slicing import subscript

_bound = st.one_of(st.none(), st.integers(-7, 7))


def _index():
    """(the index as the frontend passes it, the same as a Python index)."""
    whole = st.just((None, slice(None)))
    integer = st.integers(-6, 5).map(lambda i: (i, i))
    pair = st.tuples(_bound, _bound).map(lambda b: ([b[0], b[1]], slice(b[0], b[1])))
    triple = st.tuples(_bound, _bound, st.one_of(st.none(), st.integers(-3, 3).filter(bool)))
    stepped = triple.map(lambda b: ([b[0], b[1], b[2]], slice(*b)))
    return st.one_of(whole, integer, pair, stepped)


@settings(max_examples=200, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3),
       picks=st.lists(_index(), min_size=1, max_size=3),
       dtype=st.sampled_from([np.float64, np.float32, np.int16]))
def test_basic_indices_are_numpys(shape, picks, dtype):
    x = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    picks = picks[:x.ndim]
    given_ = [p[0] for p in picks]
    python = tuple(p[1] for p in picks)
    try:
        expected = x[python]
    except IndexError:
        with pytest.raises(IndexError) as caught:
            subscript(x, *given_)
        assert isinstance(caught.value, (IndexError, PhylanxError))
        return
    got = subscript(x, *given_)
    assert type(got) is type(expected)
    if isinstance(expected, np.ndarray):
        assert got.dtype == expected.dtype
        assert got.size == 0 or np.shares_memory(got, x)   # a view, as NumPy's
        np.testing.assert_array_equal(got, expected)
    else:
        assert got == expected


def test_a_zero_step_and_float_bounds_take_the_general_path():
    x = np.arange(6.0)
    with pytest.raises(PhylanxError):
        subscript(x, [0, 4, 0])
    with pytest.raises(TypeError):
        subscript(x, [0.0, 4])
