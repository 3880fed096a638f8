"""Iterative solvers (``iterative_solver_*``): Krylov methods through scipy.sparse.linalg.

The original offered these only in BlazeIterative builds; here they are always present.

* Linear solvers ``iterative_solver_<method>(a, b[, tolerance])``: ``a`` square, ``b`` a
  vector; the optional third argument is the relative residual tolerance
  (``||r (b - a x)|| <= tolerance * ||r b||``, default 1e-10, as Blaze's iteration tags,
  with ``r`` the powers of two that take each row of ``a`` to a largest entry in [1, 2):
  the plain residual when the rows are of one scale, and a verdict that does not change
  when a row or column is scaled).  The true residual of the answer is checked, not only
  the method's running one.  A solve that does not reach it within SciPy's default
  iteration limit (10 n for CG and BiCGSTAB) raises a ``PhylanxValueError`` naming the
  method.
* Scale: the method runs on the system equilibrated by powers of two (exact): rows and
  columns (``d a d`` for the symmetric methods) and ``b``, so that ``diag(1e200, 1)`` is
  solved (its squares overflowed) and a 1e-200 system does not "converge" on residuals
  that underflowed to zero.  Inf or NaN in ``a`` or ``b`` is an error.
* Preconditioned variants build ``M ~ inv(a)`` from a factorisation of ``a``: LU, RQ,
  QR and Cholesky are exact (BiCGSTAB then converges in one step); Jacobi, SSOR
  (omega = 1.2), symmetric Gauss-Seidel (SSOR with omega = 1) and incomplete Cholesky
  IC(0) (restricted to the non-zero pattern of ``a``) are the classic approximations.
  A preconditioner refuses a matrix whose pivots (or, for Jacobi and SSOR, diagonal
  entries) are zero relative to n * eps * ||a||_F of the equilibrated ``a``
  (``solvers.first_negligible``), not only exact zeros: which of the two rounding leaves
  depends on the BLAS kernel.
* ``iterative_solver_gmres(a, b[, n[, tolerance]])``: as the original, the third argument
  is the Krylov dimension n (the restart length, an integer), the tolerance comes fourth.
* ``iterative_solver_lanczos`` / ``_arnoldi(a, b[, n])``: approximate eigenvalues of
  ``a`` (see their docstrings; the third argument is the number of Krylov steps).
"""
from __future__ import annotations

from functools import partial
from typing import Callable

import numpy as np

from ...errors import PhylanxValueError
from ..dtypes import to_int
from ..lazy_modules import lazy_functions, lazy_module
from ..registry import primitive
from .direct import (
    equilibration_exponents,
    factorise,
    first_negligible,
    float_operand,
    rounding_tolerance,
    symmetric_equilibration_exponents,
    symmetric_from_triangle,
    system_operands,
    times_power_of_two,
    vector_scale_exponent,
)

# SciPy loads on first use (``import phylanx`` stays fast)
scipy = lazy_module("scipy")
sla = lazy_functions("scipy.sparse.linalg")   # its solvers sit in _LINEAR_SOLVERS
lapack = lazy_module("scipy.linalg.lapack")

DEFAULT_TOLERANCE = 1e-10
SSOR_OMEGA = 1.2

#: the preconditioners judge the system equilibrated (:func:`_krylov_solve`), once
EQUILIBRATED_ONLY = ("relative to n * eps * ||a||_F, a's rows and columns equilibrated "
                     "(by powers of two)")


def _tolerance(tolerance) -> float:
    if tolerance is None:
        return DEFAULT_TOLERANCE
    value = float(np.asarray(tolerance, dtype=np.float64).reshape(()))
    if not value > 0:
        raise PhylanxValueError(f"the tolerance must be positive, got {value}")
    return value


# --- preconditioners: each returns a function applying M ~ inv(a) to a vector ---------

def _lu_preconditioner(a):
    # LAPACK getrf directly: scipy.linalg.lu_factor only warns about a singular matrix
    (factors, pivots), singular = factorise(a, "getrf")
    if singular is not None:
        raise PhylanxValueError("the LU preconditioner needs a non-singular matrix "
                                f"({singular.reason('LU')})")
    getrs, = lapack.get_lapack_funcs(("getrs",), (a,))
    return lambda v: getrs(factors, pivots, v)[0]


