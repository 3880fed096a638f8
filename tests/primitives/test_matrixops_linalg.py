"""Hand tests of dot, matmul, tensordot, outer, cross, determinant, inverse, invGJE and norm.

NumPy (numpy.dot, numpy.linalg ...) is the oracle; every result is checked for
shape, dtype and value.
"""
from __future__ import annotations

import contextlib
import itertools

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxTypeError, PhylanxValueError

from ..python_calls import python_calls
from .harness import assert_like_numpy

ev = phylanx.evaluate

A_SHAPES = {0: (), 1: (4,), 2: (3, 4), 3: (2, 3, 4)}
B_SHAPES = {0: (), 1: (4,), 2: (4, 5), 3: (2, 4, 5)}


def operand(shape, dtype, seed):
    values = np.random.default_rng(seed).integers(-5, 6, size=shape).astype(dtype)
    return values[()] if values.ndim == 0 else values


@pytest.mark.parametrize("rank_a, rank_b", list(itertools.product(range(4), repeat=2)))
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_dot_every_rank_pair(rank_a, rank_b, dtype):
    a = operand(A_SHAPES[rank_a], dtype, 1)
    b = operand(B_SHAPES[rank_b], dtype, 2)
    assert_like_numpy(ev("lambda(a, b, dot(a, b))", a, b), np.dot(a, b), rtol=1e-6)


def test_dot_mixed_dtypes_promote_like_numpy():
    a = np.float32([[1, 2], [3, 4]])
    for b in (np.array([1, 2]), np.array([0.5, 1.5]), np.array([True, False])):
        assert_like_numpy(ev("lambda(a, b, dot(a, b))", a, b), np.dot(a, b))
    v = np.array([True, True])
    assert_like_numpy(ev("lambda(a, b, dot(a, b))", v, v), np.dot(v, v))


def test_dot_of_literals_and_empty_operands():
    assert ev("dot([1, 2, 3], [4, 5, 6])") == 32
    empty = np.zeros((3, 0))
    assert_like_numpy(ev("lambda(a, b, dot(a, b))", empty, np.zeros((0, 2))),
                      np.dot(empty, np.zeros((0, 2))))


@pytest.mark.parametrize("a_shape, b_shape", [((3,), (4,)), ((2, 3), (2, 3)),
                                              ((2, 3, 4), (3, 4)), ((4,), (3, 4))])
def test_dot_shape_mismatch_names_the_shapes(a_shape, b_shape):
    a, b = np.ones(a_shape), np.ones(b_shape)
    with pytest.raises(ValueError):
        np.dot(a, b)
    with pytest.raises(PhylanxValueError, match="not aligned") as info:
        ev("lambda(a, b, dot(a, b))", a, b)
    assert str(a_shape) in str(info.value) and info.value.loc is not None


def test_dot_rejects_non_numeric_operands():
    with pytest.raises(PhylanxTypeError, match="first operand must be a numeric array"):
        ev('dot("ab", [1, 2])')


@pytest.mark.parametrize("a_shape, b_shape", [
    ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)), ((2, 3, 4), (4, 5)),
    ((2, 3, 4), (2, 4, 5)), ((1, 3, 4), (2, 4, 5)), ((4,), (2, 4, 5)), ((2, 1, 3, 4), (3, 4, 2)),
])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matmul_like_numpy(a_shape, b_shape, dtype):
    a, b = operand(a_shape, dtype, 3), operand(b_shape, dtype, 4)
    assert_like_numpy(ev("lambda(a, b, matmul(a, b))", a, b), np.matmul(a, b), rtol=1e-6)


@pytest.mark.parametrize("a, b, message", [
    (np.float64(2), np.ones(3), "first operand must have at least one dimension"),
    (np.ones(3), np.float64(2), "second operand must have at least one dimension"),
    (np.ones((2, 3)), np.ones((2, 3)), "not aligned"),
    (np.ones((2, 3, 4)), np.ones((3, 4, 2)), "operands could not be broadcast"),
])
def test_matmul_errors(a, b, message):
    with pytest.raises(ValueError):
        np.matmul(a, b)
    with pytest.raises(PhylanxValueError, match=message):
        ev("lambda(a, b, matmul(a, b))", a, b)


@pytest.mark.parametrize("a_shape, b_shape, axes, np_axes", [
    ((2, 3, 4), (3, 4, 5), None, 2),
    ((3, 4), (4, 5), 1, 1),
    ((3,), (4,), 0, 0),
    ((2, 3), (2, 3), 2, 2),
    ((2, 3, 4), (4, 3, 2), "list(list(1, 2), list(1, 0))", ([1, 2], [1, 0])),
    ((2, 3, 4), (4, 3, 2), "list(list(-1, -2), list(0, 1))", ([-1, -2], [0, 1])),
    ((3, 2), (2, 3), "list(0, 1)", (0, 1)),
])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tensordot_both_overloads(a_shape, b_shape, axes, np_axes, dtype):
    a, b = operand(a_shape, dtype, 5), operand(b_shape, dtype, 6)
    code = "lambda(a, b, tensordot(a, b))" if axes is None else \
        f"lambda(a, b, tensordot(a, b, {axes}))"
    assert_like_numpy(ev(code, a, b), np.tensordot(a, b, np_axes), rtol=1e-6)


