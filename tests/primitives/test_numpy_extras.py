"""PhySL-level edge cases and errors of the NumPy extension primitives (numpy_statistics,
numpy_math, numpy_shape, numpy_linalg, numpy_random) and of the slots added to existing
primitives (linspace endpoint, var/std ddof, count_nonzero axis/keepdims), against NumPy."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxError, PhylanxTypeError, PhylanxValueError

from .harness import assert_like_numpy, call, evaluate_with

ev = phylanx.evaluate
A23 = np.array([[1.0, 7.0, 3.0], [4.0, 2.0, 9.0]])
SPD = np.array([[4.0, 2.0], [2.0, 3.0]])


# -- statistics ------------------------------------------------------------------------------
@pytest.mark.parametrize("code, expected", [
    ("median(a0, __arg(axis, list(0, 1)))", np.median(A23, axis=(0, 1))),
    ("median(a0, -1, true)", np.median(A23, -1, keepdims=True)),
    ("percentile(a0, 30)", np.percentile(A23, 30)),
    ("percentile(a0, list(0, 100), __arg(axis, 0), __arg(method, \"midpoint\"))",
     np.percentile(A23, [0, 100], axis=0, method="midpoint")),
    ("quantile(a0, 0.5, nil, \"higher\", true)",
     np.quantile(A23, 0.5, method="higher", keepdims=True)),
    ("cov(a0, __arg(rowvar, false), __arg(aweights, [1.0, 2.0]))",
     np.cov(A23, rowvar=False, aweights=[1.0, 2.0])),
    ("cov(a0, __arg(ddof, 0), __arg(dtype, \"float32\"))", np.cov(A23, ddof=0, dtype=np.float32)),
    ("corrcoef(a0, [[3.0, 1.0, 2.0]])", np.corrcoef(A23, [[3.0, 1.0, 2.0]])),
])
def test_statistics_keywords_match_numpy(code, expected):
    assert_like_numpy(evaluate_with(code, A23), expected)


def test_order_statistics_of_float32_stay_float32_with_literal_q():
    x = A23.astype(np.float32)
    assert_like_numpy(evaluate_with("percentile(a0, 30, 1)", x), np.percentile(x, 30, axis=1))
    assert_like_numpy(evaluate_with("quantile(a0, 0.3)", x), np.quantile(x, 0.3))
    assert_like_numpy(call("median", x), np.median(x))


def test_median_of_nothing_is_nan_with_numpy_warning():
    with pytest.warns(RuntimeWarning):
        expected = np.median(np.zeros(0))
    with pytest.warns(RuntimeWarning):
        assert_like_numpy(call("median", np.zeros(0)), expected)


@pytest.mark.parametrize("code, error, message", [
    ("median(a0, 2)", PhylanxValueError, "axis 2 is out of bounds for a 2-d array"),
    ("percentile(a0, 101)", PhylanxValueError, r"range \[0, 100\]"),
    ("quantile(a0, -0.5)", PhylanxValueError, r"range \[0, 1\]"),
    ("percentile(a0, 50, nil, \"sideways\")", PhylanxValueError, "sideways"),
    ("percentile(a0, 50, nil, 3)", PhylanxTypeError, "method must be a string"),
    ("median(\"text\")", PhylanxTypeError, "must be a number or an array"),
    ("cov(a0, __arg(ddof, true))", PhylanxTypeError, "ddof must be an integer"),
    ("cov(a0, [1.0, 2.0])", PhylanxValueError, "dimensions"),
])
def test_statistics_errors(code, error, message):
    with pytest.raises(error, match=message):
        evaluate_with(code, A23)


# -- element-wise math -------------------------------------------------------------------
def test_binary_math_broadcasts_and_keeps_float32():
    x = np.float32([[1, -2], [0, 3]])
    y = np.float32([2, -1])
    for name in ("arctan2", "hypot", "fmax", "fmin"):
        assert_like_numpy(call(name, x, y), getattr(np, name)(x, y))
    assert_like_numpy(evaluate_with("hypot(a0, 2.0)", x), np.hypot(x, 2.0))


def test_bool_operands_give_numpys_types():
    a, b = np.array([True, False]), np.array([True, True])
    assert_like_numpy(call("arctan2", a, b), np.arctan2(a, b))   # float16, as in NumPy
    assert_like_numpy(call("fmax", a, b), np.fmax(a, b))   # NumPy has a bool loop here


def test_fmax_fmin_ignore_one_nan():
    assert_like_numpy(ev("fmin(list(nan, 1.0, nan), list(2.0, nan, nan))"),
                      np.fmin([np.nan, 1.0, np.nan], [2.0, np.nan, np.nan]))


def test_binary_math_shape_mismatch_is_an_error():
    with pytest.raises(PhylanxValueError, match="broadcast"):
        call("arctan2", np.ones(3), np.ones(2))


# -- shapes ------------------------------------------------------------------------------
def test_roll_with_shift_per_axis_and_errors():
    x = np.arange(24).reshape(2, 3, 4)
    assert_like_numpy(evaluate_with("roll(a0, list(1, -1), list(-1, 1))", x),
                      np.roll(x, (1, -1), (-1, 1)))
    assert_like_numpy(evaluate_with("roll(a0, __arg(shift, 5))", x), np.roll(x, 5))
    with pytest.raises(PhylanxValueError, match="axis 3 is out of bounds for a 3-d array"):
        evaluate_with("roll(a0, 1, 3)", x)
    with pytest.raises(PhylanxValueError, match="shape mismatch"):
        evaluate_with("roll(a0, list(1, 2, 3), list(0, 1))", x)


def test_column_stack_and_triangles():
    assert_like_numpy(ev("column_stack(list([1, 2], [[3, 4], [5, 6]]))"),
                      np.column_stack(([1, 2], [[3, 4], [5, 6]])))
    with pytest.raises(PhylanxValueError, match="at least one array"):
        ev("column_stack(list())")
    with pytest.raises(PhylanxValueError, match="dimensions"):
        ev("column_stack(list([1, 2], [1, 2, 3]))")
    x = np.arange(1, 25).reshape(2, 3, 4).astype(np.float32)
    assert_like_numpy(evaluate_with("tril(a0, __arg(k, -1))", x), np.tril(x, -1))
    assert_like_numpy(evaluate_with("triu(a0, 2)", x), np.triu(x, 2))
    with pytest.raises(PhylanxValueError, match="0-d"):
        ev("tril(3)")
    with pytest.raises(PhylanxTypeError, match="k must be an integer"):
        ev("triu([[1, 2], [3, 4]], 0.5)")


# -- linear algebra ------------------------------------------------------------------------
def test_decompositions_reconstruct_their_matrix():
    a = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
    u, s, vh = evaluate_with("svd(a0, __arg(full_matrices, false))", a)
    np.testing.assert_allclose(u @ np.diag(s) @ vh, a)
    q, r = call("qr", a)
    np.testing.assert_allclose(q @ r, a)
    upper = evaluate_with("cholesky(a0, true)", SPD)
    np.testing.assert_allclose(upper.T @ upper, SPD)
    w, v = call("eigh", SPD)
    np.testing.assert_allclose(v @ np.diag(w) @ v.T, SPD)
    x, residuals, rank, sv = call("lstsq", a, np.array([1.0, 2.0, 2.0]))
    assert isinstance(rank, np.int64) and rank == 2 and residuals.shape == (1,)
    np.testing.assert_allclose(x, np.linalg.lstsq(a, [1.0, 2.0, 2.0])[0])


def test_single_array_results_are_not_lists():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert_like_numpy(evaluate_with("svd(a0, true, false)", a), np.linalg.svd(a, True, False))
    assert_like_numpy(evaluate_with("qr(a0, \"r\")", a), np.linalg.qr(a, "r"))
    assert_like_numpy(call("matrix_rank", a), np.int64(2))
    assert_like_numpy(evaluate_with("pinv(a0, __arg(hermitian, false))", a), np.linalg.pinv(a))


def test_float32_and_int_inputs_follow_numpy():
    a32 = SPD.astype(np.float32)
    for name in ("eigvals", "eigvalsh", "cholesky", "pinv"):
        assert_like_numpy(call(name, a32), getattr(np.linalg, name)(a32))
    ints = np.array([[2, 1], [1, 2]])
    assert_like_numpy(call("eigvalsh", ints), np.linalg.eigvalsh(ints))


@pytest.mark.parametrize("code, arg, error, message", [
    ("eig(a0)", np.ones((2, 3)), PhylanxValueError, r"must be square, got shape \(2, 3\)"),
    ("svd(a0)", np.ones(3), PhylanxValueError, "must be a matrix"),
    ("eigh(a0, \"X\")", SPD, PhylanxValueError, "UPLO must be"),
    ("qr(a0, \"economic\")", SPD, PhylanxValueError, "mode must be one of"),
    ("cholesky(a0)", -SPD, PhylanxValueError, "positive definite"),
    ("lstsq(a0, [1.0, 2.0])", np.ones((2, 2, 2)), PhylanxValueError, "must be 2-d"),
    ("lstsq(a0, [1.0, 2.0, 3.0])", SPD, PhylanxValueError, "Incompatible dimensions"),
    ("eig(list(\"a\", \"b\"))", SPD, PhylanxValueError, "rectangular list of numbers"),
])
def test_linalg_errors(code, arg, error, message):
    with pytest.raises(error, match=message):
        evaluate_with(code, arg)


# -- random ------------------------------------------------------------------------------
def test_seeded_draws_repeat_across_random_primitives():
    code = ("block(set_seed(5), list(choice(10, 3, false), permutation(6), beta(2.0, 3.0, 4), "
            "random(2), choice([0.5, 1.5], list(2, 2), true, [0.25, 0.75])))")
    first, second = ev(code), ev(code)
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert first[0].dtype == np.int64 and len(set(first[0].tolist())) == 3
    np.testing.assert_array_equal(np.sort(first[1]), np.arange(6))
    assert first[4].shape == (2, 2) and first[4].dtype == np.float64


def test_beta_broadcasts_its_parameters_and_scalars_are_numpy_scalars():
    draws = evaluate_with("beta(a0, 1.0, list(3, 2))", np.array([0.5, 5.0]))
    assert draws.shape == (3, 2) and ((draws >= 0) & (draws <= 1)).all()
    assert isinstance(ev("beta(1.0, 1.0)"), np.float64)
    assert isinstance(ev("choice(4)"), np.int64)


@pytest.mark.parametrize("code, error, message", [
    ("choice(3, 4, false)", PhylanxValueError, "cannot take 4 samples without replacement"),
    ("choice(0)", PhylanxValueError, "positive integer"),
    ("choice([[1, 2]])", PhylanxValueError, "1-d array"),
    ("choice(3, nil, true, [0.5, 0.5])", PhylanxValueError, "1-d array of 3 probabilities"),
    ("choice(2, nil, true, [0.5, 0.6])", PhylanxValueError, "sum to 1"),
    ("choice(3, 2, false, [1.0, 0.0, 0.0])", PhylanxValueError, "non-zero entries"),
    ("permutation(-1)", PhylanxValueError, "non-negative"),
    ("permutation(2.5)", PhylanxValueError, "at least 1 dimension"),
    ("beta(0.0, 1.0)", PhylanxValueError, "a must be positive"),
    ("beta(1.0, \"x\")", PhylanxTypeError, "b must be a positive number"),
    ("beta([1.0, 2.0], 1.0, 3)", PhylanxValueError, "broadcast"),
])
def test_random_errors(code, error, message):
    with pytest.raises(error, match=message):
        ev(code)


# -- slots added to existing primitives ---------------------------------------------------
def test_linspace_endpoint():
    assert_like_numpy(ev("linspace(0, 1, 4, false)"), np.linspace(0, 1, 4, endpoint=False))
    assert_like_numpy(ev("linspace(0, 1, 5)"), np.linspace(0, 1, 5))
    assert_like_numpy(ev("linspace(2, 3, 1, __arg(endpoint, false))"),
                      np.linspace(2, 3, 1, endpoint=False))
    x0, x1 = np.float32(0), np.float32(1)
    assert_like_numpy(evaluate_with("linspace(a0, a1, 3, false)", x0, x1),
                      np.linspace(x0, x1, 3, endpoint=False))
    assert_like_numpy(ev("linspace__int(0, 10, 4, false)"),
                      np.linspace(0, 10, 4, endpoint=False).astype(np.int64))


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_ddof(name):
    fn = getattr(np, name)
    assert_like_numpy(evaluate_with(f"{name}(a0, __arg(ddof, 1))", A23), fn(A23, ddof=1))
    assert_like_numpy(evaluate_with(f"{name}(a0, 0, true, nil, nil, 1)", A23),
                      fn(A23, 0, keepdims=True, ddof=1))
    assert_like_numpy(evaluate_with(f"{name}(a0, 1, false, nil, nil, 0.5)", A23),
                      fn(A23, 1, ddof=0.5))
    with pytest.warns(RuntimeWarning):
        expected = fn(A23, 0, ddof=2)
    with pytest.warns(RuntimeWarning):   # N - ddof <= 0: NumPy warns and answers inf/nan
        assert_like_numpy(evaluate_with(f"{name}(a0, 0, false, nil, nil, 2)", A23), expected)
    with pytest.raises(PhylanxTypeError, match="ddof must be a number"):
        evaluate_with(f"{name}(a0, nil, false, nil, nil, true)", A23)


def test_count_nonzero_axis_and_keepdims():
    x = np.array([[0, 1, 2], [3, 0, 0]])
    assert_like_numpy(call("count_nonzero", x), np.int64(3))
    assert_like_numpy(evaluate_with("count_nonzero(a0, 0)", x), np.count_nonzero(x, axis=0))
    assert_like_numpy(evaluate_with("count_nonzero(a0, -1, true)", x),
                      np.count_nonzero(x, axis=-1, keepdims=True))
    assert_like_numpy(evaluate_with("count_nonzero(a0, list(0, 1))", x),
                      np.int64(np.count_nonzero(x, axis=(0, 1))))
    assert_like_numpy(evaluate_with("count_nonzero(a0, __arg(keepdims, true))", x),
                      np.count_nonzero(x, keepdims=True))
    with pytest.raises(PhylanxValueError, match="axis 2 is out of bounds"):
        evaluate_with("count_nonzero(a0, 2)", x)


def test_errors_are_phylanx_errors_with_the_primitive_named():
    with pytest.raises(PhylanxError, match="cholesky"):
        evaluate_with("cholesky(a0)", -SPD)
