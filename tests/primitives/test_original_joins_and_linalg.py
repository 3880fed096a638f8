"""PhySL primitives that follow the original where it and NumPy disagree, part 2 (compat
addendum A.1.7, A.1.9, A.2, A.3.1, A.3.2, A.3.4-A.3.10), parametrised over the addendum's
rules and examples.

Each case is ``(rule, PhySL code, expected)``; ``expected`` is a value compared strictly
(exact dtype) or ``(exception type, message pattern)``.  The NumPy spellings under
``@Phylanx`` are checked in ``tests/frontend/test_numpy_spellings.py``.
"""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxError

from .harness import assert_same

F, I, B = np.float64, np.int64, np.bool_
ERR = PhylanxError


def _cases(*rows):
    return [pytest.param(code, expected, id=f"{rule}: {code}"[:90]) for rule, code, expected
            in rows]


def _check(code, expected):
    if isinstance(expected, tuple) and isinstance(expected[0], type):
        with pytest.raises(expected[0], match=expected[1]):
            phylanx.evaluate(code)
        return
    assert_same(phylanx.evaluate(code), expected)


V12, V34 = "hstack(list(1, 2))", "hstack(list(3, 4))"

STACKS = _cases(
    ("A.3.1 example", "hstack(list(1, list(2, 3), hstack(list(4.5))))",
     np.array([1.0, 2.0, 3.0, 4.5])),
    ("A.3.1 example", "vstack(list(1, 2))", np.array([[1], [2]])),
    ("A.3.1 example", f"stack(list({V12}, {V34}), 1)", np.array([[1, 3], [2, 4]])),
    ("A.3.1 the first argument must be a list", "hstack([1, 2])",
     (ERR, "has to be a list of arrays to stack")),
    ("A.3.1 the first argument must be a list", "vstack(5)",
     (ERR, "has to be a list of arrays to stack")),
    ("A.3.1 nested-list elements do not decide the dtype", "hstack(list(1, list(2.5)))",
     np.array([1, 2])),
    ("A.3.1 nested-list elements do not decide the dtype", "hstack(list(list(1, 2)))",
     np.array([1.0, 2.0])),
    ("A.3.1 nested lists hold scalars", "hstack(list(list([1, 2])))", (ERR, "only scalars")),
    ("A.3.1 vstack refuses nested lists", "vstack(list(list(1, 2)))",
     (ERR, "lists cannot be stacked")),
    ("A.3.1 dstack refuses nested lists", "dstack(list(list(1, 2)))",
     (ERR, "lists cannot be stacked")),
    ("A.3.1 stack refuses nested lists", "stack(list(list(1, 2)))",
     (ERR, "lists cannot be stacked")),
    ("A.3.1 dtype \"bool\"", "hstack(list(0, 2), \"bool\")", np.array([False, True])),
    ("A.3.1 dtype \"int...\" is int64", "hstack(list(1.5, 2.5), \"int32\")", np.array([1, 2])),
    ("A.3.1 dtype \"float...\" is float64", "vstack(list(1, 2), \"float32\")",
     np.array([[1.0], [2.0]])),
    ("A.3.1 an unknown dtype: the computed one", "hstack(list(1, 2), \"double\")",
     np.array([1, 2])),
    ("A.3.1 dtype: float64 beats int64 beats bool", "hstack(list(true, 2, 3.5))",
     np.array([1.0, 2.0, 3.5])),
    ("A.3.1 dtype: int64 beats bool", "hstack(list(true, 2))", np.array([1, 2])),
    ("A.3.1 empty hstack: float64 (0,)", "hstack(list())", np.zeros(0)),
    ("A.3.1 empty vstack: float64 (0, 0)", "vstack(list())", np.zeros((0, 0))),
    ("A.3.1 empty dstack: float64 (0, 0, 0)", "dstack(list())", np.zeros((0, 0, 0))),
    ("A.3.1 hstack of scalars and vectors", f"hstack(list(0, {V12}, 3))", np.array([0, 1, 2, 3])),
    ("A.3.1 hstack of matrices: along columns", "hstack(list([[1], [2]], [[3, 4], [5, 6]]))",
     np.array([[1, 3, 4], [2, 5, 6]])),
    ("A.3.1 hstack of matrices: all 2-d", "hstack(list([[1, 2]], [3, 4]))",
     (ERR, "requires all the inputs be 2-d")),
    ("A.3.1 hstack of 3-d: along axis 1",
     "shape(hstack(list(constant(0, list(2, 1, 3)), constant(0, list(2, 4, 3)))))", (2, 5, 3)),
    ("A.3.1 vstack of vectors: rows", f"vstack(list({V12}, {V34}))", np.array([[1, 2], [3, 4]])),
    ("A.3.1 vstack mixes vectors and matrices", f"vstack(list({V12}, [[3, 4], [5, 6]]))",
     np.array([[1, 2], [3, 4], [5, 6]])),
    ("A.3.1 vstack: scalars with vectors only in hstack", f"vstack(list(1, {V12}))",
     (ERR, "scalars mixed with vectors")),
    ("A.3.1 vstack of 3-d: along axis 0",
     "shape(vstack(list(constant(0, list(1, 2, 3)), constant(0, list(2, 2, 3)))))", (3, 2, 3)),
    ("A.3.1 dstack of scalars: (n, 1, 1) (NumPy: (1, 1, n))", "dstack(list(1, 2, 3))",
     np.array([1, 2, 3]).reshape(3, 1, 1)),
    ("A.3.1 dstack of vectors: (1, L, n)", f"dstack(list({V12}, {V34}))",
     np.array([[[1, 3], [2, 4]]])),
    ("A.3.1 dstack mixes matrices and 3-d arrays",
     "shape(dstack(list(constant(0, list(2, 3)), constant(0, list(2, 3, 2)))))", (2, 3, 3)),
    ("A.3.1 dstack: vectors do not mix with matrices", f"dstack(list({V12}, [[1, 2]]))",
     (ERR, "can mix only matrices and 3-d arrays")),
    ("A.3.1 stack of scalars", "stack(list(1, 2, 3))", np.array([1, 2, 3])),
    ("A.3.1 stack of scalars: axis 0 or -1 only", "stack(list(1, 2), 1)",
     (ERR, "unsupported axis requested")),
    ("A.3.1 stack of vectors, axis -2", f"stack(list({V12}, {V34}), -2)",
     np.array([[1, 2], [3, 4]])),
    ("A.3.1 stack of matrices, axis 1",
     "shape(stack(list(constant(0, list(2, 3)), constant(0, list(2, 3))), 1))", (2, 2, 3)),
    ("A.3.1 stack of matrices, axis 2", "stack(list([[1, 2]], [[3, 4]]), 2)",
     np.array([[[1, 3], [2, 4]]])),
    ("A.3.1 stack: one shape", f"stack(list({V12}, hstack(list(1, 2, 3))))",
     (ERR, "arrays of one shape")),
    ("A.3.1 stack of ONE vector: unchanged", f"stack(list({V12}))", np.array([1, 2])),
    ("A.3.1 stack of ONE vector, axis -1", f"stack(list({V12}), -1)", np.array([1, 2])),
    ("A.3.1 stack of ONE matrix, axis 0: unchanged", "stack(list([[1, 2], [3, 4]]))",
     np.array([[1, 2], [3, 4]])),
    ("A.3.1 stack of ONE matrix, axis 1: transposed", "stack(list([[1, 2], [3, 4]]), 1)",
     np.array([[1, 3], [2, 4]])),
    ("A.3.1 stack of ONE matrix, axis -1: transposed", "stack(list([[1, 2], [3, 4]]), -1)",
     np.array([[1, 3], [2, 4]])),
    ("A.3.1 stack of ONE 3-d array, axis 1: (r, p, c)",
     "shape(stack(list(constant(0, list(2, 3, 4))), 1))", (3, 2, 4)),
    ("A.3.1 stack of ONE 3-d array, axis 2: (r, c, p)",
     "shape(stack(list(constant(0, list(2, 3, 4))), 2))", (3, 4, 2)),
)


@pytest.mark.parametrize("code, expected", STACKS)
def test_stack_family(code, expected):
    _check(code, expected)


INDICES = _cases(
    ("A.3.2 example: a list of arrays", "indices(list(2, 3))",
     [np.array([[0, 0, 0], [1, 1, 1]]), np.array([[0, 1, 2], [0, 1, 2]])]),
    ("A.3.2 an empty shape: an empty list", "indices(list())", []),
    ("A.3.2 one dimension", "indices(list(3))", [np.array([0, 1, 2])]),
    ("A.3.2 sizes are strictly positive", "indices(list(2, 0))",
     (ERR, "does not hold a positive integer value type")),
    ("A.3.2 dtype \"float...\"", "indices(list(2), \"float32\")", [np.array([0.0, 1.0])]),
    ("A.3.2 an unknown dtype string: float64", "indices(list(2), \"complex\")",
     [np.array([0.0, 1.0])]),
    ("A.3.2 dtype \"int...\": int64", "indices(list(2), \"int16\")", [np.array([0, 1])]),
    ("A.3.2 dtype \"bool\": an error", "indices(list(2), \"bool\")", (ERR, "bool")),
    ("A.3.2 sparse 2-d: (r, 1) and (1, c)", "indices(list(2, 3), \"int\", true)",
     [np.array([[0], [1]]), np.array([[0, 1, 2]])]),
    ("A.3.2 sparse 3-d", "indices(list(2, 1, 2), \"int\", true)",
     [np.arange(2).reshape(2, 1, 1), np.zeros((1, 1, 1), I), np.arange(2).reshape(1, 1, 2)]),
)


