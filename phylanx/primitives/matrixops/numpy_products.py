"""matrixops, NumPy products and the stacked solver the original lacks (extensions): ``inner
vdot kron einsum solve``.

Each is the NumPy function of the same name (``solve`` is ``numpy.linalg.solve``) with
NumPy's result types: integers stay integers in the products, float32 stays float32.
``solve`` works on stacks of matrices with NumPy 2's broadcasting rule (see its
docstring) and, like ``inverse`` and ``linear_solver_lu``, also refuses a numerically
singular matrix (a pivot at most n * eps * ||a||_F, or LAPACK's reciprocal condition
estimate at most n * eps; see solvers/direct.py), the same rule for one matrix and a
stack, where NumPy only refuses exactly zero pivots and otherwise returns huge garbage.
A large real stack (ALS' per-row systems) is, once hot, solved by one compiled
elimination per matrix that also yields the check's pivots and condition estimates
(``solvers/direct.solve_stack_compiled``);
until then the check runs beside NumPy's solve.
"""
from __future__ import annotations

from functools import partial
from time import perf_counter_ns
from typing import Any

import numpy as np

from ...errors import PhylanxError, PhylanxLinAlgError, PhylanxTypeError, PhylanxValueError
from ...runtime.forkjoin import fork_join
from ...values import scalarize, type_name
from ..array_args import numpy_call
from ..registry import primitive
from ..solvers.direct import (
    first_singular_in_stack,
    lapack,
    reciprocal_condition,
    solve_stack_compiled,
    stack_solve_key,
)
from .linalg import numeric


@primitive(
    "inner", "inner(_1_a, _2_b)", extension=True, oracle=np.inner, differentiable=True,
    example="inner([[1, 2], [3, 4]], [1, 10])", result="[21, 43]",
)
def inner(a, b):
    """Inner product over the last axes, like numpy.inner (numbers multiply).

    For vectors the dot product; in general ``out[i..., j...] = sum(a[i..., :] *
    b[j..., :])``, so the last axes must have the same length.
    """
    x, y = numeric(a, "a"), numeric(b, "b")
    return scalarize(np.asarray(numpy_call(np.inner, x, y)))


@primitive(
    "vdot", "vdot(_1_a, _2_b)", extension=True, oracle=np.vdot, differentiable=True,
    example="vdot([[1, 2], [3, 4]], [[1, 0], [0, 10]])", result="41",
)
def vdot(a, b):
    """Dot product of the flattened arrays, the first conjugated, like numpy.vdot.

    Both must have the same number of elements (their shapes may differ); the result
    is a number.
    """
    x, y = numeric(a, "a"), numeric(b, "b")
    if x.size != y.size:
        raise PhylanxValueError(f"vdot needs arrays of the same size, got {x.size} and "
                                f"{y.size} elements (shapes {x.shape} and {y.shape})")
    return scalarize(np.asarray(numpy_call(np.vdot, x, y)))


@primitive(
    "kron", "kron(_1_a, _2_b)", extension=True, differentiable=True, oracle=np.kron,
    example="kron([[1, 2]], [[1], [10]])", result="[[1, 2], [10, 20]]",
)
def kron(a, b):
    """Kronecker product: blocks ``a[i, j] * b``, like numpy.kron (any ranks)."""
    x, y = numeric(a, "a"), numeric(b, "b")
    return scalarize(np.asarray(numpy_call(np.kron, x, y)))


#: an einsum of two or more operands doing at least this many multiply-adds (the product
#: of its labels' lengths) asks NumPy to plan its contractions (``optimize=True``: pairs
#: of operands as BLAS products).  NumPy's default sums them in its own loop: ``python
#: benchmarks/einsum_paths.py`` (one BLAS thread, float32, load 24: **loaded**), planned
#: / plain CPU time of a pointwise convolution ``"blc,ck->blk"``, its two cotangents and
#: ``"ij,jk->ik"``: 2.5-5.1x at 1-5K multiply-adds (the planning's 15-20 us), 0.69-1.26x
#: at 20K, 0.26-0.44x at 82K, 0.08-0.17x at 655K, 0.15-0.27x at 2.6M (a Conv1D layer's:
#: 1.4-2.1 ms against 0.23-0.44): the bound lies between the last mixed and first sure case
EINSUM_PLANNED_WORK = 1 << 15


