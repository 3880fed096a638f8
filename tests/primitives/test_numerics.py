"""Singularity verdicts of inverse, invGJE and als are relative to the matrix.

The matrices are singular in exact arithmetic; rounding leaves LU pivots of about
eps * ||a|| (an exact zero with one BLAS kernel, -4.7e-17 with another), so only a test
relative to the matrix gives the same answer on every machine and at every scale.
"""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxValueError
from phylanx.primitives.solvers.direct import first_negligible, rounding_tolerance

from .harness import assert_like_numpy, evaluate_with

ev = phylanx.evaluate
_U, _V = np.random.default_rng(5).standard_normal((2, 5, 2))
SINGULAR = {
    "1..9": np.arange(1.0, 10.0).reshape(3, 3),
    "u@v.T": _U @ _V.T,                                   # rank 2 of 5
    "ones*1e-3": 1e-3 * np.ones((2, 2)),
    "ones*1e3": 1e3 * np.ones((2, 2)),
}


@pytest.mark.parametrize("scale", [1.0, 1e-8, 1e8])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("key", SINGULAR)
@pytest.mark.parametrize("name", ["inverse", "invGJE"])
def test_inverse_of_a_numerically_singular_matrix_is_an_error(name, key, dtype, scale):
    m = (scale * SINGULAR[key]).astype(dtype)
    with pytest.raises(PhylanxValueError, match="singular") as info:
        ev(f"lambda(m, {name}(m))", m)
    assert info.value.primitive == name and info.value.loc is not None


def test_inverse_names_the_singular_matrix_of_a_stack():
    stack = np.stack([np.eye(3), SINGULAR["1..9"]])
    with pytest.raises(PhylanxValueError, match=r"matrix \[1\] of the stack.*pivot 3"):
        ev("lambda(m, inverse(m))", stack)


@pytest.mark.parametrize("scale", [1e-12, 1e12])
@pytest.mark.parametrize("name", ["inverse", "invGJE"])
def test_inverse_of_a_scaled_well_conditioned_matrix(name, scale):
    # tiny is not singular: 1e-12 * identity has the inverse 1e12 * identity
    for m in (scale * np.eye(3), scale * np.array([[2.0, 1.0], [1.0, 3.0]])):
        got = ev(f"lambda(m, {name}(m))", m)
        assert_like_numpy(got, np.linalg.inv(m), rtol=1e-12, atol=0.0)
        np.testing.assert_allclose(got @ m, np.eye(len(m)), rtol=0, atol=1e-14)


def test_the_tolerance_scales_with_the_matrix():
    a = SINGULAR["1..9"]
    for scale in (1e-8, 1e8):
        assert rounding_tolerance(scale * a) == pytest.approx(scale * rounding_tolerance(a),
                                                              rel=1e-12)
    eps64, eps32 = np.finfo(np.float64).eps, np.finfo(np.float32).eps
    assert rounding_tolerance(a) == pytest.approx(3 * eps64 * np.linalg.norm(a), rel=1e-12)
    assert rounding_tolerance(a.astype(np.float32)) == pytest.approx(
        3 * eps32 * np.linalg.norm(a), rel=1e-6)
    # no overflow for huge entries (the Frobenius norm is taken of a / max|a|)
    assert np.isfinite(rounding_tolerance(1e300 * np.ones((4, 4))))
    assert rounding_tolerance(np.zeros((2, 2))) == 0.0


def test_first_negligible_positions_and_edge_cases():
    a = np.eye(3)
    tol = rounding_tolerance(a)
    assert first_negligible([1.0, 1.0, 1.0], a) is None
    assert first_negligible([1.0, tol / 2, -tol / 4], a) == 2          # 1-based, first one
    assert first_negligible([1.0, 1.0, -tol], a) == 3                  # the boundary counts
    assert first_negligible([0.0, 0.0], np.zeros((2, 2))) == 1          # all-zero matrix
    assert first_negligible([np.nan], a) is None                        # left to LAPACK
    assert first_negligible([1.0], np.array([[np.inf]])) is None
    assert first_negligible([0.0], np.array([[np.nan, 0.0], [0.0, 0.0]])) is None


def _ratings():
    return np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]])


def test_als_without_regularization_and_too_many_factors_is_singular():
    # 3 factors against 2 items: Y^T Y + Y^T C_u Y has rank <= 2, a numerically singular
    # 3 x 3 system that np.linalg.solve would "solve" into garbage
    with pytest.raises(PhylanxValueError, match=r"ALS \(row 0\) is singular.*regularization"
                       ) as info:
        evaluate_with("als(a0, 0.0, 3, 2, 40.0)", _ratings())
    assert info.value.primitive == "als" and info.value.loc is not None
    x, y = evaluate_with("als(a0, 0.1, 3, 2, 40.0)", _ratings())       # regularised: fine
    assert x.shape == (3, 3) and y.shape == (2, 3) and np.all(np.isfinite(x))


