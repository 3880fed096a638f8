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
  that underflowed to zero -- when LAPACK's rule says it matters (row, column or
  diagonal scales more than 10x apart, or max|a| outside [SMALL, LARGE]:
  :func:`_equilibration_worth_it`); otherwise on ``a`` times one power of two, which
  costs one pass over ``a``.  Inf or NaN in ``a`` or ``b`` is an error.
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

import math
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
    unit_scale_exponents,
    vector_scale_exponent,
)

# SciPy loads on first use (``import phylanx`` stays fast)
scipy = lazy_module("scipy")
sla = lazy_functions("scipy.sparse.linalg")   # its solvers sit in _LINEAR_SOLVERS
lapack = lazy_module("scipy.linalg.lapack")
blas = lazy_module("scipy.linalg.blas")

DEFAULT_TOLERANCE = 1e-10
SSOR_OMEGA = 1.2

#: the preconditioners judge the system the method runs on (:func:`_krylov_solve`), once
EQUILIBRATED_ONLY = ("relative to n * eps * ||a||_F, a's rows and columns equilibrated "
                     "(by powers of two) when LAPACK's rule calls for it")


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

def _weighted_norms(weights: np.ndarray, vector: np.ndarray) -> list[float]:
    """``||w * vector||_2`` for each row ``w`` of ``weights`` by BLAS nrm2, which neither
    overflows nor underflows (a plain sum of squares of 1e-200 is zero)."""
    nrm2 = blas.dnrm2
    return [float(nrm2(row)) for row in weights * vector]


#: LAPACK's rule (xLAQGE, xLAQSY): scales whose smallest is at least this fraction of their
#: largest are not worth applying
EQUILIBRATION_THRESHOLD = 0.1
#: LAPACK's SMALL = safe minimum / precision (dlamch 'S' / 'P'); its LARGE is 1 / SMALL
EQUILIBRATION_SMALL = float(np.finfo(np.float64).tiny / np.finfo(np.float64).eps)
EQUILIBRATION_LARGE = 1.0 / EQUILIBRATION_SMALL


def _equilibration_worth_it(a: np.ndarray, magnitude: np.ndarray, row_max: np.ndarray,
                            amax: float, symmetric: bool) -> bool:
    """Whether the Krylov method should run on ``a`` equilibrated, by LAPACK's rule.

    LAPACK computes the scales (dgeequ, dpoequ) and applies them only when it matters
    (dlaqge, dlaqsy): the rows when the ratio of the smallest row scale to the largest
    is below 0.1 or the largest magnitude ``amax`` of ``a`` is outside [SMALL, LARGE]
    (safe minimum / precision and its reciprocal), the columns when their ratio is
    below 0.1; a symmetric positive definite matrix (dpoequ: ``s_i = 1 / sqrt(a_ii)``)
    when ``min s / max s < 0.1`` or ``amax`` is out of range, a non-positive diagonal
    entry being dpoequ's failure (then equilibrated: the method or its preconditioner
    says what is wrong).  Here one decision for rows and columns (equilibrate both or
    neither), ``amax`` over all of ``a`` also for the symmetric methods, and dgeequ's
    column ratio, which it takes after the row scales, bounded from below: with every
    row's largest in [0.1 amax, amax] it is at least ``min_j max_i |a_ij| / amax``,
    the ratio tested.  ``magnitude`` is |a|, ``row_max`` its rows' largest and ``amax``
    theirs: one pass over ``a`` instead of the exponents of every entry, the scaled
    copies and Ruiz's iteration of the equilibration itself."""
    if not EQUILIBRATION_SMALL <= amax <= EQUILIBRATION_LARGE:
        return True
    threshold = EQUILIBRATION_THRESHOLD
    if symmetric:
        diagonal = np.diagonal(a)
        smallest = float(diagonal.min())
        # min s / max s = sqrt(min a_ii / max a_ii) >= 0.1
        return not (smallest > 0 and smallest >= threshold ** 2 * float(diagonal.max()))
    return not (float(row_max.min()) >= threshold * amax
                and float(magnitude.max(axis=0).min()) >= threshold * amax)


