"""NumPy functions served by the extension primitives (numpy_statistics, numpy_math,
numpy_shape, numpy_linalg, numpy_random) and the NumPy arguments added to existing ones
(linspace endpoint, std/var ddof, count_nonzero axis), called from decorated Python and
compared with the undecorated ``.python`` run (NumPy is the oracle)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from phylanx import Phylanx
from phylanx.errors import PhylanxError

from .helpers import check

FEW = settings(max_examples=20, deadline=None)
# quarter steps give exact ties, zeros and singular matrices; tiny magnitudes (which only
# make NumPy warn about overflow on both sides) are left out
finite = st.one_of(st.integers(-40, 40).map(lambda i: i / 4),
                   st.floats(-10, 10).filter(lambda v: v == 0 or abs(v) > 1e-6))
matrices = hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, min_side=2,
                                                   max_side=5), elements=finite)
float32_matrices = hnp.arrays(np.float32, hnp.array_shapes(min_dims=2, max_dims=2, min_side=2,
                                                           max_side=4),
                              elements=st.floats(-10, 10, width=32))


# -- order statistics and covariances ------------------------------------------------------
@Phylanx
def order_statistics(x):
    return (np.median(x), np.median(x, axis=0), np.median(x, -1, keepdims=True),
            np.percentile(x, 30), np.percentile(x, [10, 90], axis=1),
            np.percentile(x, 50, axis=0, method="lower", keepdims=True),
            np.quantile(x, 0.25), np.quantile(x, [0.5, 1.0], axis=-1, method="nearest"))


@given(matrices)
@FEW
def test_median_percentile_quantile(x):
    check(order_statistics, x, strict=True)


@given(float32_matrices)
@FEW
def test_order_statistics_keep_float32(x):
    check(order_statistics, x, strict=True)


@Phylanx
def covariances(x):
    return (np.cov(x), np.cov(x, rowvar=False), np.cov(x, bias=True), np.cov(x, ddof=0),
            np.cov(x[0], x[1]), np.corrcoef(x[0], x[1]), np.corrcoef(x, rowvar=False))


@given(hnp.arrays(np.float64, st.tuples(st.integers(2, 4), st.integers(3, 6)),
                  elements=st.floats(-10, 10).filter(lambda v: abs(v) > 1e-3)))
@FEW
def test_cov_and_corrcoef(x):
    with np.errstate(all="ignore"):   # a constant row makes corrcoef NaN in both
        check(covariances, x, strict=True)


@Phylanx
def one_variable(v):
    return np.cov(v), np.cov(v, ddof=0), np.corrcoef(v)


def test_cov_and_corrcoef_of_one_variable_are_numpys_0d_array_and_scalar():
    got = check(one_variable, np.array([1.0, 2.0, 4.0]), strict=True)
    want = one_variable.python(np.array([1.0, 2.0, 4.0]))
    assert [type(g) for g in got] == [type(w) for w in want]   # np.cov: 0-d arrays


# -- element-wise math -------------------------------------------------------------------
@Phylanx
def binary_math(x, y):
    return (np.arctan2(x, y), np.hypot(x, y), np.fmax(x, y), np.fmin(x, y),
            np.arctan2(x, 1.0), np.hypot(3, x), np.fmax(x, np.nan), np.fmin(np.nan, y))


@given(matrices, st.data())
@FEW
def test_arctan2_hypot_fmax_fmin(x, data):
    y = data.draw(hnp.arrays(np.float64, x.shape[1:], elements=st.floats(-10, 10)))
    check(binary_math, x, y, strict=True)
    check(binary_math, x.astype(np.float32), y.astype(np.float32), strict=True)


# -- shapes ------------------------------------------------------------------------------
@Phylanx
def rearranged(x):
    return (np.roll(x, 1), np.roll(x, -2, axis=0), np.roll(x, shift=(1, 1), axis=(0, 1)),
            np.column_stack((x[0], x[1])), np.column_stack([x, x[:, 0]]), np.tril(x),
            np.tril(x, -1), np.triu(x, k=1), np.triu(x))


@given(matrices)
@FEW
def test_roll_column_stack_tril_triu(x):
    check(rearranged, x, strict=True)


# -- linear algebra ------------------------------------------------------------------------
@Phylanx
def decompositions(a):
    spd = a.T @ a + np.eye(a.shape[1])
    w, v = np.linalg.eigh(spd)
    u, s, vt = np.linalg.svd(a)
    q, r = np.linalg.qr(a)
    return (w, v, np.linalg.eigvalsh(spd, UPLO="U"), u, s, vt,
            np.linalg.svd(a, full_matrices=False), np.linalg.svd(a, compute_uv=False), q, r,
            np.linalg.qr(a, mode="complete"), np.linalg.qr(a, mode="r"),
            np.linalg.cholesky(spd), np.linalg.pinv(a), np.linalg.matrix_rank(a),
            np.linalg.matrix_rank(spd, hermitian=True))


@given(matrices)
@FEW
def test_symmetric_svd_qr_cholesky_pinv_rank(a):
    check(decompositions, a, strict=True)


@Phylanx
def general_eigen(a):
    w, v = np.linalg.eig(a)
    return w, v, np.linalg.eigvals(a)


@given(hnp.arrays(np.float64, st.integers(1, 4).map(lambda n: (n, n)), elements=finite))
@FEW
def test_eig_and_eigvals_real_or_complex(a):
    check(general_eigen, a, strict=True)


def test_eig_of_a_rotation_is_complex():
    w, _, vals = general_eigen(np.array([[0.0, -1.0], [1.0, 0.0]]))
    assert w.dtype == vals.dtype == np.complex128
    np.testing.assert_allclose(sorted(w, key=lambda c: c.imag), [-1j, 1j])


@Phylanx
def least_squares(a, b):
    x, residuals, rank, s = np.linalg.lstsq(a, b)
    return x, residuals, rank, s, np.linalg.lstsq(a, b, rcond=0.5)[0]


@given(st.integers(2, 5), st.integers(1, 3), st.data())
@FEW
def test_lstsq_unpacks_into_four_values(n, k, data):
    a = data.draw(hnp.arrays(np.float64, (n, k), elements=finite))
    b = data.draw(hnp.arrays(np.float64, (n,), elements=finite))
    got = check(least_squares, a, b)
    assert got[2].dtype == np.int64   # NumPy's rank is int32; PhySL integers are int64


@Phylanx
def solve(a, b):
    return np.linalg.solve(a, b)


@given(st.integers(1, 4), st.integers(1, 3), st.data())
@FEW
def test_solve_with_vector_and_matrix_right_hand_sides(n, k, data):
    a = data.draw(hnp.arrays(np.float64, (n, n), elements=finite)) + 25 * np.eye(n)
    check(solve, a, data.draw(hnp.arrays(np.float64, (n,), elements=finite)), strict=True)
    check(solve, a, data.draw(hnp.arrays(np.float64, (n, k), elements=finite)), strict=True)


@Phylanx
def cholesky(a):
    return np.linalg.cholesky(a)


def test_singular_and_indefinite_matrices_are_located_errors():
    with pytest.raises(PhylanxError, match="[Ss]ingular"):
        solve(np.array([[1.0, 2.0], [2.0, 4.0]]), np.ones(2))
    with pytest.raises(PhylanxError, match="positive definite") as info:
        cholesky(np.array([[0.0, 1.0], [1.0, 0.0]]))
    assert "test_numpy_extras.py" in str(info.value)   # located in the decorated source


# -- arguments added to existing primitives ------------------------------------------------
@Phylanx
def added_arguments(x, n):
    return (np.linspace(0, 1, n, endpoint=False), np.linspace(-1.0, 1.0, num=n, endpoint=True),
            np.std(x, ddof=1), np.var(x, axis=0, ddof=1), x.std(axis=1, ddof=0, keepdims=True),
            np.var(x, 1, None, None, 1), np.count_nonzero(x > 0, axis=0),
            np.count_nonzero(x, axis=-1, keepdims=True), np.count_nonzero(x > 1, axis=(0, 1)))


@given(matrices, st.integers(1, 7))
@FEW
def test_linspace_endpoint_ddof_and_count_nonzero_axis(x, n):
    check(added_arguments, x, n, strict=True)


# -- random ------------------------------------------------------------------------------
@Phylanx
def random_draws(seed, n):
    np.random.seed(seed)
    return (np.random.choice(5, n), np.random.choice(10, 4, replace=False),
            np.random.choice(np.array([1.5, 2.5, 3.5]), size=(n, 2), p=[0.2, 0.0, 0.8]),
            np.random.choice([7, 8, 9]), np.random.permutation(n),
            np.random.permutation(np.arange(2 * n).reshape(n, 2)),
            np.random.beta(2.0, 5.0, n), np.random.beta(0.5, 0.5))


def test_random_choice_permutation_beta_shapes_supports_and_seed():
    n = 2000
    first, again = random_draws(11, n), random_draws(11, n)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)   # same seed, same draws
    other = random_draws(12, n)
    assert not np.array_equal(first[0], other[0])
    ints, unique, weighted, one, perm, rows, betas, single = first
    assert ints.shape == (n,) and ints.dtype == np.int64 and set(np.unique(ints)) == set(range(5))
    assert unique.shape == (4,) and len(set(unique.tolist())) == 4 and unique.max() < 10
    assert weighted.shape == (n, 2) and set(np.unique(weighted)) <= {1.5, 3.5}
    assert abs(np.mean(weighted == 3.5) - 0.8) < 0.05
    assert isinstance(one, np.int64) and one in (7, 8, 9)
    np.testing.assert_array_equal(np.sort(perm), np.arange(n))
    np.testing.assert_array_equal(np.sort(rows[:, 0]), np.arange(0, 2 * n, 2))
    np.testing.assert_array_equal(rows[:, 1], rows[:, 0] + 1)   # rows move as a whole
    assert betas.shape == (n,) and betas.min() >= 0 and betas.max() <= 1
    assert abs(betas.mean() - 2 / 7) < 0.02   # mean a / (a + b)
    assert isinstance(single, float) and 0 <= single <= 1
    plain = random_draws.python(11, n)   # NumPy's global stream: the same draws and types
    for a, b in zip(plain, first):
        assert type(a) is type(b)
        np.testing.assert_array_equal(a, b)


@Phylanx
def permuted_copy(x):
    y = np.random.permutation(x)
    return x, y


def test_permutation_leaves_its_argument_alone():
    x = np.arange(10)
    before, shuffled = permuted_copy(x)
    np.testing.assert_array_equal(before, np.arange(10))
    np.testing.assert_array_equal(np.sort(shuffled), np.arange(10))