@pytest.mark.parametrize("axes, message", [
    ("3", "between 0 and the smaller rank"), ("-1", "between 0"),
    ("list(list(0), list(0, 1))", "differ in length"), ("list(0, 0)", "not aligned"),
    ("list(list(2), list(0))", "out of bounds"), ("list(1, 2, 3)", "pair of axis lists"),
])
def test_tensordot_errors(axes, message):
    a, b = np.ones((2, 3)), np.ones((3, 2))
    with pytest.raises(PhylanxValueError, match=message):
        ev(f"lambda(a, b, tensordot(a, b, {axes}))", a, b)


@pytest.mark.parametrize("a, b", [
    (np.arange(3.), np.arange(4)), (np.float64(2.0), np.arange(3.)),
    (np.arange(6.).reshape(2, 3), np.arange(2.)), (np.float32([1, 2]), np.float32([3, 4, 5])),
    (np.arange(0.), np.arange(3.)), (np.array([True, False]), np.array([True, True])),
])
def test_outer_is_always_a_matrix(a, b):
    out = ev("lambda(a, b, outer(a, b))", a, b)
    assert out.ndim == 2
    assert_like_numpy(out, np.outer(a, b))


@pytest.mark.parametrize("a, b", [
    (np.array([1., 2., 3.]), np.array([4., 5., 6.])),
    (np.arange(6).reshape(2, 3), np.array([1, 0, 0])),
    (np.float32([1, 2, 3]), np.float32([0, 1, 0])),
    (np.array([1., 2.]), np.array([3., 4., 5.])),
    (np.arange(6.).reshape(3, 2), np.array([1., 1.])),
])
def test_cross_like_numpy(a, b):
    # NumPy 2 deprecates 2-vectors (a warning, an error under pytest); phylanx must not warn
    two_d = 2 in (a.shape[-1], b.shape[-1])
    with pytest.warns(DeprecationWarning) if two_d else contextlib.nullcontext():
        expected = np.cross(a, b)
    assert_like_numpy(ev("lambda(a, b, cross(a, b))", a, b), expected)


def test_cross_errors():
    with pytest.raises(PhylanxValueError, match="last axis of length 2 or 3"):
        ev("cross([1, 2, 3, 4], [1, 2, 3, 4])")
    with pytest.raises(PhylanxValueError, match="last axis of length 2 or 3"):
        ev("cross(1, [1, 2, 3])")


SQUARE = [
    np.array([[1., 2.], [3., 4.]]),
    np.array([[2, 0, 1], [1, 3, 2], [1, 1, 2]]),
    np.array([[0., 1., 2.], [1., 0., 3.], [4., -3., 8.]]),     # needs a row swap
    np.float32([[4, 7], [2, 6]]),
    np.array([[1e-3, 1.], [1., 1.]]),
    np.array([[5.]]),
]


@pytest.mark.parametrize("m", SQUARE, ids=lambda m: f"{m.dtype}{m.shape}")
def test_determinant_and_inverses(m):
    rtol = 1e-5 if m.dtype == np.float32 else 1e-9
    assert_like_numpy(ev("lambda(m, determinant(m))", m), np.linalg.det(m), rtol=rtol, atol=1e-12)
    assert_like_numpy(ev("lambda(m, inverse(m))", m), np.linalg.inv(m), rtol=rtol, atol=1e-12)
    assert_like_numpy(ev("lambda(m, invGJE(m))", m), np.linalg.inv(m), rtol=rtol, atol=1e-12)


def test_determinant_and_inverse_of_stacks():
    stack = np.arange(8.).reshape(2, 2, 2) ** 2 + np.eye(2)
    assert_like_numpy(ev("lambda(m, determinant(m))", stack), np.linalg.det(stack))
    assert_like_numpy(ev("lambda(m, inverse(m))", stack), np.linalg.inv(stack))


def test_determinant_of_a_singular_matrix_is_zero():
    assert ev("determinant([[1.0, 2.0], [2.0, 4.0]])") == np.linalg.det([[1., 2.], [2., 4.]])


@pytest.mark.parametrize("m", [
    np.array([[1., 2.], [2., 4.]]), np.zeros((3, 3)), np.array([[1, 2], [1, 2]]),
    np.float32([[1, 2], [2, 4]]),
])
def test_singular_matrices_raise(m):
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.inv(m)
    for name in ("inverse", "invGJE"):
        with pytest.raises(PhylanxValueError, match="singular") as info:
            ev(f"lambda(m, {name}(m))", m)
        assert info.value.primitive == name and info.value.loc is not None