@pytest.mark.parametrize("code, expected", INDICES)
def test_indices(code, expected):
    _check(code, expected)


NORM = _cases(
    ("A.3.10 the result has x's dtype", "norm([1, 1])", I(1)),
    ("A.3.10 the result has x's dtype", "norm([3, 4])", I(5)),
    ("A.3.10 vector 2-norm", "norm([3., 4.])", F(5.0)),
    ("A.3.10 int order 0 counts non-zeros", "norm([3., 0., -1.], 0)", F(2.0)),
    ("A.3.10 int order 1", "norm([3., 0., -1.], 1)", F(4.0)),
    ("A.3.10 int order 3", "norm([1., 1., 1., 1., 1., 1., 1., 1.], 3)", F(2.0)),
    ("A.3.10 inf: max |x|", "norm([3., -5., 1.], inf)", F(5.0)),
    ("A.3.10 -inf: min |x|", "norm([3., -5., 1.], ninf)", F(1.0)),
    ("A.3.10 other floats are errors", "norm([3., 4.], 2.0)", (ERR, "norm type")),
    ("A.3.10 fro on a vector", "norm([3., 4.], \"fro\")", (ERR, "unsupported requested norm")),
    ("A.3.10 nuc on a vector", "norm([3., 4.], \"nuc\")", (ERR, "unsupported requested norm")),
    ("A.3.10 vector axis 0", "norm([3., 4.], nil, 0)", F(5.0)),
    ("A.3.10 vector axis -1", "norm([3., 4.], nil, -1)", F(5.0)),
    ("A.3.10 vector axis 1", "norm([3., 4.], nil, 1)",
     (ERR, "axis 1 is out of bounds for array of dimension 1")),
    ("A.3.10 matrix: Frobenius", "norm([[1., 2.], [2., 4.]])", F(5.0)),
    ("A.3.10 matrix: fro", "norm([[1., 2.], [2., 4.]], \"fro\")", F(5.0)),
    ("A.3.10 matrix ord 2 is element-wise (NumPy: largest singular value)",
     "norm([[3., 0.], [0., 4.]], 2)", F(5.0)),
    ("A.3.10 matrix ord 1", "norm([[1., 2.], [2., 4.]], 1)",
     (ERR, "Invalid \\(or not implemented\\) norm")),
    ("A.3.10 matrix inf", "norm([[1., 2.], [2., 4.]], inf)",
     (ERR, "Invalid \\(or not implemented\\) norm")),
    ("A.3.10 matrix nuc", "norm([[1., 2.], [2., 4.]], \"nuc\")",
     (ERR, "Invalid \\(or not implemented\\) norm")),
    ("A.3.10 matrix with an axis", "norm([[1., 2.], [2., 4.]], nil, 0)", (ERR, "no axis")),
    ("A.3.10 keepdims: (1,)", "norm([3., 4.], nil, nil, true)", np.array([5.0])),
    ("A.3.10 keepdims: (1, 1)", "norm([[3., 4.]], nil, nil, true)", np.array([[5.0]])),
    ("A.3.10 keepdims is a strict bool", "norm([3., 4.], nil, nil, 1)", (ERR, "must be a bool")),
    ("A.3.10 1-d or 2-d only", "norm(3.)", (ERR, "vector or a matrix")),
    ("A.3.10 1-d or 2-d only", "norm(constant(1, list(2, 2, 2)))", (ERR, "vector or a matrix")),
)