def _krylov_solve(title: str, method: Callable, a, b, tolerance,
                  preconditioner: Callable | None = None, symmetric: bool = False,
                  equilibrate: bool | None = None):
    """Solve ``a x = b`` by ``method`` (module docstring).  ``equilibrate``: None to
    equilibrate as :func:`_equilibration_worth_it` says, True or False to force it (the
    tests compare the two paths)."""
    a, b, dtype = system_operands(a, b)
    if b.ndim != 1:
        raise PhylanxValueError(f"{title} solves for one right-hand side: b must be a "
                                f"vector, got shape {b.shape}")
    tol = _tolerance(tolerance)
    if a.shape[0] == 0:
        return np.zeros(0, dtype=dtype)
    a64, b64 = a.astype(np.float64, copy=False), b.astype(np.float64, copy=False)
    magnitude = np.abs(a64)
    row_max = magnitude.max(axis=1)
    amax, bmax = float(row_max.max()), float(np.abs(b64).max())    # NaN propagates in max
    if not (math.isfinite(amax) and math.isfinite(bmax)):
        raise PhylanxValueError(f"{title} needs finite a and b: inf or NaN in "
                                f"{'a' if not math.isfinite(amax) else 'b'}")
    row_scales = unit_scale_exponents(row_max)
    if equilibrate is None:
        equilibrate = _equilibration_worth_it(a64, magnitude, row_max, amax, symmetric)
    # the method runs on r a c y = 2**shift r b, x = c y / 2**shift, r and c powers of
    # two (exact): every check and inner product then sees entries near 1, whatever the
    # scales of a's rows and columns and of b (1e200 squared overflowed, 1e-200 squared
    # underflowed to a "converged" zero residual).  The tolerance holds for the plain
    # residual b - a x = 2**-shift 2**-rows r' (r' = b' - a' y) and for the
    # row-equilibrated one, 2**(row_scales - rows) times that (a row of 1e200 must not
    # make the others' residuals noise): each is r' weighed, the weights taken to at most 1
    if equilibrate:
        if symmetric:                             # d a d keeps CG's symmetry
            rows = columns = symmetric_equilibration_exponents(a64)
        else:
            rows, columns = row_scales, equilibration_exponents(a64)[1]
        a64 = times_power_of_two(a64, rows[:, None] + columns[None, :])
        b64 = times_power_of_two(b64, rows)
        shift = vector_scale_exponent(b64)
        b64 = times_power_of_two(b64, np.full(b64.shape, shift))
        x_exponents = columns - shift
        exponents = np.stack((rows, rows - row_scales))
        weights = np.exp2(exponents.min(axis=1, keepdims=True) - exponents)
    else:
        # a's rows and columns are of one scale (LAPACK's rule): r = 2**exponent for all
        # rows, c = 1, so a is multiplied once per entry (exact: amax is in [SMALL,
        # LARGE]) to a largest magnitude in [1, 2) as the equilibrated a has; needed, as
        # SciPy's BiCGSTAB compares omega ~ 1 / ||a|| with eps**2 (2**100 times a
        # well-scaled matrix "broke down"), and every method's answer for 2**k a is
        # then exactly 2**-k times that for a.  b is scaled once, by its own largest
        exponent = 1 - math.frexp(amax)[1]
        if exponent:
            a64 = a64 * 2.0 ** exponent
        b_exponent = 1 - math.frexp(bmax)[1] if bmax else 0
        b64 = np.ldexp(b64, b_exponent)
        x_exponents = exponent - b_exponent
        weights = np.ones((2, len(b64)))        # rows of one scale: the plain residual's are 1
        weights[1] = np.exp2(row_scales - row_scales.max())
    b_norms = _weighted_norms(weights, b64)
    targets = [tol * norm for norm in b_norms]
    # ||w * r'|| <= ||r'||: the method's own residual within the least target meets both
    goal = min(targets)
    options = {}
    if preconditioner is not None:
        apply = preconditioner(a64)
        options["M"] = sla.LinearOperator(a64.shape, matvec=apply, dtype=np.float64)
    with np.errstate(all="ignore"):  # breakdowns are reported through info below
        y, info = method(a64, b64, rtol=0.0, atol=goal, **options)
    if info > 0 or not np.isfinite(y).all():
        raise PhylanxValueError(f"{title} did not converge to the relative tolerance {tol:g} "
                                f"within {info if info > 0 else 'the allowed'} iterations")
    if info < 0:
        raise PhylanxValueError(f"{title} broke down (illegal input or numerical breakdown)")
    # the method judged its own running residual; the tolerance is about the true one
    residual = b64 - a64 @ y
    reached = _weighted_norms(weights, residual)
    for look, what in enumerate(("", " (rows equilibrated)")):
        if reached[look] > targets[look]:
            raise PhylanxValueError(
                f"{title} did not reach the relative tolerance {tol:g}{what}: its true "
                f"residual is {reached[look] / b_norms[look]:.3g} of ||b||, "
                "whatever its own running residual said")
    x = times_power_of_two(y, np.asarray(x_exponents))     # an array, or one int for all
    if not np.isfinite(x).all():
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
