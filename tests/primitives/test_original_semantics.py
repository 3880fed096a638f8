"""PhySL primitives that follow the original where it and NumPy disagree (compat addendum
A.2, A.3), parametrised over the addendum's rules and examples.

Each case is ``(rule, PhySL code, expected)``; ``expected`` is a value compared strictly
(exact dtype) or an exception type with a message pattern.  The Python frontend keeps
NumPy's meaning for the NumPy spelling; those twins are checked in
``test_original_semantics_frontend`` at the end of this module.
"""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxError

from .harness import assert_same

F, I, B = np.float64, np.int64, np.bool_


def _cases(*rows):
    return [pytest.param(code, expected, id=f"{rule}: {code}"[:90]) for rule, code, expected
            in rows]


def _check(code, expected):
    if isinstance(expected, tuple) and isinstance(expected[0], type):
        with pytest.raises(expected[0], match=expected[1]):
            phylanx.evaluate(code)
        return
    assert_same(phylanx.evaluate(code), expected)


ERR = PhylanxError

LOGIC_AND_LISTS = _cases(
    ("A.3.7 element-wise", "__and([1, 0, 2], [1, 1, 0])", np.array([True, False, False])),
    ("A.3.7 broadcast", "__or([[1, 0], [0, 0]], [0, 1])", np.array([[True, True], [False, True]])),
    ("A.3.7 mixed dtypes", "[1, 0] && [0.5, 0.]", np.array([True, False])),
    ("A.3.7 0-d gives a bool scalar", "__and(1, 2)", B(True)),
    ("A.3.7 nil with nil", "__and(nil, nil)", B(False)),
    ("A.3.7 nil with nil", "__or(nil, nil)", B(False)),
    ("A.3.7 exactly two operands", "__and(1, 2, 3)", (ERR, "exactly two operands")),
    ("A.3.7 exactly two operands", "__or(0, 0, 1)", (ERR, "exactly two operands")),
    ("A.3.7 infix chains nest", "true && true && false", False),
    ("A.3.7 size mismatch", "[1, 0] && [1, 0, 1]", (ERR, "broadcast")),
    ("A.3.8 prepend takes the value first", "prepend(1, list(2, 3))", [1, 2, 3]),
    ("A.3.8 a list value stays one element", "prepend(list(1), list(2))", [[1], 2]),
    ("A.3.8 the second operand must be a list", "prepend(list(2, 3), 1)",
     (ERR, "second argument must be a list")),
    ("A.3.8 append takes the list first", "append(list(2, 3), 1)", [2, 3, 1]),
    ("A.3.8 the input list is unchanged",
     "block(define(xs, list(2)), define(ys, prepend(1, xs)), list(xs, ys))", [[2], [1, 2]]),
    ("A.3.6 constant is float64 by default", "constant(1)", F(1.0)),
    ("A.3.6 constant is float64 by default", "constant(1, 3)", np.ones(3)),
    ("A.3.6 constant of a bool is float64", "constant(true, list(2))", np.ones(2)),
    ("A.3.6 constant with a shape list", "constant(2, list(2, 0))", np.zeros((2, 0))),
    ("A.3.6 constant with an int dtype", "constant(2, list(2), \"int\")", np.array([2, 2])),
    ("A.3.6 full takes the value's dtype", "full(3, 1)", np.array([1, 1, 1])),
    ("A.3.6 full_like takes a's dtype", "full_like([1., 2.], 3)", np.array([3.0, 3.0])),
)


@pytest.mark.parametrize("code, expected", LOGIC_AND_LISTS)
def test_logic_lists_constant(code, expected):
    _check(code, expected)


def _int4(shape):
    return f"constant(1, list({', '.join(map(str, shape))}), \"int\")"


KERAS_DTYPES = _cases(
    ("A.2 conv1d reads float64", f"conv1d({_int4((1, 3, 1))}, {_int4((1, 1, 1))})",
     np.ones((1, 3, 1))),
    ("A.2 conv2d reads float64", f"conv2d({_int4((1, 2, 2, 1))}, {_int4((1, 1, 1, 1))})",
     np.ones((1, 2, 2, 1))),
    ("A.2 separable_conv1d reads float64",
     f"separable_conv1d({_int4((1, 3, 1))}, {_int4((1, 1, 1))}, {_int4((1, 1, 1))})",
     np.ones((1, 3, 1))),
    ("A.2 max_pool2d reads float64", f"max_pool2d({_int4((1, 2, 2, 1))}, list(2, 2))",
     np.ones((1, 1, 1, 1))),
    ("A.2 avg_pool2d reads float64", f"avg_pool2d({_int4((1, 2, 2, 1))}, list(2, 2))",
     np.ones((1, 1, 1, 1))),
    ("A.2 max_pool3d of a 3-d input", f"max_pool3d({_int4((2, 2, 2))}, list(2, 2, 2))",
     np.ones((1, 1, 1))),
    ("A.2 one_hot is float64 0/1", "one_hot([0, 2], 3)", np.array([[1.0, 0, 0], [0, 0, 1]])),
    ("A.2 one_hot of a 0-d index", "one_hot(1, 2)", np.array([0.0, 1.0])),
    ("A.2 one_hot: an index >= C gives zeros", "one_hot([5], 2)", np.zeros((1, 2))),
    ("A.2 one_hot takes int64 indices only", "one_hot([0.], 2)", (ERR, "integer value type")),
    ("A.2 one_hot takes int64 indices only", "one_hot([true], 2)", (ERR, "integer value type")),
    ("A.2 switch is float64", "switch([true, false], [1, 2], [3, 4])", np.array([1.0, 4.0])),
    ("A.2 switch of 0-d values is float64", "switch(true, 1, 2)", F(1.0)),
    ("A.2 switch: a lower-rank condition aligns with the leading axes",
     "switch([true, false], [[1, 2], [3, 4]], [[5, 6], [7, 8]])",
     np.array([[1.0, 2.0], [7.0, 8.0]])),
    ("A.2 bias_add reads float64", "bias_add([[1, 2]], [1, 1])", np.array([[2.0, 3.0]])),
    ("A.2 relu is always float64", "relu([-3, 2])", np.array([0.0, 2.0])),
    ("A.2 relu of 1-d int with a leak", "relu([-3], 0.5)", np.array([-1.5])),
    ("A.2 spatial_2d_padding reads float64", f"spatial_2d_padding({_int4((1, 1, 1, 1))})",
     np.pad(np.ones((1, 1, 1, 1)), [(0, 0), (1, 1), (1, 1), (0, 0)])),
    ("A.2 resize_images nearest keeps the dtype",
     f"resize_images({_int4((1, 1, 1, 1))}, 2, 2, \"nearest\")", np.ones((1, 2, 2, 1), I)),
    ("A.2 resize_images bilinear is float64",
     f"resize_images({_int4((1, 1, 1, 1))}, 2, 2, \"bilinear\")", np.ones((1, 2, 2, 1))),
    ("A.2 batch_dot keeps int64", "batch_dot([[1, 2]], [[3, 4]])", np.array([[11]])),
)