@pytest.mark.parametrize("code, expected", NORM)
def test_norm(code, expected):
    _check(code, expected)


# both triangles are positive definite and differ, so the result says which one was read
TWO, RHS = "[[4., 1.], [2., 3.]]", "[1., 2.]"
UPPER, LOWER = np.array([[4.0, 1.0], [1.0, 3.0]]), np.array([[4.0, 2.0], [2.0, 3.0]])

SOLVERS = _cases(
    ("A.3.9 lu", f"linear_solver_lu({TWO}, {RHS})",
     np.linalg.solve([[4.0, 1.0], [2.0, 3.0]], [1.0, 2.0])),
    ("A.3.9 lu: exactly two operands", f"linear_solver_lu({TWO}, {RHS}, \"U\")",
     (ERR, "too many arguments")),
    ("A.3.9 ints are read as float64", "linear_solver_lu([[2, 0], [0, 4]], [1, 2])",
     np.array([0.5, 0.5])),
    ("A.3.9 the right-hand side is a vector", f"linear_solver_lu({TWO}, [[1.], [2.]])",
     (ERR, "second operand to be a vector")),
    ("A.3.9 the matrix is 2-d", f"linear_solver_cholesky({RHS}, {RHS})",
     (ERR, "first operand to be a matrix")),
    ("A.3.9 ldlt reads the upper triangle by default", f"linear_solver_ldlt({TWO}, {RHS})",
     np.linalg.solve(UPPER, [1.0, 2.0])),
    ("A.3.9 ldlt \"L\"", f"linear_solver_ldlt({TWO}, {RHS}, \"L\")",
     np.linalg.solve(LOWER, [1.0, 2.0])),
    ("A.3.9 cholesky reads the upper triangle by default",
     f"linear_solver_cholesky({TWO}, {RHS})", np.linalg.solve(UPPER, [1.0, 2.0])),
    ("A.3.9 cholesky \"U\"", f"linear_solver_cholesky({TWO}, {RHS}, \"U\")",
     np.linalg.solve(UPPER, [1.0, 2.0])),
    ("A.3.9 cholesky \"L\"", f"linear_solver_cholesky({TWO}, {RHS}, \"L\")",
     np.linalg.solve(LOWER, [1.0, 2.0])),
    ("A.3.9 uplo is exactly \"L\" or \"U\"", f"linear_solver_ldlt({TWO}, {RHS}, \"l\")",
     (ERR, "either 'L' or 'U'")),
)


@pytest.mark.parametrize("code, expected", SOLVERS)
def test_linear_solvers(code, expected):
    if isinstance(expected, np.ndarray):   # LAPACK vs NumPy's solver: relative tolerance
        np.testing.assert_allclose(phylanx.evaluate(code), expected, rtol=1e-12)
        assert phylanx.evaluate(code).dtype == np.float64
        return
    _check(code, expected)