def _triangular_inverse_check(a, r, name):
    # R's diagonal carries a's singular directions; rounding makes their entries tiny
    # rather than zero (how tiny, and of which sign, depends on the BLAS kernel)
    bad = first_negligible(np.diag(r), a)
    if bad is not None:
        raise PhylanxValueError(f"the {name} preconditioner needs a non-singular matrix "
                                f"(r[{bad}, {bad}] of its {name} factorisation is zero "
                                f"{EQUILIBRATED_ONLY})")


def _rq_preconditioner(a):
    r, q = scipy.linalg.rq(a, check_finite=False)          # a = r q, so inv(a) = q.T inv(r)
    _triangular_inverse_check(a, r, "RQ")
    return lambda v: q.T @ scipy.linalg.solve_triangular(r, v, check_finite=False)


def _qr_preconditioner(a):
    q, r = scipy.linalg.qr(a, check_finite=False)          # a = q r, so inv(a) = inv(r) q.T
    _triangular_inverse_check(a, r, "QR")
    return lambda v: scipy.linalg.solve_triangular(r, q.T @ v, check_finite=False)


def _cholesky_preconditioner(a):
    (factor,), singular = factorise(a, "potrf", lower=1)
    if singular is not None:
        raise PhylanxValueError(
            "the Cholesky preconditioner needs a symmetric positive definite matrix "
            f"({singular.reason('Cholesky', zero='not positive')})")
    return lambda v: scipy.linalg.cho_solve((factor, True), v, check_finite=False)


def _nonzero_diagonal(a, name):
    # a diagonal entry at rounding level relative to the matrix is as bad as an exact zero
    diagonal = np.diag(a)
    bad = first_negligible(diagonal, a)
    if bad is not None:
        raise PhylanxValueError(f"the {name} preconditioner needs a non-zero diagonal "
                                f"(a[{bad}, {bad}] is zero {EQUILIBRATED_ONLY})")
    return diagonal


def _jacobi_preconditioner(a):
    diagonal = _nonzero_diagonal(a, "Jacobi")
    return lambda v: v / diagonal


def _ssor_preconditioner(a, omega=SSOR_OMEGA):
    # M = omega/(2-omega) (D/omega + L) inv(D/omega) (D/omega + L^T): inverted by a
    # forward and a backward triangular solve
    diagonal = _nonzero_diagonal(a, "SSOR/Gauss-Seidel")
    scaled = diagonal / omega
    lower = np.tril(a, -1) + np.diag(scaled)
    upper = np.triu(a, 1) + np.diag(scaled)
    factor = (2.0 - omega) / omega

    def apply(v):
        y = scipy.linalg.solve_triangular(lower, v, lower=True, check_finite=False)
        return factor * scipy.linalg.solve_triangular(upper, scaled * y, check_finite=False)
    return apply


def _incomplete_cholesky_preconditioner(a):
    # IC(0): Cholesky elimination that only keeps fill-in where a has non-zeros
    n = a.shape[0]
    factor = np.tril(a).astype(np.float64)
    pattern = factor != 0
    # a pivot that is positive only by rounding is a breakdown too (it would blow up M)
    tolerance = rounding_tolerance(symmetric_from_triangle(a, 1))
    for k in range(n):
        pivot = factor[k, k]
        if not pivot > tolerance:
            raise PhylanxValueError("the incomplete Cholesky preconditioner broke down (pivot "
                                    f"{k + 1} is not positive {EQUILIBRATED_ONLY}): a must be "
                                    "positive definite")
        factor[k, k] = np.sqrt(pivot)
        column = factor[k + 1:, k] / factor[k, k]
        factor[k + 1:, k] = column
        factor[k + 1:, k + 1:] -= np.tril(np.outer(column, column)) * pattern[k + 1:, k + 1:]

    def apply(v):
        y = scipy.linalg.solve_triangular(factor, v, lower=True, check_finite=False)
        return scipy.linalg.solve_triangular(factor.T, y, lower=False, check_finite=False)
    return apply


def _symmetric_gauss_seidel_preconditioner(a):
    return _ssor_preconditioner(a, omega=1.0)


# --- the common driver ----------------------------------------------------------------

def _norm(vector: np.ndarray) -> float:
    """||vector||_2 without overflow or underflow (a sum of squares of 1e-200 is zero)."""
    largest = float(np.abs(vector).max(initial=0.0))
    return largest * float(np.linalg.norm(vector / largest)) if largest > 0 else 0.0


