"""Operators follow NumPy broadcasting and promotion (a hypothesis law)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from phylanx import execution_tree as et
from phylanx.errors import PhylanxError

STATE = et.compiler_state("operators")
OPS = {
    "+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide, "%": np.mod,
    "==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal,
    ">": np.greater, ">=": np.greater_equal,
}
DTYPES = st.sampled_from([np.bool_, np.int64, np.float32, np.float64])


@st.composite
def operand_pairs(draw):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=3))
    arrays = []
    for shape in shapes.input_shapes:
        dtype = draw(DTYPES)
        elements = (st.integers(-50, 50) if dtype is np.int64 else
                    st.booleans() if dtype is np.bool_ else
                    st.floats(-1e3, 1e3, width=32 if dtype is np.float32 else 64))
        arrays.append(draw(hnp.arrays(dtype, shape, elements=elements)))
    return arrays


@given(operand_pairs(), st.sampled_from(sorted(OPS)))
@settings(max_examples=300, deadline=None)
def test_binary_operators_match_numpy(pair, op):
    a, b = pair
    with np.errstate(all="ignore"):
        try:
            expected = OPS[op](a, b)
        except TypeError:  # e.g. bool - bool: NumPy refuses, so must we
            with pytest.raises(PhylanxError):
                et.eval(STATE, f"lambda(a, b, a {op} b)", a, b)
            return
        got = et.eval(STATE, f"lambda(a, b, a {op} b)", a, b)
    got = np.asarray(got)
    assert got.shape == expected.shape
    assert got.dtype == expected.dtype, (op, a.dtype, b.dtype)
    np.testing.assert_array_equal(got, expected)


@given(hnp.array_shapes(min_dims=0, max_dims=4, max_side=3), DTYPES, st.integers(0, 2**31))
@settings(max_examples=100, deadline=None)
def test_unary_minus_and_not(shape, dtype, seed):
    a = np.random.default_rng(seed).integers(-9, 9, size=shape).astype(dtype)
    with np.errstate(all="ignore"):
        if a.dtype == np.bool_:
            with pytest.raises(PhylanxError):
                et.eval(STATE, "lambda(a, -a)", a)
        else:
            np.testing.assert_array_equal(et.eval(STATE, "lambda(a, -a)", a), -a)
        np.testing.assert_array_equal(et.eval(STATE, "lambda(a, !a)", a), np.logical_not(a))
