"""matrixops, numpy.linalg decompositions the original lacks (extensions): ``eig eigh eigvals
eigvalsh slogdet svd qr cholesky pinv lstsq matrix_rank``.

Each is the ``numpy.linalg`` function of the same name (stacks of matrices included) with
NumPy's argument names as keyword slots.  Where NumPy returns a tuple of arrays the result
is a PhySL list (``u, s, vt = np.linalg.svd(a)`` unpacks it in decorated Python).  Integer
and bool inputs are computed in float64, float32 stays float32; ``eig`` answers in complex
numbers when an eigenvalue is not real, as NumPy does.  A singular or indefinite matrix
(NumPy's LinAlgError) is a PhylanxLinAlgError: a PhylanxValueError and a LinAlgError.
"""
from __future__ import annotations

import numpy as np

from ...errors import PhylanxTypeError, PhylanxValueError
from ...values import scalarize, type_name
from ..array_args import as_array, numpy_call
from ..dtypes import to_bool
from ..registry import primitive


def _matrix(a, what: str = "a", square: bool = False) -> np.ndarray:
    """``a`` as a real (stack of) matrix, checked before NumPy sees it."""
    arr = as_array(a, what)
    if arr.dtype.kind not in "biufc":
        raise PhylanxTypeError(f"{what} must be a numeric array, got a {type_name(a)}")
    if arr.ndim < 2:
        raise PhylanxValueError(f"{what} must be a matrix (at least 2-d), got a {arr.ndim}-d "
                                f"array of shape {arr.shape}")
    if square and arr.shape[-1] != arr.shape[-2]:
        raise PhylanxValueError(f"{what} must be square, got shape {arr.shape}")
    return arr


def _uplo(UPLO) -> str:  # noqa: N803 - NumPy's keyword name
    if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U"):
        raise PhylanxValueError(f"UPLO must be \"L\" or \"U\", got {UPLO!r}")
    return UPLO.upper()


def _arrays(result) -> list:
    """NumPy's tuple (or named tuple) of results as a PhySL list."""
    return [scalarize(np.asarray(r)) if np.ndim(r) == 0 else r for r in result]


def _listed(fn):
    """The NumPy oracle with its named tuple of results as a list (what phylanx returns)."""
    def oracle(*args):
        result = fn(*args)
        return list(result) if isinstance(result, tuple) else result
    return oracle


@primitive(
    "eig", "eig(_1_a)", extension=True, differentiable=True, oracle=_listed(np.linalg.eig),
    example="eig([[2.0, 0.0], [0.0, 3.0]])", result="list([2.0, 3.0], [[1.0, 0.0], [0.0, 1.0]])",
)
def eig(a):
    """Eigenvalues and right eigenvectors of a square matrix, as ``list(w, v)`` (numpy.linalg.eig).

    ``v[:, i]`` is the unit eigenvector of ``w[i]``; both are complex when an eigenvalue is.
    """
    return _arrays(numpy_call(np.linalg.eig, _matrix(a, square=True)))


@primitive(
    "eigvals", "eigvals(_1_a)", extension=True, differentiable=True,
    oracle=np.linalg.eigvals,
    example="eigvals([[2.0, 0.0], [0.0, 3.0]])", result="[2.0, 3.0]",
)
def eigvals(a):
    """Eigenvalues of a square matrix (complex when one is), like numpy.linalg.eigvals."""
    return numpy_call(np.linalg.eigvals, _matrix(a, square=True))


@primitive(
    "eigh", "eigh(_1_a, __arg(_2_UPLO, \"L\"))", extension=True, differentiable=True,
    oracle=_listed(np.linalg.eigh),
    example="eigh([[2.0, 0.0], [0.0, 1.0]])", result="list([1.0, 2.0], [[0.0, 1.0], [1.0, 0.0]])",
)
def eigh(a, UPLO="L"):  # noqa: N803 - NumPy's keyword name
    """Eigenvalues (ascending) and eigenvectors of a symmetric matrix, as ``list(w, v)``.

    Like numpy.linalg.eigh: only the lower (``UPLO`` "L") or upper ("U") triangle is read.
    """
    return _arrays(numpy_call(np.linalg.eigh, _matrix(a, square=True), _uplo(UPLO)))


@primitive(
    "eigvalsh", "eigvalsh(_1_a, __arg(_2_UPLO, \"L\"))", extension=True, differentiable=True,
    oracle=np.linalg.eigvalsh,
    example="eigvalsh([[2.0, 1.0], [1.0, 2.0]])", result="[1.0, 3.0]",
)
def eigvalsh(a, UPLO="L"):  # noqa: N803 - NumPy's keyword name
    """Eigenvalues (ascending) of a symmetric matrix, like numpy.linalg.eigvalsh."""
    return numpy_call(np.linalg.eigvalsh, _matrix(a, square=True), _uplo(UPLO))


@primitive(
    "slogdet", "slogdet(_1_a)", extension=True, oracle=_listed(np.linalg.slogdet),
    differentiable=True,
    example="slogdet([[2.0, 0.0], [0.0, -3.0]])", result="list(-1.0, 1.791759469228055)",
)
def slogdet(a):
    """Sign and natural log of the absolute determinant, as ``list(sign, logabsdet)``.

    Like numpy.linalg.slogdet (stacks of matrices too): no overflow where ``det`` would;
    a singular matrix gives sign 0 and logabsdet -inf, not an error.
    """
    return _arrays(numpy_call(np.linalg.slogdet, _matrix(a, square=True)))