_SCALES = [1e-200, 1e-100, 1e-30, 1e30, 1e100, 1e200]
_WELL = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])     # SPD, cond ~3


def _scaled(matrix, scale, dtype, symmetric=False):
    """``matrix`` with its first row (and column: ``symmetric``) scaled by ``scale``: as
    well conditioned as ``matrix`` once equilibrated, however far its norm strays."""
    d = np.ones(len(matrix))
    d[0] = np.sqrt(scale) if symmetric else scale
    return ((d[:, None] * matrix * d[None, :]) if symmetric
            else d[:, None] * matrix).astype(dtype)


def _in_range(scale, dtype):
    # float32 carries 1e-30 .. 1e30 (a product of two of its entries would not)
    return dtype == np.float64 or 1e-30 <= scale <= 1e30


_CASES = [(name, scale, dtype) for name in ("solve", "linear_solver_lu", "linear_solver_ldlt",
                                            "linear_solver_cholesky", "inverse", "invGJE")
          for scale in _SCALES for dtype in (np.float64, np.float32)
          if _in_range(scale, dtype) and (dtype == np.float64 or name in (
              "solve", "inverse", "invGJE"))]     # (linear_solver_* answer in float64)


@pytest.mark.parametrize("name,scale,dtype", _CASES)
def test_a_matrix_with_a_scaled_row_is_solved_as_numpy_does(name, scale, dtype):
    # solve([[1e200, 0], [0, 1]], b) was "singular": pivot 1 <= 2 * eps * 1e200
    symmetric = name in ("linear_solver_ldlt", "linear_solver_cholesky")
    a = _scaled(_WELL, scale, dtype, symmetric)
    b = np.array([1.0, 2.0, 3.0], dtype)
    if name in ("inverse", "invGJE"):
        got, want = ev(f"lambda(a, {name}(a))", a), np.linalg.inv(a)
    else:
        got, want = ev(f"lambda(a, b, {name}(a, b))", a, b), np.linalg.solve(a, b)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0)
    assert np.asarray(got).dtype == (np.float64 if name.startswith("linear_solver")
                                     else dtype)


@pytest.mark.parametrize("scale", [1e-200, 1e200])
@pytest.mark.parametrize("name", ["solve", "linear_solver_lu", "linear_solver_ldlt",
                                  "inverse", "invGJE"])
def test_a_singular_matrix_with_a_scaled_row_is_still_the_located_error(name, scale):
    symmetric = name == "linear_solver_ldlt"
    singular = SINGULAR["1..9"] if not symmetric else np.ones((3, 3))
    a, b = _scaled(singular, scale, np.float64, symmetric), np.ones(3)
    inverting = name in ("inverse", "invGJE")
    with pytest.raises(PhylanxValueError, match="singular") as info:
        if inverting:
            ev(f"lambda(a, {name}(a))", a)
        else:
            ev(f"lambda(a, b, {name}(a, b))", a, b)
    assert info.value.primitive == name and info.value.loc is not None


def test_a_stack_names_its_singular_matrix_after_a_scaled_regular_one():
    stack = np.stack([_scaled(_WELL, 1e200, np.float64),
                      _scaled(SINGULAR["1..9"], 1e-200, np.float64), np.eye(3)])
    with pytest.raises(PhylanxValueError, match=r"matrix \[1\] of the stack"):
        ev("lambda(a, b, solve(a, b))", stack, np.ones((3, 3, 1)))
    with pytest.raises(PhylanxValueError, match=r"matrix \[1\] of the stack"):
        ev("lambda(a, inverse(a))", stack)
    got = ev("lambda(a, b, solve(a, b))", stack[[0, 2]], np.ones((2, 3, 1)))
    np.testing.assert_allclose(got, np.linalg.solve(stack[[0, 2]], np.ones((2, 3, 1))),
                               rtol=1e-12)


@pytest.mark.parametrize("name,k,y", [("invGJE", 3, 2.0**70),
                                      ("solve", 7, 2.0**70 * (1 + 2.0**-12)),
                                      ("inverse", 7, 2.0**70 * (1 + 2.0**-12))])
def test_a_singular_float32_matrix_whose_rows_span_more_than_float32_is_still_singular(
        name, k, y):
    # row 1 is k * row 0 exactly; scaling the rows took x * 2**-70 to a float32 subnormal,
    # rounded, and scaling its column up made that rounding a pivot: solve answered
    # garbage and invGJE inf (each entry is now scaled once, by its row's and column's
    # powers of two together)
    x = (1 + 2.0**-20) * 2.0**-60
    a = np.array([[x, y], [k * x, k * y]], np.float32)
    assert np.all(a[1].astype(np.float64) == k * a[0].astype(np.float64))
    with pytest.raises(PhylanxValueError, match="singular") as info:
        if name == "solve":
            ev("lambda(a, b, solve(a, b))", a, np.ones(2, np.float32))
        else:
            ev(f"lambda(a, {name}(a))", a)
    assert info.value.primitive == name and info.value.loc is not None