def einsum_work(subscripts: str, shapes: list[tuple[int, ...]]) -> int:
    """The multiply-adds of ``einsum(subscripts, *operands of shapes)``: the product of
    every label's length (``...`` counted as its largest broadcast extent); 0 when the
    subscripts do not describe the operands (``np.einsum`` then reports it)."""
    inputs = subscripts.replace(" ", "").partition("->")[0]
    terms = inputs.split(",")
    if len(terms) != len(shapes):
        return 0
    sizes: dict[str, int] = {}
    broadcast = 1
    for term, shape in zip(terms, shapes):
        if "..." in term:
            head, _, tail = term.partition("...")
            rank = len(shape) - len(head) - len(tail)
            if rank < 0:
                return 0
            broadcast = max(broadcast, int(np.prod(shape[len(head):len(head) + rank])))
            term, shape = head + tail, shape[:len(head)] + shape[len(head) + rank:]
        if len(term) != len(shape):
            return 0
        for label, n in zip(term, shape):
            sizes[label] = max(sizes.get(label, 1), int(n))
    work = broadcast
    for n in sizes.values():
        work *= n
    return work


def einsum_planned(subscripts: str, arrays: list[np.ndarray]) -> bool:
    """Whether ``np.einsum`` should plan this einsum (``optimize=True``): see
    :data:`EINSUM_PLANNED_WORK`.  Never for float16 (NumPy's own einsum sums float16
    in its own way; a planned one rounds and may overflow each pair's product)."""
    return (len(arrays) > 1
            and einsum_work(subscripts, [a.shape for a in arrays]) >= EINSUM_PLANNED_WORK
            and np.result_type(*arrays) != np.float16)


def einsum_operands(subscripts: str, arrays: list) -> tuple[list, bool]:
    """``(operands, optimize)`` for ``np.einsum(subscripts, *operands, optimize=...)``:
    planned (:func:`einsum_planned`), every operand in their common dtype.  A plan
    contracts pairs of operands in their own dtype, where NumPy's einsum computes all
    in the common one: two int8 operands met in int8 (wrapping) before a float64 one,
    two float16 ones overflowed before a float32 one (rev24)."""
    if not einsum_planned(subscripts, arrays):
        return arrays, False
    common = np.result_type(*arrays)
    return [a if a.dtype == common else a.astype(common) for a in arrays], True


@primitive(
    "einsum", "einsum(_1_subscripts, __2)", extension=True, oracle=np.einsum,
    differentiable=True,
    example="einsum(\"ij,j->i\", [[1, 2], [3, 4]], [1, 10])", result="[21, 43]",
)
def einsum(subscripts, *operands):
    """Einstein summation over the operands as written in ``subscripts``, like numpy.einsum.

    ``"ij,jk->ik"`` is a matrix product, ``"ii"`` a trace, ``"ij->ji"`` a transpose,
    ``"...ij,...jk"`` broadcasts over leading axes; without ``->`` the output holds the
    indices that occur once, in alphabetical order.
    """
    if not isinstance(subscripts, str):
        raise PhylanxTypeError(f"subscripts must be a string such as \"ij,jk->ik\", got a "
                               f"{type_name(subscripts)}")
    arrays = [numeric(op, f"operand {i + 1}") for i, op in enumerate(operands)]
    if not arrays:
        raise PhylanxValueError("einsum needs at least one operand")
    arrays, planned = einsum_operands(subscripts, arrays)
    return scalarize(np.asarray(numpy_call(np.einsum, subscripts, *arrays,
                                           optimize=planned)))


def _stack(value, what: str) -> np.ndarray:
    arr = numeric(value, what)
    if arr.dtype.kind == "c":
        raise PhylanxTypeError(f"{what} must be real, got a complex array")
    return arr


#: stacks of at least this many matrices are checked while NumPy solves them
OVERLAP_STACK = 64


def _check_regular(a: np.ndarray) -> None:
    """PhylanxValueError if a matrix of the stack ``a`` has a negligible LU pivot."""
    work = a if a.dtype in (np.float32, np.float64) else a.astype(np.float64)
    if work.shape[-1] == 0 or not np.all(np.isfinite(work)):
        return   # inf/NaN: NumPy's NaN result stands, as in inverse
    _raise_singular(first_singular_in_stack(work), work.ndim)


def _raise_singular(found: tuple | None, ndim: int) -> None:
    if found is not None:
        index, singular = found
        where = f" (matrix {list(index)} of the stack)" if ndim > 2 else ""
        raise PhylanxLinAlgError(f"the matrix a is singular{where}: {singular.reason('LU')}")