@primitive(
    "svd",
    "svd(_1_a, __arg(_2_full_matrices, true), __arg(_3_compute_uv, true), "
    "__arg(_4_hermitian, false))",
    extension=True, differentiable=True, oracle=_listed(np.linalg.svd),
    example="svd([[3.0, 0.0], [0.0, 2.0]])",
    result="list([[1.0, 0.0], [0.0, 1.0]], [3.0, 2.0], [[1.0, 0.0], [0.0, 1.0]])",
)
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """Singular value decomposition ``a = u @ diag(s) @ vh`` as ``list(u, s, vh)``.

    Like numpy.linalg.svd: ``full_matrices`` false gives the reduced u and vh; with
    ``compute_uv`` false only ``s`` (descending) is returned.
    """
    result = numpy_call(np.linalg.svd, _matrix(a), to_bool(full_matrices),
                        to_bool(compute_uv), to_bool(hermitian))
    return _arrays(result) if to_bool(compute_uv) else result


_QR_MODES = ("reduced", "complete", "r", "raw")


@primitive(
    "qr", "qr(_1_a, __arg(_2_mode, \"reduced\"))", extension=True, differentiable=True,
    oracle=_listed(np.linalg.qr),
    example="qr([[2.0, 0.0], [0.0, 3.0]])", result="list([[1.0, 0.0], [0.0, 1.0]], "
                                                    "[[2.0, 0.0], [0.0, 3.0]])",
)
def qr(a, mode="reduced"):
    """QR decomposition ``a = q @ r`` as ``list(q, r)``, like numpy.linalg.qr.

    ``mode`` "reduced" (k = min(M, N) columns of q), "complete" (q is M x M), "r" (only r)
    or "raw" (``list(h, tau)`` of LAPACK).
    """
    if mode not in _QR_MODES:
        raise PhylanxValueError(f"mode must be one of {', '.join(_QR_MODES)}, got {mode!r}")
    result = numpy_call(np.linalg.qr, _matrix(a), mode)
    return result if mode == "r" else _arrays(result)


@primitive(
    "cholesky", "cholesky(_1_a, __arg(_2_upper, false))",
    extension=True, differentiable=True,
    oracle=lambda a, upper=False: np.linalg.cholesky(a, upper=upper),
    example="cholesky([[4.0, 2.0], [2.0, 5.0]])", result="[[2.0, 0.0], [1.0, 2.0]]",
)
def cholesky(a, upper=False):
    """Cholesky factor of a symmetric positive-definite matrix, like numpy.linalg.cholesky.

    Lower ``L`` with ``a = L @ L.T`` by default, upper ``U = L.T`` if ``upper``.  Only the
    lower triangle is read.  A matrix that is not positive definite is an error.
    """
    return numpy_call(np.linalg.cholesky, _matrix(a, square=True), upper=to_bool(upper))


@primitive(
    "pinv", "pinv(_1_a, __arg(_2_rcond, nil), __arg(_3_hermitian, false))",
    extension=True, differentiable=True, oracle=np.linalg.pinv,
    example="pinv([[2.0, 0.0], [0.0, 0.0]])", result="[[0.5, 0.0], [0.0, 0.0]]",
)
def pinv(a, rcond=None, hermitian=False):
    """Moore-Penrose pseudo-inverse by SVD, like numpy.linalg.pinv.

    Singular values below ``rcond`` times the largest count as zero (nil: NumPy's default,
    machine precision times max(M, N)).
    """
    return numpy_call(np.linalg.pinv, _matrix(a), rcond, hermitian=to_bool(hermitian))


def _lstsq(a, b, rcond=None):
    x, residuals, rank, s = np.linalg.lstsq(a, b, rcond=rcond)
    return [x, residuals, np.int64(rank), s]


@primitive(
    "lstsq", "lstsq(_1_a, _2_b, __arg(_3_rcond, nil))", extension=True, differentiable=True,
    oracle=_lstsq,
    example="lstsq([[1.0, 0.0], [0.0, 2.0]], [1.0, 4.0])",
    result="list([1.0, 2.0], [], 2, [2.0, 1.0])",
)
def lstsq(a, b, rcond=None):
    """Least-squares solution of ``a @ x = b`` as ``list(x, residuals, rank, s)``.

    Like numpy.linalg.lstsq: residuals are the squared 2-norms of ``b - a @ x`` per column
    (empty unless ``a`` is tall with full rank), ``s`` the singular values of ``a``, ``rank``
    an int64.  Singular values below ``rcond`` times the largest count as zero.
    """
    arr = _matrix(a)
    if arr.ndim != 2:
        raise PhylanxValueError(f"a must be 2-d, got shape {arr.shape}")
    rhs = as_array(b, "b")
    return numpy_call(_lstsq, arr, rhs, rcond)


@primitive(
    "matrix_rank", "matrix_rank(_1_A, __arg(_2_tol, nil), __arg(_3_hermitian, false))",
    extension=True, oracle=np.linalg.matrix_rank,
    example="matrix_rank([[1.0, 2.0], [2.0, 4.0]])", result="1",
)
def matrix_rank(A, tol=None, hermitian=False):  # noqa: N803 - NumPy's keyword name
    """Rank of a matrix (number of singular values above ``tol``), like numpy.linalg.matrix_rank.

    nil ``tol`` is NumPy's default (machine precision times the largest singular value times
    max(M, N)); a vector has rank 1 unless it is all zero.
    """
    arr = as_array(A, "A")
    return scalarize(np.asarray(numpy_call(np.linalg.matrix_rank, arr, tol,
                                           to_bool(hermitian))).astype(np.int64))