WHERE_LOGIC_STORE = _cases(
    ("A.3.4 common dtype of x and y, not c's", "where([1, 0], 2.5, [1, 2])",
     np.array([2.5, 2.0])),
    ("A.3.4 a bool c does not truncate x (the original's defect)",
     "where([true, false], -2.5, 0.)", np.array([-2.5, 0.0])),
    ("A.3.4 0-d c picks a whole operand, broadcast", "where(true, [1, 2], 3)", np.array([1, 2])),
    ("A.3.4 0-d c picks a whole operand, broadcast", "where(false, [1, 2], 3)", np.array([3, 3])),
    ("A.3.4 1-d c aligns with the columns", "where([true, false], [[1, 2], [3, 4]], 0)",
     np.array([[1, 0], [3, 0]])),
    ("A.3.4 2-d c with size-1 axes", "where([[true], [false]], [1, 2], [[5, 6], [7, 8]])",
     np.array([[1, 2], [7, 8]])),
    ("A.3.4 lists are refused", "where([true, false], list(1, 2), 0)",
     (ERR, "operand has unsupported type")),
    ("A.3.4 nil is refused", "where([true, false], nil, 0)", (ERR, "operand has unsupported type")),
    ("A.3.4 nil is refused", "where([true, false], nil, nil)",
     (ERR, "operand has unsupported type")),
    ("A.3.4 incompatible sizes", "where([true, false], [1, 2, 3], 0)", (ERR, "broadcast")),
    ("A.3.3 a list operand of nonzero", "nonzero(list(1, 0))", (ERR, "unsupported type")),
    ("A.3.7 strings can't be compared", "__and(\"a\", 1)", (ERR, "can't be compared")),
    ("A.3.7 lists can't be compared", "__or(list(1), 0)", (ERR, "can't be compared")),
    ("A.3.7 nil with a number", "__and(nil, 1)", (ERR, "can't be compared")),
    ("A.3.7 a number with nil", "__or(0, nil)", (ERR, "can't be compared")),
    ("A.3.7 an array with nil", "__and([1, 0], nil)", (ERR, "can't be compared")),
    ("A.2 relu clamps values above a negative threshold at 0",
     "relu([-3., -0.5, 2.], 0.5, nil, -1.)", np.array([-1.0, 0.0, 2.0])),
    ("A.2 conv1d: strides > 1 with dilation > 1",
     "conv1d(constant(1, list(1, 8, 1)), constant(1, list(2, 1, 1)), \"valid\", 2, 2)",
     (ERR, "together with a dilation_rate")),
    ("A.1.9 example: a mask store takes a value of the full length",
     "block(define(a, [0, 0, 0, 0]), store(slice(a, [true, false, true, false]), [7, 8]), a)",
     (ERR, "cannot broadcast a vector into a vector of different size")),
    ("A.1.9 a mask store writes the first k entries of a full-length value",
     "block(define(a, [0, 0, 0, 0]), store(slice(a, [true, false, true, false]), "
     "[7, 8, 9, 6]), a)", np.array([7, 0, 8, 0])),
    ("A.1.9 example", "block(define(a, [0, 0, 0, 0]), store(slice(a, list(1, 3)), 2.7), a)",
     np.array([0, 2, 2, 0])),
    ("A.1.9 a list value is an error",
     "block(define(a, [0, 0]), store(slice(a, 0), list(1)), a)", (ERR, "must be numeric")),
    ("A.3.6 constant: an unknown dtype string is float64", "constant(1, 2, \"xyz\")",
     np.ones(2)),
    ("A.3.6 constant: \"float...\" is float64", "constant(1, 2, \"float32\")", np.ones(2)),
    ("A.3.6 constant: \"int...\" is int64", "constant(2.5, 2, \"int8\")", np.array([2, 2])),
    ("A.3.6 constant: the value is 0-d", "constant([1, 2], 2)", (ERR, "must be 0-d")),
    ("A.3.6 constant_like takes the value's dtype", "constant_like(0, [1.5, 2.5])",
     np.array([0, 0])),
    ("A.3.6 constant_like takes the value's dtype", "constant_like(0.5, [[1, 2]])",
     np.array([[0.5, 0.5]])),
    ("A.3.6 constant_like with a dtype", "constant_like(1, [1.5], \"float\")", np.array([1.0])),
    ("A.1.7 a list range of step 1 is not clamped", "slice(list(1, 2, 3), list(0, 9))",
     (ERR, "cannot extract the requested list elements")),
    ("A.1.7 a list range of another step is cut at the end",
     "slice(list(1, 2, 3, 4), list(1, 9, 2))", [2, 4]),
    ("A.1.7 a list range of another step is cut at the end",
     "slice(list(1, 2, 3, 4), list(3, -9, -2))", [4, 2]),
    ("A.3.8 prepend: a nil operand is rejected", "prepend(nil, list(1))",
     (ERR, "all the arguments be valid")),
    ("A.3.8 append: a nil operand is rejected", "append(list(1), nil)",
     (ERR, "all the arguments be valid")),
    ("A.3.8 prepend: a nil list", "prepend(1, nil)", (ERR, "must be a list")),
    ("A.3.5 the mode must be a string", "pad([1], 1, 3)", (ERR, "should be a string")),
    ("A.3.5 constant mode only", "pad([1], 1, \"reflect\")",
     (ERR, "only been implemented for constant mode")),
    ("A.1.9 a 2-d value into a vector slice",
     "block(define(a, [0, 0]), store(slice(a, 0), [[1]]), a)", (ERR, "unsupported data type")),
)


@pytest.mark.parametrize("code, expected", WHERE_LOGIC_STORE)
def test_where_logic_relu_store(code, expected):
    _check(code, expected)