def _one_factorisation(a: np.ndarray, b: np.ndarray, finite: bool = False) -> bool:
    """True if ``solve(a, b)`` is :func:`_solve_matrix`'s case: one non-empty, finite
    float32/float64 matrix ``a`` and a non-empty ``b`` (M,) or (M, K) of its dtype (other
    dtypes are NumPy's to convert; inf/NaN in ``a`` NumPy's to propagate).  ``finite``:
    ``a`` is known finite (:func:`solve_preparation` tested this very, unchanged, ``a``)."""
    return (a.ndim == 2 and 1 <= b.ndim <= 2 and a.dtype == b.dtype and b.size > 0
            and a.shape[0] > 0 and a.dtype in (np.float32, np.float64)
            and (finite or bool(np.isfinite(a).all())))


#: the dtypes of :func:`_one_factorisation`'s matrices
_LAPACK_FLOATS = (np.float32, np.float64)

#: dtype -> (getrf, getrs, n * eps factor, smallest sum of squares taken as exact)
_LU_ROUTINES: dict = {}


def _lu_routines(dtype: np.dtype) -> tuple:
    routines = _LU_ROUTINES.get(dtype)
    if routines is None:
        info = np.finfo(dtype)
        getrf, getrs = lapack.get_lapack_funcs(("getrf", "getrs"), (np.empty(0, dtype),))
        routines = _LU_ROUTINES[dtype] = (getrf, getrs, float(info.eps),
                                          float(info.tiny / info.eps))
    return routines


def _lu_factors(a: np.ndarray, squares: float | None = None) -> tuple:
    """(lu, pivots, getrf's info, gecon's rcond, clearly regular) of the one matrix ``a``
    (LAPACK's getrf and gecon): clearly regular when every pivot exceeds twice the pivot
    bound and the condition estimate passes (see :func:`_solve_matrix`); otherwise only
    the exact check may decide.  ``squares``: ``float(np.vdot(a, a))`` if the caller has
    it."""
    getrf, _getrs, eps, smallest = _lu_routines(a.dtype)
    lu, pivots, info = getrf(a)
    if info < 0:  # pragma: no cover - only on malformed input, which solve checks
        raise PhylanxValueError(f"LAPACK getrf rejected argument {-info}")
    n = a.shape[-1]
    if squares is None:
        squares = float(np.vdot(a, a))
    # clearly regular: twice the margin of any rounding of these few operations; the
    # condition estimate is the very number factorise takes from the same factors
    clear = (info == 0 and 2 * n * n * smallest <= squares < np.inf
             and float(np.minimum.reduce(np.abs(lu.diagonal()))) > 2 * n * eps * squares ** 0.5)
    rcond = reciprocal_condition(a, (lu,), "getrf", None) if info == 0 else 0.0
    return lu, pivots, info, rcond, clear and rcond > n * eps