def _krylov_solve(title: str, method: Callable, a, b, tolerance,
                  preconditioner: Callable | None = None, symmetric: bool = False):
    a, b, dtype = system_operands(a, b)
    if b.ndim != 1:
        raise PhylanxValueError(f"{title} solves for one right-hand side: b must be a "
                                f"vector, got shape {b.shape}")
    tol = _tolerance(tolerance)
    if a.shape[0] == 0:
        return np.zeros(0, dtype=dtype)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if not (np.isfinite(a64).all() and np.isfinite(b64).all()):
        raise PhylanxValueError(f"{title} needs finite a and b: inf or NaN in "
                                f"{'a' if not np.isfinite(a64).all() else 'b'}")
    # the system equilibrated by powers of two (exact): r a c y = 2**shift r b, x = c y /
    # 2**shift; every check and inner product then sees entries near 1, whatever the
    # scales of a's rows and columns and of b (1e200 squared overflowed, 1e-200 squared
    # underflowed to a "converged" zero residual)
    row_scales, columns = equilibration_exponents(a64)
    rows = row_scales
    if symmetric:                                 # d a d keeps CG's symmetry
        rows = columns = symmetric_equilibration_exponents(a64)
    a64 = times_power_of_two(a64, rows[:, None] + columns[None, :])
    b64 = times_power_of_two(b64, rows)
    shift = vector_scale_exponent(b64)
    b64 = times_power_of_two(b64, np.full(b64.shape, shift))
    # the tolerance holds for the plain residual b - a x = 2**-shift 2**-rows r' (r' =
    # b' - a' y) and for the row-equilibrated one, 2**(row_scales - rows) times that (a
    # row of 1e200 must not make the others' residuals noise): each is r' weighed, the
    # weights taken to at most 1
    weights = [np.exp2((e.min() - e).astype(np.float64)) for e in (rows, rows - row_scales)]
    targets = [tol * _norm(w * b64) for w in weights]
    # ||w * r'|| <= ||r'||: the method's own residual within the least target meets both
    goal = min(targets)
    options = {}
    if preconditioner is not None:
        apply = preconditioner(a64)
        options["M"] = sla.LinearOperator(a64.shape, matvec=apply, dtype=np.float64)
    with np.errstate(all="ignore"):  # breakdowns are reported through info below
        y, info = method(a64, b64, rtol=0.0, atol=goal, **options)
    if info > 0 or not np.all(np.isfinite(y)):
        raise PhylanxValueError(f"{title} did not converge to the relative tolerance {tol:g} "
                                f"within {info if info > 0 else 'the allowed'} iterations")
    if info < 0:
        raise PhylanxValueError(f"{title} broke down (illegal input or numerical breakdown)")
    # the method judged its own running residual; the tolerance is about the true one
    residual = b64 - a64 @ y
    for w, target, what in zip(weights, targets, ("", " (rows equilibrated)")):
        if _norm(w * residual) > target:
            raise PhylanxValueError(
                f"{title} did not reach the relative tolerance {tol:g}{what}: its true "
                f"residual is {_norm(w * residual) / _norm(w * b64):.3g} of ||b||, "
                "whatever its own running residual said")
    x = times_power_of_two(y, columns - shift)
    if not np.all(np.isfinite(x)):
        raise PhylanxValueError(f"{title}: the solution overflows float64")
    return x.astype(dtype, copy=False)


_EXAMPLE = "([[4.0, 1.0], [1.0, 3.0]], [1.0, 2.0])"
_EXAMPLE_RESULT = "[0.09090909090909091, 0.6363636363636364]"


def _register_linear(suffix: str, title: str, method: Callable, preconditioner, symmetric: bool,
                     detail: str) -> None:
    name = f"iterative_solver_{suffix}"

    def solver(a, b, tolerance=None):
        return _krylov_solve(title, method, a, b, tolerance, preconditioner, symmetric)

    solver.__name__ = solver.__qualname__ = name
    requirement = ("a symmetric positive definite ``a``" if symmetric
                   else "a square, non-singular ``a``")
    solver.__doc__ = (
        f"Solve ``a x = b`` by {title}{detail}; needs {requirement}.\n\n"
        "The optional third argument is the relative residual tolerance (default 1e-10); "
        "not reaching it is a PhylanxValueError naming the method.")
    primitive(name, f"{name}(_1, _2)", f"{name}(_1, _2, _3)",
              oracle=lambda a, b, tolerance=None: np.linalg.solve(a, b),
              example=f"{name}{_EXAMPLE}", result=_EXAMPLE_RESULT)(solver)
    globals()[name] = solver