def test_invgje_detects_numerically_singular_matrices():
    # LU in numpy.linalg.inv returns huge garbage here; Gauss-Jordan reports singularity
    m = np.arange(1., 10.).reshape(3, 3)
    assert abs(np.linalg.det(m)) < 1e-12
    with pytest.raises(PhylanxValueError, match="singular"):
        ev("lambda(m, invGJE(m))", m)


@pytest.mark.parametrize("name", ["determinant", "inverse", "invGJE"])
@pytest.mark.parametrize("m", [np.ones((2, 3)), np.ones(3), np.float64(2.0)])
def test_square_matrix_required(name, m):
    with pytest.raises(PhylanxValueError, match="must be a square matrix"):
        ev(f"lambda(m, {name}(m))", m)


def test_invgje_rejects_nan_and_empty_is_empty():
    with pytest.raises(PhylanxValueError, match="NaN"):
        ev("lambda(m, invGJE(m))", np.array([[np.nan, 1.], [1., 1.]]))
    assert_like_numpy(ev("lambda(m, invGJE(m))", np.zeros((0, 0))), np.linalg.inv(np.zeros((0, 0))))


M = np.array([[1., -2., 3.], [-4., 5., 6.]])
T = np.arange(24.).reshape(2, 3, 4) - 10


@pytest.mark.parametrize("x, args, kwargs", [
    (np.array([3., 4.]), "", {}),
    (M, "", {}),
    (T, "", {}),
    (np.float32([3, 4]), "", {}),
    (np.array([3, 4]), "", {}),
    (M, ', "fro"', {"ord": "fro"}),
    (M, ', "nuc"', {"ord": "nuc"}),
    (M, ", inf", {"ord": np.inf}),
    (M, ", -inf", {"ord": -np.inf}),
    (M, ", 1", {"ord": 1}),
    (M, ", -2", {"ord": -2}),
    (np.array([1., -2., 3.]), ", 0", {"ord": 0}),
    (np.array([1., -2., 3.]), ", 3", {"ord": 3}),
    (np.array([1., -2., 3.]), ", -inf", {"ord": -np.inf}),
    (M, ", nil, 1", {"axis": 1}),
    (M, ", 2, -1", {"ord": 2, "axis": -1}),
    (M, ", nil, 0, true", {"axis": 0, "keepdims": True}),
    (M, ", nil, nil, true", {"keepdims": True}),
    (T, ", nil, list(0, 2)", {"axis": (0, 2)}),
    (T, ', "fro", list(-1, -2), true', {"ord": "fro", "axis": (-1, -2), "keepdims": True}),
    (T, ", __arg(axis, -1)", {"axis": -1}),
    (M, ", __arg(keepdims, true)", {"keepdims": True}),
])
def test_norm_like_numpy(x, args, kwargs):
    """``__npnorm`` (what np.linalg.norm compiles to); PhySL ``norm`` is the original's
    (tests/primitives/test_original_semantics.py)."""
    assert_like_numpy(ev(f"lambda(x, __npnorm(x{args}))", x), np.linalg.norm(x, **kwargs),
                      rtol=1e-6)


@pytest.mark.parametrize("args, error, message", [
    (', "fro"', PhylanxValueError, "Invalid norm order"),
    (", nil, 2", PhylanxValueError, "out of bounds"),
    (", nil, list(0, 0)", PhylanxValueError, "repeated axis"),
    (', "x"', PhylanxValueError, "Invalid norm order"),
    (", list(1)", PhylanxTypeError, "norm order must be"),
])
def test_norm_errors(args, error, message):
    with pytest.raises(error, match=message):
        ev(f"lambda(x, __npnorm(x{args}))", np.array([1., 2.]))


@pytest.mark.parametrize("name", ["dot", "matmul"])
@pytest.mark.parametrize("a_shape, b_shape", [((2, 2), (2, 2)), ((2, 2), (2,)), ((2,), (2,)),
                                              ((3,), (3, 2)), ((2, 2, 3), (2, 3, 2))])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_a_product_of_float_arrays_is_one_python_call(name, a_shape, b_shape, dtype):
    """The products of a loop of small steps (a Kalman filter's 2x2 matrices) cost their
    Python calls beside NumPy's own: the hot case (float arrays whose contracted axes
    agree) is the kernel's one frame calling NumPy, and its result is NumPy's, a scalar
    (never a 0-d array) for an inner product."""
    from phylanx.primitives.matrixops import linalg
    a, b = operand(a_shape, dtype, 3), operand(b_shape, dtype, 4)
    got, called = python_calls(getattr(linalg, name), a, b)
    assert called == [name]
    want = getattr(np, name)(a, b)
    assert type(got) is type(want) and np.array_equal(got, want)
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype
