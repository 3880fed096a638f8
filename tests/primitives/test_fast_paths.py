"""Fast paths that must equal the general path: ``add_at``'s per-row sums and the stacked
singularity check of ``solve``/``inverse``.  NumPy (``np.add.at``, a per-matrix getrf
loop) is the oracle."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx.errors import PhylanxError, PhylanxValueError
from phylanx.primitives.matrixops import numpy_search
from phylanx.primitives.matrixops.numpy_products import solve
from phylanx.primitives.solvers.direct import Singular, factorise, first_singular_in_stack

RNG = np.random.default_rng(5)
ROWS = numpy_search.ROWS_FAST_TILE * 2 + 123     # several one-hot tiles, the last short


def add_at_both(a, index, b):
    want = a.copy()
    np.add.at(want, index, b)
    return numpy_search.add_at(a.copy(), index, b), want


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k, d", [(8, 2), (8, 16), (1, 5), (64, 3), (5, 4), (5, 7)])
def test_add_at_per_row_sums_equal_numpy(k, d, dtype):
    a = RNG.normal(size=(k, d)).astype(dtype)
    index = RNG.integers(0, k, ROWS)
    b = RNG.normal(size=(ROWS, d)).astype(dtype)
    got, want = add_at_both(a, index, b)
    assert numpy_search._add_rows_fast(a.copy(), index, b)     # the fast path ran
    tol = 1e-4 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(got, want, rtol=0, atol=tol * np.abs(want).max())
    assert got.dtype == dtype


def test_add_at_one_hot_sums_split_among_threads():
    """Enough rows for one group of tiles per worker thread (summed in another order)."""
    rows = numpy_search.ROWS_FAST_TILE * 8 + 77
    a = RNG.normal(size=(8, 16))
    index, b = RNG.integers(0, 8, rows), RNG.normal(size=(rows, 16))
    got, want = add_at_both(a, index, b)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-11 * np.abs(want).max())


def test_add_at_leaves_other_shapes_to_numpy():
    k, d = 8, 3
    b = RNG.normal(size=(ROWS, d))
    cases = [
        (np.zeros((k, d)), RNG.integers(-k, k, ROWS), b),          # negative: wraps
        (np.zeros((k, d), dtype=np.int64), RNG.integers(0, k, ROWS), b.astype(np.int64)),
        (np.zeros((100, d)), RNG.integers(0, 100, ROWS), b),       # too many rows
        (np.zeros((k, d)), RNG.integers(0, k, 10), b[:10]),        # too few indices
        (np.zeros((k, d)), RNG.integers(0, k, ROWS), b[:1]),       # b broadcasts
    ]
    for a, index, values in cases:
        assert not numpy_search._add_rows_fast(a.copy(), index, values)
        got, want = add_at_both(a, index, values)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)


def test_add_at_non_finite_values_and_bad_indices():
    k, d = 4, 6
    b = RNG.normal(size=(ROWS, d))
    b[17, 2] = np.inf                        # 0 * inf would spread NaN in a one-hot product
    index = RNG.integers(0, k, ROWS)
    got, want = add_at_both(np.zeros((k, d)), index, b)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-11)
    assert np.isinf(got[index[17], 2])
    bad = index.copy()
    bad[5] = k
    with pytest.raises(PhylanxError):
        numpy_search.add_at(np.zeros((k, d)), bad, b)


def loop_first_singular(stack):
    # the stack's check is factorise's, pivot test and condition estimate, matrix by matrix
    for index in np.ndindex(stack.shape[:-2]):
        _, singular = factorise(np.array(stack[index], order="F"), "getrf")
        if singular is not None:
            return index, singular
    return None


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_stacked_singularity_check_equals_the_per_matrix_loop(dtype):
    n = 6
    stack = RNG.normal(size=(3, 4, n, n)).astype(dtype)
    assert first_singular_in_stack(stack) is None is loop_first_singular(stack)
    stack[1, 2, :, 3] = stack[1, 2, :, 1] * 2           # rank-deficient: negligible pivot
    stack[2, 0] = 0.0                                    # all zero: tolerance 0
    got = first_singular_in_stack(stack)
    assert got == loop_first_singular(stack) and got[0] == (1, 2)
    stack[1, 2] = np.eye(n)
    assert first_singular_in_stack(stack) == loop_first_singular(stack) == ((2, 0),
                                                                        Singular(pivot=1))


@pytest.mark.parametrize("magnitude", [1e-170, 1e-30, 1e160])
def test_stacked_check_at_extreme_magnitudes_equals_the_loop(magnitude):
    """Squares that underflow or overflow: the norms are taken scaled there."""
    n = 5
    stack = RNG.normal(size=(4, n, n)) * magnitude
    stack[2, :, 4] = stack[2, :, 0] * 3
    assert first_singular_in_stack(stack) == loop_first_singular(stack) == ((2,), Singular(pivot=5))
    stack[2] = np.eye(n) * magnitude
    assert first_singular_in_stack(stack) is None is loop_first_singular(stack)


@pytest.mark.parametrize("count", [50, 100])   # 100: checked while NumPy solves
def test_stacked_solve_still_refuses_a_singular_matrix_and_names_it(count):
    a = RNG.normal(size=(count, 5, 5))
    a[31, 4] = a[31, 0] + a[31, 1]
    b = RNG.normal(size=(count, 5, 1))
    with pytest.raises(PhylanxValueError, match=r"matrix \[31\] of the stack"):
        solve(a, b)
    a[31] = np.eye(5) * 3
    np.testing.assert_allclose(solve(a, b), np.linalg.solve(a, b), rtol=1e-9, atol=1e-12)