_LINEAR_SOLVERS = (
    # suffix, title, method, preconditioner, needs SPD, detail
    ("conjugate_gradient", "conjugate gradient", sla.cg, None, True, ""),
    ("bicgstab", "BiCGSTAB", sla.bicgstab, None, False, ""),
    ("bicgstab_lu", "BiCGSTAB", sla.bicgstab, _lu_preconditioner, False,
     " with an LU preconditioner"),
    ("bicgstab_rq", "BiCGSTAB", sla.bicgstab, _rq_preconditioner, False,
     " with an RQ preconditioner (a = R Q)"),
    ("bicgstab_qr", "BiCGSTAB", sla.bicgstab, _qr_preconditioner, False,
     " with a QR preconditioner (a = Q R)"),
    ("bicgstab_cholesky", "BiCGSTAB", sla.bicgstab, _cholesky_preconditioner, True,
     " with a Cholesky preconditioner"),
    ("cg_jacobi", "conjugate gradient", sla.cg, _jacobi_preconditioner, True,
     " with a Jacobi (diagonal) preconditioner"),
    ("cg_ssor", "conjugate gradient", sla.cg, _ssor_preconditioner, True,
     f" with an SSOR preconditioner (omega = {SSOR_OMEGA})"),
    ("cg_incompleteCholesky", "conjugate gradient", sla.cg, _incomplete_cholesky_preconditioner,
     True, " with an incomplete Cholesky IC(0) preconditioner"),
    ("cg_symmetric_gauss_seidel", "conjugate gradient", sla.cg,
     _symmetric_gauss_seidel_preconditioner, True, " with a symmetric Gauss-Seidel preconditioner"),
)

for _row in _LINEAR_SOLVERS:
    _register_linear(*_row)


def _restart(n) -> int:
    if n is None:
        return 20
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise PhylanxValueError(
            f"the third argument of iterative_solver_gmres is the Krylov dimension n (an "
            f"integer, as in the original), got {n!r}; the tolerance is the fourth argument")
    if int(n) < 1:
        raise PhylanxValueError(f"the Krylov dimension n must be positive, got {int(n)}")
    return int(n)


def _gmres_oracle(a, b, n=None, tolerance=None):
    if n is not None and not isinstance(n, (int, np.integer)):
        raise TypeError("the original's gmres takes an integer Krylov dimension n")
    return np.linalg.solve(a, b)


@primitive("iterative_solver_gmres", "iterative_solver_gmres(_1, _2)",
           "iterative_solver_gmres(_1, _2, _3)", "iterative_solver_gmres(_1, _2, _3, _4)",
           oracle=_gmres_oracle,
           example=f"iterative_solver_gmres{_EXAMPLE}", result=_EXAMPLE_RESULT)
def iterative_solver_gmres(a, b, n=None, tolerance=None):
    """Solve ``a x = b`` by GMRES restarted every ``n`` steps; needs a square, non-singular ``a``.

    The third argument is the original's Krylov dimension n (an integer; default 20, as
    SciPy; the original required it), the optional fourth the relative residual tolerance
    (default 1e-10); not reaching it is a PhylanxValueError naming the method."""
    method = partial(sla.gmres, restart=_restart(n))
    return _krylov_solve("GMRES", method, a, b, tolerance)


# --- eigenvalue estimates -------------------------------------------------------------

def _krylov_operands(a, b, steps, what: str):
    a = float_operand(a, "the matrix a", (2,)).astype(np.float64)
    b = float_operand(b, "the start vector b", (1,)).astype(np.float64)
    n = a.shape[0]
    if a.shape != (n, n):
        raise PhylanxValueError(f"the matrix a must be square, got shape {a.shape}")
    if b.shape != (n,):
        raise PhylanxValueError(f"the start vector b must have {n} elements, got {b.shape[0]}")
    norm = np.linalg.norm(b)
    if not norm > 0 or not np.isfinite(norm):
        raise PhylanxValueError("the start vector b must be non-zero and finite")
    k = n if steps is None else to_int(steps, "the number of steps n")
    if not 1 <= k <= n:
        raise PhylanxValueError(f"the number of {what} steps must be between 1 and {n}, got {k}")
    return a, b / norm, k


