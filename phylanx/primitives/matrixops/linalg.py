"""Products and linear algebra: dot, tensordot, outer, cross, matmul, determinants, inverses, norm.

Primitives: ``dot tensordot outer cross matmul determinant inverse invGJE matrix_power
norm``.

NumPy semantics throughout (``numpy.dot``, ``numpy.tensordot``, ``numpy.matmul``,
``numpy.linalg``): dtype promotion (float32 stays float32), any rank NumPy accepts,
0-d results as NumPy scalars.  Shape mismatches and singular matrices are reported as
``PhylanxValueError`` naming the operands' shapes.  ``invGJE`` is our own Gauss-Jordan
elimination with partial pivoting.  ``inverse`` and ``invGJE`` call a matrix singular
when a pivot is zero relative to n * eps * ||a||_F (``solvers.rounding_tolerance``) or
LAPACK's reciprocal condition estimate is at most n * eps, also once its rows and columns
are equilibrated (``solvers/direct.py``: a scaled row is no singularity), so they are
stricter than ``numpy.linalg.inv``, which refuses only exactly zero pivots.
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ...errors import PhylanxAxisError, PhylanxLinAlgError, PhylanxTypeError, PhylanxValueError
from ...values import scalarize, type_name
from ..dtypes import to_axes, to_bool, to_int
from ..registry import primitive
from ..solvers.direct import (
    RELATIVE_TO,
    check_lapack_float,
    equilibration_exponents,
    first_singular_in_stack,
    rounding_tolerance,
    times_power_of_two,
)

_NUMERIC_KINDS = "biufc"


def numeric(value: Any, what: str) -> np.ndarray:
    """``value`` as a numeric array, or a PhylanxTypeError naming the argument ``what``."""
    if isinstance(value, np.ndarray):
        arr = value
    elif isinstance(value, (np.generic, int, float, bool, list, tuple, range)):
        try:
            arr = np.asarray(value)
        except ValueError as e:
            raise PhylanxValueError(f"{what} is not a rectangular array: {e}") from None
    else:
        raise PhylanxTypeError(f"{what} must be a numeric array, got a {type_name(value)}")
    if arr.dtype.kind not in _NUMERIC_KINDS:
        raise PhylanxTypeError(f"{what} must be a numeric array, got a {type_name(value)}")
    return arr


def _check_contraction(a: np.ndarray, b: np.ndarray) -> None:
    """The last axis of ``a`` against the second-to-last (or only) axis of ``b``."""
    axis_b = -2 if b.ndim >= 2 else -1
    if a.shape[-1] != b.shape[axis_b]:
        raise _mismatch(a, b, a.ndim - 1, b.ndim + axis_b)


def _mismatch(a: np.ndarray, b: np.ndarray, axis_a: int, axis_b: int) -> PhylanxValueError:
    return PhylanxValueError(
        f"shapes {a.shape} and {b.shape} are not aligned: axis {axis_a} of the first operand "
        f"({a.shape[axis_a]}) != axis {axis_b} of the second ({b.shape[axis_b]})")


@primitive("dot", "dot(_1, _2)", oracle=np.dot, differentiable=True, flags={"blas": True},
           distributable=True,
           example="dot([[1, 2], [3, 4]], [5, 6])", result="[17, 39]")
def dot(a, b):
    """Dot product with numpy.dot semantics for any ranks.

    Scalars multiply; vector.vector is the inner product; otherwise the last axis of
    ``a`` is contracted with the second-to-last axis of ``b`` (its only axis if 1-d).
    """
    # the hot case, tested inline (a loop of small products pays every Python call):
    # float arrays (>= 1-d) whose contracted axes agree need no conversion or check, and
    # NumPy gives a scalar, never a 0-d array, for their inner product
    if (type(a) is np.ndarray and type(b) is np.ndarray and a.ndim and b.ndim
            and a.dtype.kind in "fc" and b.dtype.kind in "fc"
            and a.shape[-1] == b.shape[-2 if b.ndim >= 2 else -1]):
        return np.dot(a, b)
    a = numeric(a, "the first operand")
    b = numeric(b, "the second operand")
    if a.ndim and b.ndim:
        _check_contraction(a, b)
    return scalarize(np.dot(a, b))


@primitive("matmul", "matmul(_1, _2)", extension=True, flags={"blas": True},
           distributable=True,
           oracle=np.matmul, differentiable=True,
           example="matmul([[1, 2], [3, 4]], [[5], [6]])", result="[[17], [39]]")
def matmul(a, b):
    """Matrix product with numpy.matmul semantics (Python's ``@``); stacks broadcast.

    Scalars are rejected (use ``*``); a 1-d operand is a row/column vector whose
    added axis is removed from the result.
    """
    # the hot case inline, as in dot (np.matmul is a gufunc: a 0-d result is a scalar)
    if (type(a) is np.ndarray and type(b) is np.ndarray and a.ndim and b.ndim
            and a.dtype.kind in "fc" and b.dtype.kind in "fc"
            and a.shape[-1] == b.shape[-2 if b.ndim >= 2 else -1]):
        return np.matmul(a, b)
    a = numeric(a, "the first operand")
    b = numeric(b, "the second operand")
    for arr, which in ((a, "first"), (b, "second")):
        if arr.ndim == 0:
            raise PhylanxValueError(
                f"the {which} operand must have at least one dimension, "
                "got a scalar (use * for scalar products)")
    _check_contraction(a, b)
    return scalarize(np.matmul(a, b))


def _tensordot_axes(axes: Any) -> int | tuple[list[int], list[int]]:
    """The ``axes`` argument of tensordot: a count, or a pair of axis lists."""
    if isinstance(axes, np.ndarray):
        axes = axes.tolist() if axes.ndim else axes[()]
    if isinstance(axes, (list, tuple, range)):
        if len(axes) != 2:
            raise PhylanxValueError(
                f"tensordot axes must be a count or a pair of axis lists, got a list of "
                f"{len(axes)} elements")
        pair = []
        for part in axes:
            if isinstance(part, np.ndarray):
                part = part.tolist()
            if isinstance(part, (list, tuple, range)):
                pair.append([to_int(v, "a tensordot axis") for v in part])
            else:
                pair.append([to_int(part, "a tensordot axis")])
        return pair[0], pair[1]
    return to_int(axes, "tensordot axes")


@primitive("tensordot", "tensordot(_1, _2)", "tensordot(_1, _2, _3)",
           oracle=lambda a, b, axes=2: np.tensordot(a, b, axes), differentiable=True,
           flags={"blas": True},
           example="tensordot([[1, 2], [3, 4]], [[1, 0], [0, 1]])", result="5")
def tensordot(a, b, axes=2):
    """Tensor contraction like numpy.tensordot(a, b, axes).

    ``axes`` is a count N (the last N axes of ``a`` with the first N of ``b``) or a pair
    ``list(axes_a, axes_b)`` of equally long axis lists (or single axes).
    """
    a = numeric(a, "the first operand")
    b = numeric(b, "the second operand")
    spec = _tensordot_axes(axes)
    if isinstance(spec, int):
        n = spec
        if n < 0 or n > a.ndim or n > b.ndim:
            raise PhylanxValueError(
                f"the axes count {n} must be between 0 and the smaller rank "
                f"({min(a.ndim, b.ndim)})")
        axes_a, axes_b = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        axes_a, axes_b = spec
        if len(axes_a) != len(axes_b):
            raise PhylanxValueError(
                f"tensordot axis lists differ in length ({len(axes_a)} and {len(axes_b)})")
        axes_a = list(to_axes(axes_a, a.ndim)) if a.ndim else axes_a
        axes_b = list(to_axes(axes_b, b.ndim)) if b.ndim else axes_b
        if (axes_a and not a.ndim) or (axes_b and not b.ndim):
            raise PhylanxValueError("tensordot cannot contract an axis of a scalar")
    for i, j in zip(axes_a, axes_b):
        if a.shape[i] != b.shape[j]:
            raise _mismatch(a, b, i, j)
    return scalarize(np.tensordot(a, b, (axes_a, axes_b)))


@primitive("outer", "outer(_1, _2)", oracle=np.outer, differentiable=True,
           example="outer([1, 2], [3, 4, 5])", result="[[3, 4, 5], [6, 8, 10]]")
def outer(a, b):
    """Outer product: always a matrix; the inputs are flattened first (numpy.outer)."""
    return np.outer(numeric(a, "the first operand"), numeric(b, "the second operand"))


def _with_zero_z(v: np.ndarray) -> np.ndarray:
    """A 2-vector (x, y) as (x, y, 0), so 2-d/3-d mixes go through numpy.cross."""
    return np.concatenate([v, np.zeros(v.shape[:-1] + (1,), dtype=v.dtype)], axis=-1)


@primitive("cross", "cross(_1, _2)", oracle=np.cross, differentiable=True,
           example="cross([1, 0, 0], [0, 1, 0])", result="[0, 0, 1]")
def cross(a, b):
    """Cross product of (stacks of) 3-vectors, like numpy.cross.

    Two 2-vectors give the z component (a scalar per pair); a 2-vector crossed with a
    3-vector is taken with z = 0, as NumPy does.
    """
    a = numeric(a, "the first operand")
    b = numeric(b, "the second operand")
    for arr, which in ((a, "first"), (b, "second")):
        if arr.ndim == 0 or arr.shape[-1] not in (2, 3):
            raise PhylanxValueError(
                f"the {which} operand must have a last axis of length 2 or 3, "
                f"got shape {arr.shape}")
    # NumPy 2 deprecates 2-vectors in numpy.cross (a warning); compute them ourselves
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return scalarize(a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0])
    if a.shape[-1] == 2:
        a = _with_zero_z(a)
    if b.shape[-1] == 2:
        b = _with_zero_z(b)
    return np.cross(a, b)


def _square(a: Any, what: str, stacked: bool = True) -> np.ndarray:
    arr = numeric(a, what)
    if arr.ndim < 2 or (not stacked and arr.ndim != 2) or arr.shape[-1] != arr.shape[-2]:
        kind = "a square matrix (or a stack of them)" if stacked else "a square matrix"
        # NumPy's LinAlgError (also a ValueError)
        raise PhylanxLinAlgError(f"{what} must be {kind}, got shape {arr.shape}")
    return arr


@primitive("determinant", "determinant(_1)", oracle=np.linalg.det,
           example="determinant([[1, 2], [3, 4]])", result="-2.0", differentiable=True)
def determinant(a):
    """Determinant of a square matrix (or of each matrix of a stack), numpy.linalg.det."""
    return scalarize(np.linalg.det(_square(a, "the argument")))


@primitive("inverse", "inverse(_1)", oracle=np.linalg.inv,
           example="inverse([[2, 0], [0, 4]])", result="[[0.5, 0], [0, 0.25]]", differentiable=True)
def inverse(a):
    """Inverse of a square matrix (or of each matrix of a stack), numpy.linalg.inv.

    A singular matrix raises a PhylanxValueError.  Stricter than numpy.linalg.inv: also a
    numerically singular one, whose LU factorisation (LAPACK getrf) has a pivot of
    magnitude at most n * eps * ||a||_F or whose reciprocal condition number (LAPACK
    gecon's estimate) is at most n * eps; NumPy refuses only exactly zero pivots, and
    whether rounding leaves one depends on the BLAS kernel (``inverse([[1, 2, 3],
    [4, 5, 6], [7, 8, 9]])`` is an error here, huge garbage or an error in NumPy).
    """
    arr = _square(a, "the argument")
    _check_not_singular(arr)
    try:
        return np.linalg.inv(arr)
    except np.linalg.LinAlgError:
        raise PhylanxLinAlgError("the matrix is singular and has no inverse") from None


def _check_not_singular(arr: np.ndarray) -> None:
    """PhylanxValueError if a matrix of ``arr`` is singular by ``solve``'s rule (a negligible
    LU pivot or condition estimate; inf/NaN entries are left to NumPy, whose result is then
    NaN like theirs)."""
    work = arr if arr.dtype.kind in "fc" and arr.dtype.itemsize >= 4 else arr.astype(np.float64)
    if work.shape[-1] == 0 or not np.all(np.isfinite(work)):
        return
    found = first_singular_in_stack(work)
    if found is not None:
        index, singular = found
        where = f" (matrix {list(index)} of the stack)" if work.ndim > 2 else ""
        raise PhylanxLinAlgError(
            f"the matrix is singular and has no inverse{where}: {singular.reason('LU')}")


@primitive("invGJE", "invGJE(_1)", oracle=np.linalg.inv,
           example="invGJE([[2, 0], [0, 4]])", result="[[0.5, 0], [0, 0.25]]", differentiable=True)
def inv_gje(a):
    """Inverse of a square matrix by Gauss-Jordan elimination with partial pivoting.

    Integer/bool input gives float64, float32 stays float32; float16 and long double are
    refused, as numpy.linalg.inv refuses them.  A matrix ``inverse`` calls singular (a
    negligible LU pivot or condition estimate), or a GJE pivot of magnitude at most
    n * eps * ||a||_F, is a PhylanxValueError (stricter than numpy.linalg.inv).
    """
    arr = _square(a, "the argument", stacked=False)
    check_lapack_float(arr, "the argument")     # GJE would run in float16 (NumPy refuses)
    dtype = arr.dtype if arr.dtype.kind in "fc" else np.dtype(np.float64)
    n = arr.shape[0]
    if n == 0:
        return np.zeros((0, 0), dtype=dtype)
    arr = arr.astype(dtype)
    if not np.all(np.isfinite(arr)):
        raise PhylanxValueError("the argument contains NaN or infinity")
    # inverse's verdict first (LU pivots and condition estimate): GJE's own pivots alone
    # passed rounded rank-deficient matrices
    _check_not_singular(arr)
    inverse_of = _gauss_jordan(arr)
    if inverse_of is None:
        # the second look of solvers/direct.py: singular only if also so equilibrated,
        # b = diag(2**r) a diag(2**c), inv(a) = diag(2**c) inv(b) diag(2**r)
        rows, columns = equilibration_exponents(arr)
        inverse_of = _gauss_jordan(times_power_of_two(arr, rows[:, None] + columns[None, :]))
        if inverse_of is None:
            raise PhylanxLinAlgError("the matrix is singular and has no inverse (a pivot is "
                                     f"zero {RELATIVE_TO})")
        inverse_of = times_power_of_two(inverse_of, columns[:, None] + rows[None, :])
    return inverse_of


def _gauss_jordan(arr: np.ndarray) -> np.ndarray | None:
    """The inverse of the finite square ``arr`` by Gauss-Jordan elimination with partial
    pivoting, None at a pivot of magnitude at most n * eps * ||arr||_F."""
    n = arr.shape[0]
    work = np.concatenate([arr, np.eye(n, dtype=arr.dtype)], axis=1)
    # a pivot below this is rounding noise of an exactly singular matrix
    tolerance = rounding_tolerance(arr, arr.dtype)
    for col in range(n):
        pivot = col + int(np.argmax(np.abs(work[col:, col])))
        if not np.abs(work[pivot, col]) > tolerance:
            return None
        if pivot != col:
            work[[col, pivot]] = work[[pivot, col]]
        work[col] /= work[col, col]
        factors = work[:, col].copy()
        factors[col] = 0
        work -= np.outer(factors, work[col])
    return work[:, n:].copy()


@primitive("matrix_power", "matrix_power(_1, _2)", extension=True,
           oracle=np.linalg.matrix_power, differentiable=True,
           example="matrix_power([[1, 1], [0, 1]], 3)", result="[[1, 3], [0, 1]]")
def matrix_power(a, n):
    """``a`` to the integer power ``n`` (each matrix of a stack), numpy.linalg.matrix_power.

    ``n = 0`` gives the identity (of ``a``'s dtype), a negative ``n`` the power of the
    inverse (a singular matrix is a PhylanxLinAlgError, as ``inverse``).  ``n`` must be an
    integer, as in NumPy (a float, even 2.0, is a PhylanxTypeError).
    """
    arr = _square(a, "the matrix")
    try:
        n = operator.index(n)           # NumPy's test: an integer (a bool is one)
    except TypeError:
        raise PhylanxTypeError(f"the exponent of matrix_power must be an integer, got a "
                               f"{type_name(n)}") from None
    if n < 0:
        arr = inverse(arr)
    return np.linalg.matrix_power(arr, abs(n))


def _norm_order(ord_: Any) -> Any:
    if ord_ is None or isinstance(ord_, str):
        return ord_
    if isinstance(ord_, np.ndarray) and ord_.ndim == 0:
        ord_ = ord_[()]
    if isinstance(ord_, (bool, np.bool_)) or not isinstance(ord_, (int, float, np.number)):
        raise PhylanxTypeError(
            f"norm order must be nil, a number, inf or \"fro\"/\"nuc\", got a {type_name(ord_)}")
    return ord_.item() if isinstance(ord_, np.generic) else ord_


@primitive("__npnorm",
           "__npnorm(x, __arg(_1_ord, nil), __arg(_2_axis, nil), __arg(_3_keepdims, false))",
           oracle=lambda x, ord=None, axis=None, keepdims=False: np.linalg.norm(
               x, ord, tuple(axis) if isinstance(axis, list) else axis, bool(keepdims)),
           example="__npnorm([3, 4])", result="5.0", differentiable=True, extension=True,
           internal=True, distributable=True)
def npnorm(x, ord=None, axis=None, keepdims=False):
    """``np.linalg.norm(x, ord, axis, keepdims)``: matrix or vector norm, NumPy's meaning.

    ``ord``: nil (2-norm / Frobenius), a number, ``inf``/``-inf``, ``"fro"`` or ``"nuc"``;
    ``axis``: nil, an axis, or a list of two axes (matrix norms).
    """
    arr = numeric(x, "the argument")
    if isinstance(axis, np.ndarray):
        axis = axis.tolist()
    axes = to_axes(axis, arr.ndim)
    return scalarize(np.linalg.norm(arr, _norm_order(ord), axes, to_bool(keepdims)))


def _integer_order(ord_: Any) -> int | None:
    """``ord_`` as an int if it is an integer value (Python, NumPy or 0-d), else None."""
    if isinstance(ord_, np.ndarray) and ord_.ndim == 0:
        ord_ = ord_[()]
    if isinstance(ord_, (int, np.integer)) and not isinstance(ord_, (bool, np.bool_)):
        return int(ord_)
    return None


def _vector_norm(v: np.ndarray, ord_: Any) -> Any:
    k = _integer_order(ord_)
    if ord_ is None or k is not None:
        return np.linalg.norm(v.astype(np.float64), None if ord_ is None else k)
    if isinstance(ord_, str):
        raise PhylanxValueError(f"unsupported requested norm type \"{ord_}\" for a vector "
                                "(the original takes nil, an int, inf or -inf)")
    if isinstance(ord_, (float, np.floating)) and abs(ord_) == np.inf:
        magnitude = np.abs(v)
        return magnitude.max() if ord_ > 0 else magnitude.min()
    raise PhylanxValueError(f"unsupported requested norm type {ord_!r}: the original takes an "
                            "int order, inf or -inf for a vector (2.0 is not 2; "
                            "np.linalg.norm compiles to __npnorm)")


def _matrix_norm(m: np.ndarray, ord_: Any) -> Any:
    if ord_ is None or (ord_ == "fro" if isinstance(ord_, str) else _integer_order(ord_) == 2):
        # the original's matrix "2-norm" is element-wise, the Frobenius norm (NumPy: the
        # largest singular value)
        return np.linalg.norm(m.astype(np.float64))
    raise PhylanxValueError(f"Invalid (or not implemented) norm {ord_!r} for a matrix: the "
                            "original takes nil, \"fro\" or 2 (np.linalg.norm compiles to "
                            "__npnorm)")


def _original_norm_oracle(x, ord=None, axis=None, keepdims=False):
    """The addendum's rule A.3.10, written independently of :func:`norm`."""
    x = np.asarray(x)
    if x.ndim == 1 and axis in (None, 0, -1):
        if isinstance(ord, str) or (isinstance(ord, float) and abs(ord) != np.inf):
            raise ValueError("unsupported norm type")
        a = np.abs(x.astype(float))
        value = (np.sqrt(np.sum(a * a)) if ord is None else a.max() if ord == np.inf
                 else a.min() if ord == -np.inf else np.count_nonzero(a) if ord == 0
                 else np.sum(a ** ord) ** (1.0 / ord))
    elif x.ndim == 2 and axis is None and (ord is None or ord == "fro" or
                                           (type(ord) is int and ord == 2)):
        value = np.sqrt(np.sum(x.astype(float) ** 2))
    else:
        raise ValueError("not a norm of the original")
    out = np.asarray(value).astype(x.dtype)
    return out.reshape((1,) * x.ndim) if keepdims else out[()]


@primitive("norm", "norm(x, __arg(_1_ord, nil), __arg(_2_axis, nil), __arg(_3_keepdims, false))",
           oracle=_original_norm_oracle,
           example="norm([3., 4.])", result="5.0", differentiable=True)
def norm(x, ord=None, axis=None, keepdims=False):
    """The original's norm of a vector or matrix; the result has ``x``'s dtype.

    So the norm of an int vector is truncated (``norm([1, 1])`` is 1).  Vectors: ``ord``
    nil (2-norm), an int k (0 counts the non-zeros, others the k-norm), ``inf`` (max |x|)
    or ``-inf`` (min |x|); other floats and strings are errors; ``axis`` nil, 0 or -1.
    Matrices: ``ord`` nil, ``"fro"`` or 2 give the Frobenius norm (2 is element-wise, not
    NumPy's largest singular value); no ``axis``.  ``keepdims`` (a bool) gives shape (1,)
    or (1, 1).  ``np.linalg.norm`` compiles to ``__npnorm`` (NumPy's meaning)."""
    arr = numeric(x, "the argument")
    if arr.ndim not in (1, 2):
        raise PhylanxValueError(f"norm takes a vector or a matrix, got a {arr.ndim}-d value "
                                "(np.linalg.norm compiles to __npnorm)")
    if not isinstance(keepdims, (bool, np.bool_)):
        raise PhylanxTypeError(f"keepdims must be a bool, got a {type_name(keepdims)}")
    if arr.ndim == 1:
        if axis is not None and _integer_order(axis) not in (0, -1):
            raise PhylanxAxisError(f"axis {axis} is out of bounds for array of dimension 1")
        value = _vector_norm(arr, ord)
    else:
        if axis is not None:
            raise PhylanxValueError("norm of a matrix takes no axis (the original computes the "
                                    "whole matrix norm; np.linalg.norm compiles to __npnorm)")
        value = _matrix_norm(arr, ord)
    out = np.asarray(value).astype(arr.dtype)
    return out.reshape((1,) * arr.ndim) if keepdims else scalarize(out)