def _lu_solve(lu: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ x = b`` from getrf's factors of ``a`` (LAPACK's getrs)."""
    x, info = _lu_routines(lu.dtype)[1](lu, pivots, b)
    if info < 0:  # pragma: no cover - only on malformed input, which solve checks
        raise PhylanxValueError(f"LAPACK getrs rejected argument {-info}")
    return x


def _solve_matrix(a: np.ndarray, b: np.ndarray, squares: float | None = None) -> np.ndarray:
    """``a @ x = b`` for one matrix, factorised once: LAPACK's getrf gives the pivots the
    singularity check reads and the factors getrs solves with.  NumPy's solve is LAPACK's
    gesv, these two calls; checking first and then calling NumPy factorised ``a`` twice (a
    loop of small solves, ALS, spent most of its time in the check's Python around
    LAPACK).  The solution is within rounding of NumPy's (another BLAS build may order
    sums apart).

    The verdict is :func:`first_singular_in_stack`'s for a stack of one (singular: a pivot
    at most n * eps * ||a||_F, or LAPACK's condition estimate at most n * eps): a matrix
    whose every pivot exceeds twice that bound (the sum of squares taken in float64) and
    whose estimate (gecon, from these factors) passes is regular for it whatever the
    rounding of those few operations; any other goes to ``first_singular_in_stack``
    itself, which decides and says why."""
    lu, pivots, info, rcond, clear = _lu_factors(a, squares)
    if not clear:
        factored = (np.abs(lu.diagonal())[None], np.array([info], dtype=np.int64),
                    np.array([rcond]))
        _raise_singular(first_singular_in_stack(a, factored), 2)
    return _lu_solve(lu, pivots, b)


def solve_preparation(a: Any) -> tuple | None:
    """What ``solve(a, b)`` computes from ``a`` alone, for a loop that solves with the
    same unchanged ``a`` many times (``compiler/loop_invariants.py``): the factors of
    :func:`_lu_factors` when ``a`` is the one-matrix case of :func:`_one_factorisation`
    and clearly regular, else None (:func:`solve_prepared` then runs ``solve`` whole, so
    every check and error stays ``solve``'s own).  Never raises: nothing here is checked
    that ``solve`` would report."""
    if not (type(a) is np.ndarray and a.ndim == 2 and a.shape[0] == a.shape[1] > 0
            and a.dtype in (np.float32, np.float64) and bool(np.isfinite(a).all())):
        return None
    lu, pivots, _info, _rcond, clear = _lu_factors(a)
    return (a, lu, pivots) if clear else None


def solve_prepared(prepared: tuple | None, a: Any, b: Any) -> Any:
    """``solve(a, b)`` given ``prepared = solve_preparation(a)`` of this very ``a``,
    unchanged since: the law is that getrf's factors depend on ``a`` alone, and solve's
    one-matrix case is getrs of them, so the result is ``solve``'s bit for bit."""
    return solve(a, b, _prepared=prepared)


@primitive(
    "solve", "solve(_1_a, _2_b)", extension=True, oracle=np.linalg.solve,
    differentiable=True,
    example="solve([[0.0, 2.0], [3.0, 1.0]], [4.0, 5.0])", result="[1.0, 2.0]",
    flags={"invariant_operand": (0, solve_preparation, solve_prepared)},
)
def solve(a, b, *, _prepared=None):
    """Solve ``a @ x = b`` for square ``a`` or a stack of them, like numpy.linalg.solve.

    ``a`` has shape (..., M, M).  A 1-d ``b`` of length M is one right-hand side for every
    matrix (x has shape (..., M)); otherwise ``b`` has shape (..., M, K), K columns of
    right-hand sides, and the leading axes of ``a`` and ``b`` broadcast (NumPy 2's rule: a
    stack of vectors (..., M) must be given as (..., M, 1)).  Integers are solved in
    float64, float32 stays float32.  A singular matrix is an error, also a numerically
    singular one (see the module docstring).
    """
    lhs, rhs = _stack(a, "a"), _stack(b, "b")
    if lhs.ndim < 2 or lhs.shape[-1] != lhs.shape[-2]:
        raise PhylanxValueError(f"a must be a square matrix or a stack of them (..., M, M), "
                                f"got shape {lhs.shape}")
    if rhs.ndim == 0:
        raise PhylanxValueError("b must be an array of at least 1 dimension, got a 0-d value")
    if rhs.shape[-1 if rhs.ndim == 1 else -2] != lhs.shape[-1]:
        expected = "(M,)" if rhs.ndim == 1 else "(..., M, K)"
        raise PhylanxValueError(f"b of shape {rhs.shape} does not match a of shape {lhs.shape}"
                                f": expected {expected} with M = {lhs.shape[-1]}")
    if _prepared is not None and _prepared[0] is lhs and _one_factorisation(lhs, rhs, True):
        return _lu_solve(_prepared[1], _prepared[2], rhs)
    if lhs.ndim == 2 and lhs.dtype in _LAPACK_FLOATS:
        # a finite sum of squares has finite terms: then the isfinite pass of
        # _one_factorisation is not needed (an overflowing or inf/NaN sum makes it run)
        squares = float(np.vdot(lhs, lhs))
        if _one_factorisation(lhs, rhs, squares < np.inf):
            return _solve_matrix(lhs, rhs, squares)
    elif _one_factorisation(lhs, rhs):
        return _solve_matrix(lhs, rhs)
    if lhs.ndim == 2 or lhs.shape[-1] == 0 or lhs.size // lhs.shape[-1] ** 2 < OVERLAP_STACK:
        _check_regular(lhs)
        return numpy_call(np.linalg.solve, lhs, rhs)

    # a large stack: once compiled, one elimination per matrix gives the check's pivots
    # and the solution (not for inf/NaN: NumPy's result stands, as below)
    key = stack_solve_key(lhs, rhs)
    if key is not None:
        done = solve_stack_compiled(lhs, rhs, key)
        if done is not None:
            _raise_singular(done[1], lhs.ndim)
            return done[0]
    start = perf_counter_ns()

    # else the check (a Python loop over LAPACK calls) runs while NumPy solves (its loop
    # releases the GIL); the check's error wins, NumPy's result is kept only when the
    # check passed
    def numpy_solve():
        try:
            return numpy_call(np.linalg.solve, lhs, rhs)
        except PhylanxError as e:
            return e
    _, result = fork_join([partial(_check_regular, lhs), numpy_solve])
    if isinstance(result, PhylanxError):
        raise result
    if key is not None:
        from ...kernels import fixed
        fixed.lu_solve.spent(key, perf_counter_ns() - start)
    return result