def _orthonormal_step(a, basis, j):
    """Next Krylov direction, fully re-orthogonalised against ``basis[:j+1]``."""
    w = a @ basis[j]
    coefficients = basis[: j + 1] @ w
    w = w - coefficients @ basis[: j + 1]
    correction = basis[: j + 1] @ w                   # second pass keeps exact orthogonality
    w = w - correction @ basis[: j + 1]
    return w, coefficients + correction


#: relative size (to max|a|) below which a Krylov residual, an asymmetry or an imaginary
#: part is rounding noise; relative so that a scaled matrix gets the same verdict
KRYLOV_RELATIVE = 1e-12


def _breakdown(norm, scale):
    # the Krylov space is invariant: the Ritz values found so far are exact eigenvalues
    return norm <= KRYLOV_RELATIVE * scale


@primitive("iterative_solver_lanczos", "iterative_solver_lanczos(_1, _2)",
           "iterative_solver_lanczos(_1, _2, _3)",
           oracle=lambda a, b, n=None: np.linalg.eigvalsh(a),
           example="iterative_solver_lanczos([[2.0, 1.0], [1.0, 2.0]], [1.0, 0.0])",
           result="[1.0, 3.0]")
def iterative_solver_lanczos(a, b, n=None):
    """Approximate eigenvalues of symmetric ``a`` by ``n`` Lanczos steps from start vector ``b``.

    Returns the Ritz values (eigenvalues of the n x n tridiagonal Lanczos matrix), sorted
    ascending.  Decision: the third argument is the *number of steps* n (the Krylov
    dimension, default and at most the size of ``a``), as the original's "dimension n";
    with n = size of ``a`` they are the eigenvalues of ``a`` (up to rounding: the basis is
    fully re-orthogonalised).  If the Krylov space closes early, fewer (exact) values are
    returned.  A non-symmetric ``a`` is an error: use ``iterative_solver_arnoldi``."""
    a, q, k = _krylov_operands(a, b, n, "Lanczos")
    if not np.allclose(a, a.T, rtol=1e-10, atol=KRYLOV_RELATIVE * np.abs(a).max(initial=0.0)):
        raise PhylanxValueError("Lanczos needs a symmetric matrix a")
    basis = np.zeros((k, a.shape[0]))
    basis[0] = q
    alphas, betas = [], []
    scale = np.abs(a).max(initial=0.0)
    for j in range(k):
        w, coefficients = _orthonormal_step(a, basis, j)
        alphas.append(coefficients[j])
        beta = np.linalg.norm(w)
        if j + 1 == k or _breakdown(beta, scale):
            break
        betas.append(beta)
        basis[j + 1] = w / beta
    return scipy.linalg.eigvalsh_tridiagonal(np.array(alphas), np.array(betas))


@primitive("iterative_solver_arnoldi", "iterative_solver_arnoldi(_1, _2)",
           "iterative_solver_arnoldi(_1, _2, _3)",
           oracle=lambda a, b, n=None: np.sort_complex(np.linalg.eigvals(a)).real,
           example="iterative_solver_arnoldi([[2.0, 1.0], [0.0, 3.0]], [1.0, 2.0])",
           result="[2.0, 3.0]")
def iterative_solver_arnoldi(a, b, n=None):
    """Approximate eigenvalues of a square ``a`` by ``n`` Arnoldi steps from start vector ``b``.

    Returns the Ritz values (eigenvalues of the n x n upper Hessenberg Arnoldi matrix)
    sorted by real part, then imaginary part; the result is real when they all are, else
    complex.  Decision: the third argument is the number of steps n (default and at most
    the size of ``a``), as for ``iterative_solver_lanczos``; with n = size of ``a`` the
    values are the eigenvalues of ``a``."""
    a, q, k = _krylov_operands(a, b, n, "Arnoldi")
    basis = np.zeros((k, a.shape[0]))
    basis[0] = q
    hessenberg = np.zeros((k, k))
    scale = np.abs(a).max(initial=0.0)
    size = k
    for j in range(k):
        w, coefficients = _orthonormal_step(a, basis, j)
        hessenberg[: j + 1, j] = coefficients
        norm = np.linalg.norm(w)
        if j + 1 == k:
            break
        if _breakdown(norm, scale):
            size = j + 1
            break
        hessenberg[j + 1, j] = norm
        basis[j + 1] = w / norm
    values = np.sort_complex(np.linalg.eigvals(hessenberg[:size, :size]))
    if np.all(np.abs(values.imag) <= KRYLOV_RELATIVE * scale):
        return values.real.copy()
    return values