@pytest.mark.parametrize("code, expected", KERAS_DTYPES)
def test_keras_support_dtypes(code, expected):
    _check(code, expected)


PAD = _cases(
    ("A.3.5 an int on every axis", "pad([1, 2], 1, \"constant\")", np.array([0, 1, 2, 0])),
    ("A.3.5 list(w)", "pad([1, 2], list(1), \"constant\")", np.array([0, 1, 2, 0])),
    ("A.3.5 list(w, nil) is (w, w)", "pad([1, 2], list(1, nil), \"constant\")",
     np.array([0, 1, 2, 0])),
    ("A.3.5 list(w, nil) on a matrix", "pad([[1]], list(1, nil), \"constant\")",
     np.pad([[1]], 1)),
    ("A.3.5 list(b, e) on every axis", "pad([[1, 2]], list(1, 2), \"constant\")",
     np.pad([[1, 2]], (1, 2))),
    ("A.3.5 list(list(b, e), nil)", "pad([1, 2], list(list(1, 2), nil), \"constant\")",
     np.array([0, 1, 2, 0, 0])),
    ("A.3.5 list(list(b, e), nil) on a matrix",
     "pad([[1, 2]], list(list(0, 1), nil), \"constant\")", np.pad([[1, 2]], ((0, 1),))),
    ("A.3.5 list(list(b, e)) as list(list(b, e), nil)",
     "pad([1, 2], list(list(1, 2)), \"constant\")", np.array([0, 1, 2, 0, 0])),
    ("A.3.5 one pair per axis", "pad([[1]], list(list(1, 0), list(0, 1)), \"constant\")",
     np.pad([[1]], ((1, 0), (0, 1)))),
    ("A.3.5 the constant", "pad([1., 2.], 1, \"constant\", 3.)", np.array([3.0, 1, 2, 3])),
    ("A.3.5 the result keeps a's dtype", "pad([true], 1, \"constant\")",
     np.array([False, True, False])),
    ("A.3.5 constant mode only", "pad([1], 1, \"edge\")", (ERR, "constant")),
)


@pytest.mark.parametrize("code, expected", PAD)
def test_pad(code, expected):
    _check(code, expected)


NONZERO = _cases(
    ("A.3.3 0-d non-zero: list([0])", "nonzero(5)", [np.array([0])]),
    ("A.3.3 0-d zero: an empty vector", "nonzero(0)", [np.array([], I)]),
    ("A.3.3 where(x) is nonzero(x)", "where(2.5)", [np.array([0])]),
    ("A.3.3 where(x) is nonzero(x)", "where(false)", [np.array([], I)]),
    ("A.3.3 1-d: one vector", "nonzero([0, 3, 0, 4])", [np.array([1, 3])]),
    ("A.3.3 2-d: rows and columns", "nonzero([[1, 0], [0, 1]])",
     [np.array([0, 1]), np.array([0, 1])]),
    ("A.3.3 NumPy's spelling refuses 0-d", "__npnonzero(5)", (ERR, "at least 1 dimension")),
    ("A.3.3 NumPy's spelling refuses 0-d", "__npwhere(5)", (ERR, "at least 1 dimension")),
    ("A.3.4 three-argument where", "where(true, 1, 2.)", F(1.0)),
)


@pytest.mark.parametrize("code, expected", NONZERO)
def test_nonzero_and_where(code, expected):
    _check(code, expected)


def test_numpy_spellings_keep_numpy_meaning():
    """Under ``@Phylanx`` ``np.nonzero``/``np.where`` of a 0-d value fail as in NumPy."""
    from phylanx import Phylanx

    @Phylanx
    def nz(a):
        return np.nonzero(a)

    @Phylanx
    def wh(a):
        return np.where(a)

    @Phylanx
    def wh3(c, a, b):
        return np.where(c, a, b)

    for f in (nz, wh):
        assert_same(f(np.array([0, 2, 3])), [np.array([1, 2])])
        with pytest.raises(ERR, match="at least 1 dimension"):
            f(np.int64(5))
    assert_same(wh3(np.array([True, False]), np.array([1, 2]), 0), np.array([1, 0]))
