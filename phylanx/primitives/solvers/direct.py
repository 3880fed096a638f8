"""Direct linear solvers and the LU decomposition: ``linear_solver_*`` and ``lu``.

The solvers call LAPACK through ``scipy.linalg.lapack`` (``getrf/getrs``,
``sytrf/sytrs``, ``potrf/potrs``) so that a singular or indefinite matrix is a
checked ``PhylanxValueError`` rather than a warning.  Integer and boolean inputs
are solved in float64; as in the original (compat addendum A.3.9), ``linear_solver_*``
take a matrix and ONE right-hand side vector and answer in float64 (``solve``, which
``np.linalg.solve`` compiles to, takes stacks and keeps float32).  float16 and long double
operands are refused as numpy.linalg refuses them (:func:`check_lapack_float`), and so
are inf and NaN (LAPACK's verdict on them is none: sytrf called a NaN "singular").

Numerical singularity: LAPACK's ``info`` only flags a pivot that is exactly zero, and
whether rounding leaves an exact zero or something like -4.7e-17 depends on the BLAS
kernel.  So every singularity, rank or definiteness check of the primitives goes through
:func:`first_negligible`, which calls a pivot zero when it is at most
:func:`rounding_tolerance` = n * eps(dtype) * ||a||_F: the size of the rounding errors of
an n x n factorisation of ``a`` (``numpy.linalg.matrix_rank`` uses the same form with
the largest singular value, which ||a||_F bounds from above).  Being relative to ``a``,
the verdict does not change when ``a`` is scaled.  Nor when its rows or columns are:
a pivot that test calls zero is judged again on ``a`` equilibrated (:func:`equilibrated`,
rows and columns scaled by powers of two to a largest entry in [1, 2)), and the matrix is
singular only if it is so there too: ``[[1e200, 0], [0, 1]]`` is solved, as NumPy does,
with ``a``'s own factors.  A pivot test alone misses some rounded singular matrices (the
last pivot of an unpivoted Cholesky factorisation of ``b @ b.T`` carries rounding noise
amplified by its ill-conditioned leading block, above the tolerance), so :func:`factorise`
also calls singular a matrix whose reciprocal condition number (LAPACK's gecon/sycon/pocon
estimate from the factors, O(n^2)) is at most n * eps, again on both looks: singular to
working precision, as ``numpy.linalg.matrix_rank`` would count it.

``lu`` follows the original (Blaze, row-major storage): ``A = L @ U @ P`` with
``L`` lower triangular, ``U`` *unit* upper triangular and ``P`` a permutation of
the columns.  SciPy factors ``A = P' L' U'`` (row pivoting), so ``lu`` factors the
transpose: ``A.T = P' L' U'`` gives ``A = U'.T @ L'.T @ P'.T``.

The iterative solvers are in ``iterative.py``.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from time import perf_counter_ns

import numpy as np

from ...errors import PhylanxLinAlgError, PhylanxTypeError, PhylanxValueError
from ...values import type_name
from ..lazy_modules import lazy_module
from ..registry import primitive

# SciPy loads on first use (``import phylanx`` stays fast)
scipy = lazy_module("scipy")
lapack = lazy_module("scipy.linalg.lapack")


#: the floating types LAPACK (and so numpy.linalg) computes in
LAPACK_FLOATS = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.complex64,
                                                np.complex128))


def check_lapack_float(arr: np.ndarray, what: str) -> None:
    """A PhylanxTypeError for a float16 or long double ``arr``, as numpy.linalg's
    TypeError: converted to float64 it would be computed in another precision than its
    own, silently (integers and bools are exact in float64, as NumPy takes them)."""
    if arr.dtype.kind in "fc" and arr.dtype not in LAPACK_FLOATS:
        raise PhylanxTypeError(f"{what}: array type {arr.dtype} is unsupported in linear "
                               "algebra, as in numpy.linalg (convert it to float32 or float64)")


def float_operand(value, what: str, ndims: tuple[int, ...]) -> np.ndarray:
    """``value`` as a float32/float64 array of one of the ranks ``ndims``."""
    arr = np.asarray(value)
    if arr.dtype.kind not in "biuf" or arr.dtype == object:
        raise PhylanxTypeError(f"{what} must be a real numeric array, got a {type_name(value)}")
    check_lapack_float(arr, what)
    if arr.ndim not in ndims:
        ranks = " or ".join(f"{n}-d" for n in ndims)
        raise PhylanxValueError(f"{what} must be {ranks}, got a {arr.ndim}-d array "
                                f"of shape {arr.shape}")
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float64)
    return arr


#: how error messages state the test of :func:`first_negligible` alone (a diagonal, the
#: pivots of a factorisation judged without the second look)
RELATIVE_TO_A = "relative to n * eps * ||a||_F"
#: ... and with its second look (:func:`factorise`, :func:`first_singular_in_stack`)
RELATIVE_TO = RELATIVE_TO_A + ", also with its rows and columns equilibrated"


#: the exponent standing for a zero entry: below any sum of exponents taken here
_ZERO = -(1 << 20)


def _exponents(stack: np.ndarray) -> np.ndarray:
    """The binary exponents (``np.frexp``'s, magnitude in [0.5, 1)) of ``stack``'s
    entries, :data:`_ZERO` for a zero: the largest entry of a row has the largest."""
    magnitude = np.abs(stack)
    return np.where(magnitude > 0, np.frexp(magnitude)[1], _ZERO)


def _unit_scales(largest: np.ndarray, root: bool = False) -> np.ndarray:
    """The exponents ``e`` taking values of binary exponents ``largest`` into [1, 2) by
    ``2**e`` (0 for a zero; ``root``: half of it, rounded down)."""
    exponent = 1 - largest
    exponent = exponent // 2 if root else exponent
    return np.where(largest > _ZERO // 2, exponent, 0)


def times_power_of_two(stack: np.ndarray, exponents: np.ndarray) -> np.ndarray:
    """``stack * 2**exponents`` rounded once per entry (only where the product is
    subnormal): a row's and a column's scales applied one after the other could round
    twice, an entry taken to a subnormal by its row and back up by its column losing
    its low bits on the way."""
    exponents = exponents.astype(np.int32)
    if stack.dtype.kind != "c":
        return np.ldexp(stack, exponents)
    scaled = np.empty(np.broadcast_shapes(stack.shape, exponents.shape), stack.dtype)
    scaled.real, scaled.imag = np.ldexp(stack.real, exponents), np.ldexp(stack.imag, exponents)
    return scaled


def equilibrated(stack: np.ndarray, symmetric: bool = False) -> np.ndarray:
    """The finite float stack ``stack`` (..., n, n) with each matrix's rows, then its
    columns, scaled by powers of two to a largest magnitude in [1, 2) (LAPACK's geequb);
    ``symmetric``: one scale ``d`` for both, ``d a d`` (syequb's form, ``d`` about
    1 / sqrt(largest of the row) until the rows stay), so that a symmetric matrix stays
    symmetric.  A
    matrix is singular exactly when its equilibrated form is; the pivots of that form are
    comparable with its norm whatever the scales of the rows and columns were.  The
    scales are found on the entries' exponents and each entry is scaled once
    (:func:`times_power_of_two`): exact but where the result is subnormal."""
    if symmetric:
        d = symmetric_equilibration_exponents(stack)
        return times_power_of_two(stack, d[..., :, None] + d[..., None, :])
    rows, columns = equilibration_exponents(stack)
    return times_power_of_two(stack, rows[..., :, None] + columns[..., None, :])


def symmetric_equilibration_exponents(stack: np.ndarray) -> np.ndarray:
    """``d``: :func:`equilibrated`'s ``times_power_of_two(stack, d[..., :, None] +
    d[..., None, :])`` for ``symmetric``."""
    exponents = _exponents(stack)
    # Ruiz's iteration: d a d with d = 1 / sqrt(row maxima) again and again; each
    # pass halves the exponents' distance from a balanced matrix (a large row of
    # the first pass made another row's off-diagonal entry its maximum)
    d = np.zeros(stack.shape[:-1], np.int64)
    for _ in range(2 * np.finfo(stack.dtype).nexp):
        largest = (exponents + d[..., :, None] + d[..., None, :]).max(axis=-1)
        step = _unit_scales(largest, root=True)
        if not step.any():
            break
        d = d + step
    return d


def unit_scale_exponents(largest: np.ndarray) -> np.ndarray:
    """The exponents ``e`` taking the magnitudes ``largest`` into [1, 2) by ``2**e`` (0 for
    a zero): :func:`equilibration_exponents`'s rows, from the rows' largest magnitudes
    (n values instead of the n^2 entries' exponents)."""
    return np.where(largest > 0, 1 - np.frexp(largest)[1], 0)


def vector_scale_exponent(vector: np.ndarray) -> int:
    """The exponent ``e`` taking the finite ``vector``'s largest magnitude into [1, 2) by ``2**e``
    (0 for a zero vector)."""
    largest = float(np.abs(vector).max(initial=0.0))        # the largest has the largest exponent
    return 1 - math.frexp(largest)[1] if largest != 0 else 0


def equilibration_exponents(stack: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, columns)``: :func:`equilibrated`'s ``times_power_of_two(stack,
    rows[..., :, None] + columns[..., None, :])``."""
    exponents = _exponents(stack)
    rows = _unit_scales(exponents.max(axis=-1))
    return rows, _unit_scales((exponents + rows[..., :, None]).max(axis=-2))


def rounding_tolerance(a: np.ndarray, dtype=None) -> float:
    """n * eps(dtype) * ||a||_F for an n x n (or m x n, n the larger side) matrix ``a``.

    The one place the tolerance formula lives.  ``dtype`` is that of the arithmetic
    (default: ``a``'s floating type, float64 for integers).  The norm is taken as
    ``max|a| * ||a / max|a| ||_F`` so that it neither overflows nor underflows.  Inf or
    NaN in ``a`` give an infinite tolerance, which :func:`first_negligible` does not judge."""
    a = np.asarray(a)
    if dtype is None:
        dtype = a.dtype if a.dtype.kind in "fc" else np.float64
    eps = np.finfo(dtype).eps
    n = max(a.shape[-2:], default=1) if a.ndim >= 2 else max(a.size, 1)
    magnitude = np.abs(a)
    largest = float(magnitude.max(initial=0.0))
    if not np.isfinite(largest):
        return float("inf")
    if largest == 0:
        return 0.0
    return float(n * eps * largest * np.linalg.norm(magnitude / largest))


def first_negligible(values, a: np.ndarray, dtype=None) -> int | None:
    """1-based position of the first of ``values`` (pivots, a diagonal, ...) whose magnitude
    is at most ``rounding_tolerance(a, dtype)``, else None.

    An all-zero ``a`` has tolerance 0, so its (zero) pivots count.  A non-finite tolerance
    or pivot (inf/NaN in ``a``) is not judged here: LAPACK's own result stands."""
    return _first_at_most(values, rounding_tolerance(a, dtype))


def _first_at_most(values, tolerance: float) -> int | None:
    """:func:`first_negligible` for its ``rounding_tolerance`` already computed."""
    if not np.isfinite(tolerance):
        return None
    small = np.abs(np.asarray(values)) <= tolerance        # NaN compares False
    return int(np.argmax(small)) + 1 if small.any() else None


@functools.cache
def lapack_routine(name: str, dtype: np.dtype):
    """LAPACK's ``name`` for ``dtype`` (scipy's ``get_lapack_funcs``), looked up once: the
    look-up costs about as much as the routine itself on a small matrix (order 10)."""
    routine, = lapack.get_lapack_funcs((name,), dtype=dtype)
    return routine


def symmetric_from_triangle(a: np.ndarray, lower: int) -> np.ndarray:
    """The symmetric matrix that LAPACK's symmetric routines read from one triangle of ``a``."""
    if lower:
        return np.tril(a) + np.tril(a, -1).T
    return np.triu(a) + np.triu(a, 1).T


def lu_pivots(factors, lower=None) -> np.ndarray:
    """The pivots of a getrf result ``(lu, ipiv)``: the diagonal of U."""
    return np.diag(factors[0])


def ldlt_pivots(factors, lower) -> np.ndarray:
    """The pivots of a sytrf result ``(ldu, ipiv)``: the eigenvalues of D's 1x1 and 2x2 blocks
    (a is singular exactly when one is zero); one value per row, 2x2 blocks give the
    smaller eigenvalue (in magnitude) to their first row and the larger to the second."""
    ldu, ipiv = factors
    n = len(ipiv)
    values = np.empty(n, dtype=np.abs(np.diag(ldu)).dtype)
    k = 0
    while k < n:
        if ipiv[k] > 0 or k + 1 == n:           # a 1x1 block (LAPACK marks 2x2 blocks < 0)
            values[k] = abs(ldu[k, k])
            k += 1
            continue
        off = ldu[k + 1, k] if lower else ldu[k, k + 1]
        block = np.array([[ldu[k, k], off], [off, ldu[k + 1, k + 1]]], dtype=np.float64)
        values[k:k + 2] = np.sort(np.abs(np.linalg.eigvalsh(block)))
        k += 2
    return values


def cholesky_pivots(factors, lower=None) -> np.ndarray:
    """The pivots of a potrf result ``(c,)``: the squared diagonal (the Schur complements)."""
    return np.diag(factors[0]) ** 2


_PIVOTS = {"getrf": lu_pivots, "sytrf": ldlt_pivots, "potrf": cholesky_pivots}


@dataclass(frozen=True)
class Singular:
    """Why :func:`factorise` calls a matrix singular: its first zero pivot (1-based; LAPACK's
    ``info`` or negligible by :func:`first_negligible`), or, with no pivot at fault, LAPACK's
    estimate ``rcond`` of its reciprocal condition number, at most n * eps."""
    pivot: int | None = None
    rcond: float | None = None

    def reason(self, factorisation: str, zero: str = "zero") -> str:
        """The clause for an error message: what was found, and relative to what."""
        if self.pivot is not None:
            return (f"pivot {self.pivot} of its {factorisation} factorisation is {zero} "
                    f"{RELATIVE_TO}")
        return (f"its reciprocal condition number {self.rcond:.3g} (LAPACK's estimate) is at "
                f"most n * eps: singular to working precision, also with its rows and columns "
                f"equilibrated")


#: the LAPACK routine estimating the reciprocal condition number from each factorisation
_CONDITION = {"getrf": "gecon", "sytrf": "sycon", "potrf": "pocon"}


def reciprocal_condition(read: np.ndarray, factors, factor_name: str, lower: int | None) -> float:
    """LAPACK's estimate of 1 / (||a||_1 ||inv(a)||_1) for the finite matrix ``read`` whose
    ``factor_name`` factorisation is ``factors`` (0 when ||a||_1 overflows)."""
    # xLANGE, as LAPACK's drivers take the norm for xGECON: an overflow is inf, no warning
    anorm = float(lapack_routine("lange", read.dtype)("1", read)) if read.size else 0.0
    if not np.isfinite(anorm):
        return 0.0
    condition = lapack_routine(_CONDITION[factor_name], read.dtype)
    if factor_name == "getrf":
        rcond, _ = condition(factors[0], anorm, norm="1")
    elif factor_name == "sytrf":
        rcond, _ = condition(factors[0], factors[1], anorm, lower=lower)
    else:
        rcond, _ = condition(factors[0], anorm, uplo="L" if lower else "U")
    return float(rcond)


def _looks_singular(read: np.ndarray, factors, factor_name: str, lower: int | None,
                    dtype) -> Singular | None:
    """One look of :func:`factorise` at the factors of ``read``: a negligible pivot, else a
    reciprocal condition number at most n * eps (a pivot test alone misses singular
    matrices whose rounding noise lands above the tolerance, e.g. at the last pivot of an
    unpivoted Cholesky factorisation, amplified by an ill-conditioned leading block)."""
    tolerance = rounding_tolerance(read, dtype)
    if not np.isfinite(tolerance):
        return None             # inf or NaN in ``read``: LAPACK's own result stands
    bad = _first_at_most(_PIVOTS[factor_name](factors, lower), tolerance)
    if bad is not None:
        return Singular(pivot=bad)
    rcond = reciprocal_condition(read, factors, factor_name, lower)
    return Singular(rcond=rcond) if rcond <= len(read) * np.finfo(dtype).eps else None


def factorise(a: np.ndarray, factor_name: str, lower: int | None = None):
    """LAPACK ``factor_name`` of the float matrix ``a`` -> ``(factors, singular)``.

    ``singular`` is None for a regular ``a``, else a :class:`Singular`: a pivot that is zero
    (LAPACK ``info``) or negligible relative to ``a`` (:func:`first_negligible`; for
    sytrf/potrf ``a`` is the symmetric matrix read from the ``lower`` triangle), or
    LAPACK's reciprocal condition estimate at most n * eps; either found on ``a`` and
    again on ``a`` equilibrated (the module docstring's second look)."""
    factor = lapack_routine(factor_name, a.dtype)
    flags = {} if lower is None else {"lower": lower}
    *factors, info = factor(a, **flags)
    if info < 0:  # pragma: no cover - only on malformed input, which callers check
        raise PhylanxValueError(f"LAPACK {factor_name} rejected argument {-info}")
    if info > 0:
        return factors, Singular(pivot=int(info))
    read = a if lower is None else symmetric_from_triangle(a, lower)
    singular = _looks_singular(read, factors, factor_name, lower, a.dtype)
    if singular is not None and np.isfinite(read).all():
        # the second look, on ``a`` equilibrated (module docstring): its rows' scales
        # may be all that made a pivot small next to ||a||_F or its condition large
        balanced = equilibrated(read, symmetric=lower is not None)
        *again, info = factor(balanced, **flags)
        singular = Singular(pivot=int(info)) if info > 0 else _looks_singular(
            balanced, again, factor_name, lower, a.dtype)
    return factors, singular


def _frobenius_norms(stack: np.ndarray, info: np.finfo) -> np.ndarray:
    """||a||_F of each matrix of ``stack`` (count, n, n), as :func:`rounding_tolerance` takes it.

    Summing the squares directly is one pass; a matrix whose sum of squares overflowed, or
    is too small to keep full precision (its largest square may be subnormal), is redone as
    ``max|a| * ||a / max|a| ||_F``."""
    n = stack.shape[-1]
    if stack.dtype.kind == "f":
        squares = np.einsum("ijk,ijk->i", stack, stack)
        redo = ~(np.isfinite(squares) & (squares >= n * n * info.tiny / info.eps))
        norms = np.sqrt(squares)
    else:
        redo = np.ones(stack.shape[0], dtype=bool)
        norms = np.empty(stack.shape[0], dtype=info.dtype)
    if redo.any():
        magnitude = np.abs(stack[redo])
        largest = magnitude.max(axis=(1, 2))
        scale = np.where(largest > 0, largest, 1.0)
        scaled = np.sqrt(np.sum((magnitude / scale[:, None, None]) ** 2, axis=(1, 2)))
        norms[redo] = np.where(largest > 0, largest * scaled, 0.0)
    return norms


#: matrices in a stack from which its pivots are worth a compiled kernel (kernels/fixed.py)
COMPILED_STACK = 64


def _stack_pivots(stack: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(|u_kk| per matrix, getrf's info per matrix, rcond per matrix)`` of a float stack
    (count, n, n): by the compiled kernel once it has paid for itself (a large real stack,
    numba, ``fusion_rows``), else by LAPACK's getrf and gecon in a loop.  ``rcond`` is the
    estimate of LAPACK's gecon from the factors (the kernel's is the same algorithm,
    ``kernels/fixed.py``), 0 where a pivot is exactly zero."""
    count, n = stack.shape[0], stack.shape[-1]
    # real stacks only: LAPACK pivots complex ones on |re| + |im|, the kernel on |z|
    compiled = count >= COMPILED_STACK and stack.dtype in (np.float32, np.float64)
    if compiled:
        from ...kernels import fixed
        key = fixed.arrival_key(stack)
        # the solving kernel with no right-hand sides: the elimination alone
        none = np.empty((count, n, 0), stack.dtype)
        kernels = fixed.lu_pivots.get(key, lambda: (
            np.ascontiguousarray(stack[:1]), none[:1], none[:1],
            np.empty((1, n), stack.dtype), np.empty(1, np.int64), np.empty(1)))
        if kernels is not None:
            work = np.ascontiguousarray(stack)
            pivots, infos = np.empty((count, n), work.dtype), np.empty(count, np.int64)
            rconds = np.empty(count)
            fixed.FixedKernel.run(kernels, work, none, none, pivots, infos, rconds)
            return pivots, infos, rconds
        start = perf_counter_ns()
    getrf = lapack_routine("getrf", stack.dtype)
    # each swapped matrix, transposed back, is a Fortran-ordered copy that LAPACK factorises
    # in place: the loop does nothing but call it, the pivots are read afterwards at once
    # (a copy always: for a transposed operand, ``x.T``, the swapped stack is ``x``'s own
    # memory, which getrf overwrote until ad45)
    columns = np.array(np.swapaxes(stack, 1, 2), order="C", copy=True)
    factors = columns.transpose(0, 2, 1)
    infos = np.array([getrf(m, overwrite_a=1)[2] for m in factors], dtype=np.int64)
    if np.any(infos < 0):  # pragma: no cover - only on malformed input, which callers check
        raise PhylanxValueError(f"LAPACK getrf rejected argument {-int(infos.min())}")
    rconds = _stack_conditions(stack, factors, infos)
    if compiled:
        fixed.lu_pivots.spent(key, perf_counter_ns() - start)
    return np.abs(np.diagonal(columns, axis1=1, axis2=2)), infos, rconds


def _stack_conditions(stack: np.ndarray, factors: np.ndarray, infos: np.ndarray) -> np.ndarray:
    """LAPACK gecon's reciprocal condition estimate of each matrix of ``stack`` from its
    getrf ``factors`` (Fortran-ordered), 0 where a pivot is exactly zero (``infos``) or
    ||a||_1 is not finite; one call per matrix (about 5 us, more than getrf's own call on
    a small matrix) but for those :func:`_clearly_conditioned` passes, whose estimate
    cannot be at most n * eps: for them a lower bound of it, from the factors at once."""
    gecon = lapack_routine("gecon", stack.dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        norms = np.abs(stack).sum(axis=-2).max(axis=-1, initial=0.0)
    rconds = np.zeros(len(norms))
    regular = (infos == 0) & (0 < norms) & (norms < np.inf)
    bounds = _clearly_conditioned(factors, norms, regular)
    rconds[bounds > 0] = bounds[bounds > 0]
    for i in np.flatnonzero(regular & ~(bounds > 0)).tolist():
        rconds[i] = gecon(factors[i], float(norms[i]), norm="1")[0]
    return rconds


def _clearly_conditioned(factors: np.ndarray, norms: np.ndarray, regular: np.ndarray
                         ) -> np.ndarray:
    """Per matrix of a stack (getrf ``factors``, ||a||_1 ``norms``, ``regular``: no zero
    pivot, a finite norm): a lower bound of 1 / (||a||_1 ||inv(a)||_1) where it exceeds
    sqrt(eps), else 0.

    The law: a triangular matrix ``t`` has |inv(t)| <= inv(M(t)) entrywise, M(t) its
    comparison matrix (|diagonal|, -|off-diagonal|), so ||inv(t)||_1 <= ||inv(M(t))^T e||_inf,
    one triangular solve; ||inv(a)||_1 <= ||inv(U)||_1 ||inv(L)||_1 (the row swaps keep the
    norm).  gecon's estimate of ||inv(a)||_1 is a lower bound of it, so its reciprocal
    condition is at least this bound; sqrt(eps), far above n * eps, leaves its rounding
    (relative cond * eps, here at most sqrt(eps)) no way to the verdict."""
    count, n = factors.shape[0], factors.shape[-1]
    bounds = np.zeros(count)
    if not regular.any():
        return bounds
    magnitude = np.abs(factors[regular]).astype(np.float64)
    diagonal = np.diagonal(magnitude, axis1=1, axis2=2)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        # M(U)^T y = e (forward), M(L)^T z = e (backward, unit diagonal)
        y = np.empty((len(magnitude), n))
        for j in range(n):
            y[:, j] = (1 + np.einsum("ci,ci->c", magnitude[:, :j, j], y[:, :j])) / diagonal[:, j]
        z = np.empty((len(magnitude), n))
        for j in range(n - 1, -1, -1):
            z[:, j] = 1 + np.einsum("ci,ci->c", magnitude[:, j + 1:, j], z[:, j + 1:])
        bound = 1 / (norms[regular] * y.max(axis=1) * z.max(axis=1))
    eps = np.finfo(factors.dtype).eps
    bounds[regular] = np.where(bound > np.sqrt(eps), bound, 0.0)
    return bounds


def stack_solve_key(a: np.ndarray, b: np.ndarray) -> tuple | None:
    """The key of :func:`solve_stack_compiled`'s kernel for ``a @ x = b``, None when the
    operands are not its case: a real float32/float64 stack ``a`` (..., n, n) of at
    least ``COMPILED_STACK`` matrices, ``b`` (..., n, k) of the same dtype and leading
    axes.  The caller that solved the NumPy way reports the time to
    ``kernels.fixed.lu_solve.spent(key, ns)`` (the ski rental of ``FixedKernel``)."""
    from ...kernels import fixed
    n = a.shape[-1]
    if (a.ndim < 3 or b.ndim != a.ndim or b.shape[:-2] != a.shape[:-2] or n == 0
            or a.size // (n * n) < COMPILED_STACK or a.dtype not in (np.float32, np.float64)
            or b.dtype != a.dtype):
        return None
    return fixed.arrival_key(a, b)


def solve_stack_compiled(a: np.ndarray, b: np.ndarray, key: tuple):
    """``(x, first_singular)`` of ``a @ x = b`` by one compiled elimination per matrix
    (``kernels/fixed.py: LU_SOLVE``) that also gives the pivots of
    :func:`first_singular_in_stack`'s check (``first_singular`` is what that returns;
    ``x`` is then not to be used); None while the kernel of ``key``
    (:func:`stack_solve_key`) is not compiled, or for inf/NaN in ``a`` (NumPy's result
    stands).  Results are this elimination's rounding, not LAPACK's, from the call the
    kernel is ready on (the difference is within the condition number times eps)."""
    from ...kernels import fixed
    n = a.shape[-1]
    count = a.size // (n * n)
    shape = (count, n, b.shape[-1])
    kernels = fixed.lu_solve.get(key, lambda: (
        np.ascontiguousarray(a.reshape(count, n, n)[:1]),
        np.ascontiguousarray(b.reshape(shape)[:1]), np.empty((1,) + shape[1:], a.dtype),
        np.empty((1, n), a.dtype), np.empty(1, np.int64), np.empty(1)))
    if kernels is None:
        return None
    stack = np.ascontiguousarray(a).reshape(count, n, n)
    if not np.isfinite(stack).all():
        return None
    rhs = np.ascontiguousarray(b).reshape(shape)
    x = np.empty(shape, a.dtype)
    pivots, infos = np.empty((count, n), a.dtype), np.empty(count, np.int64)
    rconds = np.empty(count)
    fixed.FixedKernel.run(kernels, stack, rhs, x, pivots, infos, rconds)
    return x.reshape(b.shape), first_singular_in_stack(a, (pivots, infos, rconds))


def first_singular_in_stack(work: np.ndarray, factored: tuple | None = None
                            ) -> tuple[tuple[int, ...], Singular] | None:
    """``(index, singular)`` of the first matrix of the finite float stack ``work``
    (..., n, n) that :func:`factorise` with getrf calls singular (``singular`` its
    :class:`Singular`), else None.

    Equal to calling ``factorise(work[index], "getrf")`` for every index in order: a
    vectorised screen over the whole stack (its pivots against the tolerance of
    :func:`rounding_tolerance`, its condition estimates against n * eps, from one
    factorisation per matrix) passes the matrices that ``factorise``'s first look passes,
    and each matrix it flags is judged by ``factorise`` itself (both looks): a stacked
    ``solve`` of thousands of small systems (ALS) spent most of its time in per-matrix
    Python.  ``factored``: the ``(pivots, infos, rconds)`` of :func:`_stack_pivots`,
    already computed."""
    n = work.shape[-1]
    stack = work.reshape(-1, n, n)
    count = stack.shape[0]
    if count == 0 or n == 0:
        return None
    pivots, infos, rconds = _stack_pivots(stack) if factored is None else factored
    info = np.finfo(work.dtype if work.dtype.kind in "fc" else np.float64)
    tolerance = n * info.eps * _frobenius_norms(stack, info)
    # (the tolerance and ||a||_1 are taken for the whole stack at once: a matrix at the
    # verdict's very edge may be flagged by the screen and passed by factorise, not the
    # other way round but for the last rounding of those norms)
    flagged = ((pivots <= tolerance[:, None]).any(axis=1) | (infos > 0)
               | ~(rconds > n * info.eps))
    for first in np.flatnonzero(flagged).tolist():
        _, singular = factorise(np.array(stack[first], order="F"), "getrf")
        if singular is not None:
            return tuple(int(i) for i in np.unravel_index(first, work.shape[:-2])), singular
    return None


def system_operands(a, b) -> tuple[np.ndarray, np.ndarray, np.dtype]:
    """Check ``a x = b``: square ``a``, ``b`` a vector or matrix with as many rows.

    Returns both in the common float dtype (float32 only if both are float32)."""
    a = float_operand(a, "the matrix a", (2,))
    b = float_operand(b, "the right-hand side b", (1, 2))
    if a.shape[0] != a.shape[1]:
        raise PhylanxValueError(f"the matrix a must be square, got shape {a.shape}")
    if b.shape[0] != a.shape[0]:
        raise PhylanxValueError(f"the right-hand side b has {b.shape[0]} rows but the matrix "
                                f"a has {a.shape[0]} (shapes {a.shape} and {b.shape})")
    dtype = np.result_type(a.dtype, b.dtype)
    return a.astype(dtype, copy=False), b.astype(dtype, copy=False), dtype


def _lower_flag(uplo, name: str) -> int:
    """The original's uplo argument: exactly "L" or "U" (the default), as LAPACK's flag."""
    if uplo is None:
        return 0
    if not isinstance(uplo, str) or uplo not in ("L", "U"):
        raise PhylanxValueError(f"{name} requires the third argument to be either 'L' or 'U', "
                                f"got {uplo!r}")
    return 1 if uplo == "L" else 0


def _original_operands(a, b, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The original's operands: a matrix and a vector, both read as float64."""
    for value in (a, b):
        kind = np.asarray(value).dtype.kind
        if kind not in "biuf":
            raise PhylanxTypeError(f"{name} requires real numeric operands (complex is not "
                                   f"supported), got a {type_name(value)}")
        check_lapack_float(np.asarray(value), "an operand")
    if np.ndim(a) != 2 or np.ndim(b) != 1:
        raise PhylanxValueError(
            f"{name} requires that first operand to be a matrix and the second operand to be a "
            f"vector, got a {np.ndim(a)}-d and a {np.ndim(b)}-d value (several right-hand "
            "sides: np.linalg.solve)")
    a, b, _ = system_operands(np.asarray(a, np.float64), np.asarray(b, np.float64))
    for what, value in (("a", a), ("b", b)):
        # LAPACK's verdict on inf/NaN is no verdict: sytrf called NaN "singular"
        if not np.isfinite(value).all():
            raise PhylanxValueError(f"{name} needs finite operands: inf or NaN in {what}")
    return a, b


def _solve_with(name: str, a, b, factor_name: str, solve_name: str, lower: int | None,
                failure):
    """Factor ``a`` with LAPACK ``factor_name`` and solve with ``solve_name``; a singular
    ``a`` is the error ``failure(singular)`` says (:class:`Singular`)."""
    a, b = _original_operands(a, b, name)
    if a.shape[0] == 0:
        return np.zeros(0)
    factors, singular = factorise(a, factor_name, lower)
    if singular is not None:
        raise PhylanxLinAlgError(failure(singular))
    solve = lapack_routine(solve_name, a.dtype)               # a and b: both float64
    flags = {} if lower is None else {"lower": lower}
    x, info = solve(*factors, b.reshape(-1, 1), **flags)
    return x.reshape(-1)


def _solve_oracle(triangle: bool):
    """The addendum's rule A.3.9: a matrix and a vector, float64; the symmetric solvers read
    the triangle named by uplo (default "U")."""
    def oracle(a, b, uplo="U"):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        if a.ndim != 2 or b.ndim != 1 or uplo not in ("L", "U"):
            raise ValueError("a matrix, a vector and 'L' or 'U'")
        if triangle:
            a = np.tril(a) + np.tril(a, -1).T if uplo == "L" else np.triu(a) + np.triu(a, 1).T
        return np.linalg.solve(a, b)
    return oracle


@primitive("linear_solver_lu", "linear_solver_lu(_1, _2)",
           oracle=_solve_oracle(False),
           example="linear_solver_lu([[0.0, 2.0], [3.0, 1.0]], [4.0, 5.0])", result="[1.0, 2.0]")
def linear_solver_lu(a, b):
    """Solve ``a x = b`` by LU decomposition with partial pivoting (LAPACK getrf/getrs).

    As in the original: exactly two operands, ``a`` a square matrix and ``b`` a vector
    (several right-hand sides: ``solve``, what np.linalg.solve compiles to), both read
    as float64; the result is a float64 vector.  A singular ``a`` is an error, also a
    numerically singular one: a pivot of magnitude at most n * eps * ||a||_F (see the
    module docstring).  ``numpy.linalg.solve`` only refuses exactly zero pivots."""
    return _solve_with("linear_solver_lu", a, b, "getrf", "getrs", None,
                       lambda singular: f"the matrix a is singular ({singular.reason('LU')})")


@primitive("linear_solver_ldlt", "linear_solver_ldlt(_1, _2)", "linear_solver_ldlt(_1, _2, _3)",
           oracle=_solve_oracle(True),
           example="linear_solver_ldlt([[1.0, 2.0], [2.0, 1.0]], [3.0, 3.0])", result="[1.0, 1.0]")
def linear_solver_ldlt(a, b, uplo=None):
    """Solve ``a x = b`` for symmetric ``a`` by an LDL^T (Bunch-Kaufman) factorisation.

    Only the triangle named by ``uplo`` ("U", the default, or "L") is read, as in LAPACK
    sytrf: the other triangle is assumed to mirror it.  ``a`` a matrix and ``b`` a
    vector, read as float64.  ``a`` may be indefinite; a singular ``a`` is an error, also
    a numerically singular one (an eigenvalue of a pivot block of D of magnitude at most
    n * eps * ||a||_F)."""
    name = "linear_solver_ldlt"
    return _solve_with(name, a, b, "sytrf", "sytrs", _lower_flag(uplo, name),
                       lambda singular: f"the matrix a is singular ({singular.reason('LDL^T')})")


@primitive("linear_solver_cholesky", "linear_solver_cholesky(_1, _2)",
           "linear_solver_cholesky(_1, _2, _3)",
           oracle=_solve_oracle(True),
           example="linear_solver_cholesky([[4.0, 2.0], [2.0, 3.0]], [6.0, 5.0])",
           result="[1.0, 1.0]")
def linear_solver_cholesky(a, b, uplo=None):
    """Solve ``a x = b`` for symmetric positive definite ``a`` by Cholesky (LL^T).

    Only the triangle named by ``uplo`` ("U", the default, or "L") is read; ``a`` a matrix
    and ``b`` a vector, read as float64.  A matrix that is not positive definite is an
    error, also a numerically singular positive semi-definite one (a pivot l_kk^2 of
    magnitude at most n * eps * ||a||_F)."""
    name = "linear_solver_cholesky"
    return _solve_with(
        name, a, b, "potrf", "potrs", _lower_flag(uplo, name),
        lambda singular: "the matrix a is not positive definite ("
                         + singular.reason("Cholesky", zero="not positive") + ")")


@primitive("lu", "lu(_1)",
           no_oracle="A = L U P (column pivoting) has no NumPy counterpart; "
                     "checked in tests against scipy.linalg.lu",
           example="lu([[1.0, 2.0], [3.0, 4.0]])",
           result="list([[2.0, 0.0], [4.0, 1.0]], [[1.0, 0.5], [0.0, 1.0]], "
                  "[[0.0, 1.0], [1.0, 0.0]])")
def lu(a):
    """LU decomposition ``A = L @ U @ P`` -> ``list(L, U, P)`` (the original's convention).

    ``L`` is lower triangular, ``U`` unit upper triangular, ``P`` a column permutation
    matrix (float); ``A`` may be rectangular (``L`` is m x k, ``U`` k x n with
    k = min(m, n)).  Note the order differs from ``scipy.linalg.lu`` (``A = P L U``):
    this is that factorisation of ``A.T``, transposed."""
    a = float_operand(a, "the matrix", (2,))
    if not np.all(np.isfinite(a)):
        raise PhylanxValueError("the matrix must not contain inf or NaN")
    p_t, l_t, u_t = scipy.linalg.lu(a.T)
    return [np.ascontiguousarray(u_t.T), np.ascontiguousarray(l_t.T),
            np.ascontiguousarray(p_t.T)]
