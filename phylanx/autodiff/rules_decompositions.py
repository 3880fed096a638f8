"""VJP rules of the matrix decompositions: cholesky, eigh, eigvalsh, eig, eigvals, svd, qr,
pinv, lstsq.

Real (stacks of) matrices, the standard reverse-mode formulas (Murray 2016 for Cholesky,
Giles 2008 for eigh, Townsend 2016 for the SVD, Walter and Lehmann 2018 for QR, Golub and
Pereyra 1973 for the pseudo-inverse), each valid only where the decomposition is a
differentiable function of the matrix.  Where it is not, a gradient that would need the
missing derivative is a located error, never a silent value:

* ``eigh``: eigenvectors of a repeated eigenvalue (any rotation of them is as good);
* ``eig``, ``eigvals`` (a general matrix): the eigenvectors of complex eigenvalues (the
  eigenvalues themselves follow JAX's convention, :mod:`.rules_complex`), and a repeated
  eigenvalue (not a differentiable function of a non-normal matrix);
* ``svd``: singular vectors of a repeated singular value, the singular vectors of a
  non-square matrix with a zero singular value, and the extra columns of ``u`` (rows of
  ``vh``) that ``full_matrices`` adds to a non-square matrix (any completion will do);
* ``qr``: a rank-deficient matrix, a wide one (M < N), the extra columns of ``complete``
  Q, and ``raw`` mode.

Eigenvalues and singular values alone are differentiable (JAX's convention: a repeated
value gets the average of its eigenvectors' projections, well defined for the block).

Symmetric inputs: ``cholesky``, ``eigh`` and ``eigvalsh`` (and ``svd``/``pinv`` with
``hermitian``) read one triangle of the matrix, as NumPy does; the gradient is that of the
function actually computed, so it lives on the triangle read (an off-diagonal entry counts
for both of its mirrored places).  For a matrix built symmetric (``b @ b.T``), the
gradient with respect to what it was built from is the same as JAX's symmetrised one.
"""
from __future__ import annotations

import numpy as np

from ..errors import PhylanxValueError
from .rule_helpers import arr, to_bool
from .table import VJP


def _t(m: np.ndarray) -> np.ndarray:
    return np.swapaxes(m, -1, -2)


def _eye_like(m: np.ndarray) -> np.ndarray:
    return np.eye(m.shape[-1], dtype=m.dtype)


def _float_dtype(*arrays: np.ndarray) -> np.dtype:
    """The float dtype the forward computed in (float32 stays float32): identities and
    zero cotangents are built in it, so no float64 helper promotes a float32 gradient."""
    return np.result_type(*arrays, np.float16)


def _fold(g: np.ndarray, upper: bool) -> np.ndarray:
    """The gradient of ``f(sym(A))`` where ``sym`` mirrors the triangle read (lower, or
    upper) onto the other: ``g`` is the gradient of ``f`` at the symmetric matrix."""
    both = g + _t(g)
    off = np.triu(both, 1) if upper else np.tril(both, -1)
    return off + g * _eye_like(g)


def _item(ct, i: int):
    """The cotangent of result ``i`` of a decomposition's list (None: no gradient)."""
    if ct is None or i >= len(ct) or ct[i] is None:
        return None
    return np.asarray(ct[i])


def _gaps(values: np.ndarray, squared: bool = False) -> np.ndarray:
    """``F[..., i, j] = 1 / (v_j - v_i)`` (of the squares with ``squared``), 0 on the
    diagonal; a repeated value (within rounding) is an error raised by the caller."""
    v = values * values if squared else values
    diff = v[..., None, :] - v[..., :, None]
    n = values.shape[-1]
    off = ~np.eye(n, dtype=bool)
    with np.errstate(divide="ignore"):
        return np.where(off, 1.0 / np.where(off, diff, 1.0), 0.0)


def _repeated(values: np.ndarray) -> bool:
    """Whether two of ``values`` (per matrix of a stack) are equal within rounding."""
    n = values.shape[-1]
    if n < 2:
        return False
    eps = np.finfo(values.dtype if values.dtype.kind == "f" else np.float64).eps
    scale = np.max(np.abs(values), axis=-1, keepdims=True)[..., None]
    gaps = np.abs(values[..., None, :] - values[..., :, None]) + np.eye(n) * (scale + 1.0)
    return bool(np.any(gaps <= n * eps * np.maximum(scale, np.finfo(gaps.dtype).tiny)))


# -- Cholesky ------------------------------------------------------------------------------

@VJP.register("cholesky")
def cholesky_vjp(ct, out, a, upper=False):
    """A = L L^T: the gradient on symmetric perturbations is L^-T phi(L^T Lbar) L^-1, phi
    taking the lower triangle with half the diagonal; folded onto the triangle read."""
    is_upper = to_bool(upper)
    low = _t(np.asarray(out)) if is_upper else np.asarray(out)
    low_bar = _t(np.asarray(ct)) if is_upper else np.asarray(ct)
    inner = _t(low) @ low_bar
    phi = np.tril(inner, -1) + 0.5 * inner * _eye_like(inner)
    inv = np.linalg.inv(low)
    return (_fold(_t(inv) @ phi @ inv, is_upper),)


# -- symmetric eigenproblems ---------------------------------------------------------------

def _eigh_gradient(w, v, w_bar, v_bar) -> np.ndarray:
    """V (diag(wbar) + F o (V^T Vbar)) V^T, F_ij = 1 / (w_j - w_i)."""
    inner = np.zeros(v.shape, v.dtype) if w_bar is None else w_bar[..., None, :] * _eye_like(v)
    if v_bar is not None:
        if _repeated(w):
            raise PhylanxValueError(
                "the eigenvectors of a repeated eigenvalue have no gradient (any "
                "rotation of them is an answer); differentiate the eigenvalues, or a "
                "function of the eigenvector block such as v @ v.T")
        inner = inner + _gaps(w) * (_t(v) @ v_bar)
    return v @ inner @ _t(v)


def _reads_upper(UPLO) -> bool:  # noqa: N803 - NumPy's keyword name
    return isinstance(UPLO, str) and UPLO.upper() == "U"


@VJP.register("eigh")
def eigh_vjp(ct, out, a, UPLO="L"):  # noqa: N803 - NumPy's keyword name
    w, v = np.asarray(out[0]), np.asarray(out[1])
    return (_fold(_eigh_gradient(w, v, _item(ct, 0), _item(ct, 1)), _reads_upper(UPLO)),)


@VJP.register("eigvalsh")
def eigvalsh_vjp(ct, out, a, UPLO="L"):  # noqa: N803 - NumPy's keyword name
    w, v = np.linalg.eigh(arr(a), UPLO=UPLO.upper() if isinstance(UPLO, str) else "L")
    return (_fold(_eigh_gradient(w, v, np.asarray(ct), None), _reads_upper(UPLO)),)


# -- general (non-symmetric) eigenproblems ------------------------------------------------

def _real_eigen(w: np.ndarray, vectors: bool) -> None:
    """The conditions of :func:`_eig_gradient`: no repeated eigenvalue; complex ones only
    for the eigenvalues' cotangents (JAX's convention, :mod:`.rules_complex`: the
    gradient of a real matrix is the real part of V^-T diag(wbar) V^T)."""
    if w.dtype.kind == "c" and vectors:
        raise PhylanxValueError(
            "the eigenvectors of a matrix with complex eigenvalues have no gradient here "
            "(each is defined up to a complex phase, and no convention is implemented); "
            "differentiate a function of the eigenvalues, or of a matrix with real ones")
    if _repeated(w):
        raise PhylanxValueError(
            "a repeated eigenvalue of a general matrix is not a differentiable "
            "function of it; use eigh (eigvalsh) for a symmetric matrix")


def _eig_gradient(w, v, w_bar, v_bar) -> np.ndarray:
    """A = V diag(w) V^-1 with unit columns of V (JAX's eig derivative, transposed):
    V^-T (diag(wbar) + F o (V^T Vbar')) V^T, Vbar' = Vbar - V diag(diag(V^T Vbar)) (the
    columns' unit norm), F_ij = 1 / (w_j - w_i)."""
    inner = np.zeros(v.shape, v.dtype) if w_bar is None else w_bar[..., None, :] * _eye_like(v)
    if v_bar is not None:
        vt_vb = _t(v) @ v_bar
        kept = v_bar - v * np.diagonal(vt_vb, axis1=-2, axis2=-1)[..., None, :]
        inner = inner + _gaps(w) * (_t(v) @ kept)
    return np.linalg.solve(_t(v), inner @ _t(v))


@VJP.register("eig")
def eig_vjp(ct, out, a):
    w, v = np.asarray(out[0]), np.asarray(out[1])
    _real_eigen(w, _item(ct, 1) is not None)
    return (_eig_gradient(w, v, _item(ct, 0), _item(ct, 1)),)


@VJP.register("eigvals")
def eigvals_vjp(ct, out, a):
    w, v = np.linalg.eig(arr(a))
    _real_eigen(w, False)
    return (_eig_gradient(w, v, np.asarray(ct), None),)


# -- SVD -----------------------------------------------------------------------------------

def _svd_gradient(u, s, vh, u_bar, s_bar, vh_bar) -> np.ndarray:
    """Townsend's formula for the reduced SVD a = u diag(s) vh (u: m x k, vh: k x n)."""
    v = _t(vh)
    v_bar = None if vh_bar is None else _t(vh_bar)
    m, n, k = u.shape[-2], v.shape[-2], s.shape[-1]
    eye = np.eye(k, dtype=s.dtype)
    inner = np.zeros(s.shape + (k,), s.dtype) if s_bar is None else s_bar[..., None, :] * eye
    if u_bar is not None or v_bar is not None:
        if _repeated(s):
            raise PhylanxValueError(
                "svd: the singular vectors of a repeated singular value have no gradient "
                "(any rotation of them is an answer); differentiate the singular values")
        non_square = (u_bar is not None and m > k) or (v_bar is not None and n > k)
        if non_square and np.any(s <= k * np.finfo(s.dtype).eps * s[..., :1]):
            raise PhylanxValueError(
                "svd: the singular vectors of a non-square matrix with a zero singular value "
                "have no gradient")
        gaps = _gaps(s, squared=True)
        sing = s[..., None, :] * eye                           # diag(s)
        if u_bar is not None:
            ut_ub = _t(u) @ u_bar
            inner = inner + (gaps * (ut_ub - _t(ut_ub))) @ sing
        if v_bar is not None:
            vt_vb = _t(v) @ v_bar
            inner = inner + sing @ (gaps * (vt_vb - _t(vt_vb)))
    grad = u @ inner @ vh
    if u_bar is not None and m > k:
        grad = grad + (u_bar - u @ (_t(u) @ u_bar)) / s[..., None, :] @ vh
    if v_bar is not None and n > k:
        grad = grad + u @ ((_t(v_bar) - (_t(v_bar) @ v) @ vh) / s[..., :, None])
    return grad


def _reduced_cotangent(ct_part, keep: int, axis: int, what: str):
    """A full-matrices cotangent cut to the reduced SVD's ``keep`` columns (axis -1) or
    rows (axis -2); the completion beyond them is arbitrary, so it must get none."""
    if ct_part is None or ct_part.shape[axis] == keep:
        return ct_part
    rest = ct_part[..., keep:] if axis == -1 else ct_part[..., keep:, :]
    if np.any(rest != 0):
        raise PhylanxValueError(
            f"svd: the extra {what} that full_matrices adds to a non-square matrix have no "
            "gradient (any completion is an answer); use full_matrices=False")
    return ct_part[..., :keep] if axis == -1 else ct_part[..., :keep, :]


@VJP.register("svd")
def svd_vjp(ct, out, a, full_matrices=True, compute_uv=True, hermitian=False):
    if not to_bool(compute_uv):
        u, s, vh = np.linalg.svd(arr(a), full_matrices=False, hermitian=to_bool(hermitian))
        u_bar, s_bar, vh_bar = None, np.asarray(ct), None
    else:
        u, s, vh = (np.asarray(o) for o in out)
        u_bar, s_bar, vh_bar = _item(ct, 0), _item(ct, 1), _item(ct, 2)
        k = s.shape[-1]
        u_bar = _reduced_cotangent(u_bar, k, -1, "columns of u")
        vh_bar = _reduced_cotangent(vh_bar, k, -2, "rows of vh")
        u, vh = u[..., :k], vh[..., :k, :]
    grad = _svd_gradient(u, s, vh, u_bar, s_bar, vh_bar)
    return (_fold(grad, False) if to_bool(hermitian) else grad,)


# -- QR ------------------------------------------------------------------------------------

def _qr_gradient(q, r, q_bar, r_bar) -> np.ndarray:
    """A = Q R, M >= N, full rank: Q (Rbar + copy(M) R^-T) + (Qbar - Q Q^T Qbar) R^-T with
    M = tril(Q^T Qbar - Qbar^T Q + R Rbar^T - Rbar R^T)."""
    diag = np.abs(np.diagonal(r, axis1=-2, axis2=-1))
    if np.any(diag <= r.shape[-1] * np.finfo(r.dtype).eps * np.max(diag, -1, keepdims=True)):
        raise PhylanxValueError("qr: a rank-deficient matrix has no gradient (its Q is not "
                                "unique)")
    q_bar = np.zeros(q.shape, q.dtype) if q_bar is None else q_bar
    r_bar = np.zeros(r.shape, r.dtype) if r_bar is None else r_bar
    qtqb = _t(q) @ q_bar
    rrbt = r @ _t(r_bar)
    low = np.tril(qtqb - _t(qtqb) + rrbt - _t(rrbt))
    right = _t(np.linalg.solve(r, _t(low)))                      # low R^-T
    rest = _t(np.linalg.solve(r, _t(q_bar - q @ qtqb)))          # (Qbar - Q Q^T Qbar) R^-T
    return q @ (r_bar + right) + rest


@VJP.register("qr")
def qr_vjp(ct, out, a, mode="reduced"):
    x = arr(a)
    m, n = x.shape[-2], x.shape[-1]
    if mode == "raw":
        raise PhylanxValueError("qr: mode \"raw\" (LAPACK's Householder form) has no gradient")
    if m < n:
        raise PhylanxValueError(f"qr: a wide matrix ({m} x {n}, M < N) has no gradient here "
                                "(its R is not square); differentiate the QR of its transpose")
    if mode == "r":
        q, r = np.linalg.qr(x)
        return (_qr_gradient(q, r, None, np.asarray(ct)),)
    q, r = np.asarray(out[0]), np.asarray(out[1])
    q_bar, r_bar = _item(ct, 0), _item(ct, 1)
    if mode == "complete" and m > n:
        if q_bar is not None and np.any(q_bar[..., n:] != 0):
            raise PhylanxValueError("qr: the extra columns of a complete Q have no gradient "
                                    "(any completion is an answer); use mode \"reduced\"")
        q, r = q[..., :n], r[..., :n, :]
        q_bar = None if q_bar is None else q_bar[..., :n]
        r_bar = None if r_bar is None else r_bar[..., :n, :]
    return (_qr_gradient(q, r, q_bar, r_bar),)


# -- pseudo-inverse and least squares ------------------------------------------------------

def _pinv_gradient(x, p, p_bar) -> np.ndarray:
    """Golub and Pereyra (rank constant near x, which the cut-off of small singular values
    keeps): -P^T Pbar P^T + (I - X P) Pbar^T P P^T + P^T P Pbar^T (I - P X)."""
    pt = _t(p)
    dtype = _float_dtype(x, p)
    eye_m = np.eye(x.shape[-2], dtype=dtype)
    eye_n = np.eye(x.shape[-1], dtype=dtype)
    return (-(pt @ p_bar @ pt) + (eye_m - x @ p) @ _t(p_bar) @ p @ pt
            + pt @ p @ _t(p_bar) @ (eye_n - p @ x))


@VJP.register("pinv")
def pinv_vjp(ct, out, a, rcond=None, hermitian=False):
    x = arr(a)
    if to_bool(hermitian):        # the matrix numpy used: the lower triangle mirrored
        x = np.tril(x) + _t(np.tril(x, -1))
    grad = _pinv_gradient(x, np.asarray(out), np.asarray(ct))
    return (_fold(grad, False) if to_bool(hermitian) else grad,)


def lstsq_rcond(rcond, a) -> float:
    """The ``rcond`` of ``pinv`` that cuts the singular values ``lstsq(a, b, rcond)``
    cuts: None is NumPy's ``eps * max(m, n)``, a negative one machine precision (LAPACK's;
    ``pinv(a, -1)`` would keep the zero singular values of a rank-deficient ``a``: a
    gradient of about 1e31, until rev36)."""
    eps = float(np.finfo(np.float64).eps)     # NumPy's lstsq computes in double
    if rcond is None:
        return eps * max(np.shape(a)[-2:])
    return eps if float(rcond) < 0 else float(rcond)


@VJP.register("lstsq")
def lstsq_vjp(ct, out, a, b, rcond=None):
    """x = pinv(a) b; the residuals' derivative is that of |b - a x|^2 at its minimum
    (x's own change does not count there); s as in svd; the rank has none."""
    x_mat, rhs = arr(a), arr(b)
    solution = np.asarray(out[0])
    one_rhs = rhs.ndim == 1
    rhs2 = rhs[:, None] if one_rhs else rhs
    sol2 = solution[:, None] if one_rhs else solution
    dtype = _float_dtype(x_mat, rhs2)
    grad_a = np.zeros(x_mat.shape, dtype)
    grad_b = np.zeros(rhs2.shape, dtype)
    x_bar, res_bar, s_bar = _item(ct, 0), _item(ct, 1), _item(ct, 3)
    if x_bar is not None:
        p = np.linalg.pinv(x_mat, lstsq_rcond(rcond, x_mat))
        xb = x_bar[:, None] if one_rhs else x_bar
        grad_a = grad_a + _pinv_gradient(x_mat, p, xb @ rhs2.T)
        grad_b = grad_b + p.T @ xb
    if res_bar is not None and res_bar.size:
        residual = rhs2 - x_mat @ sol2                  # d |b - a x|^2 = 2 <residual, db - da x>
        weighted = 2.0 * residual * res_bar.reshape(1, -1)
        grad_a = grad_a - weighted @ sol2.T
        grad_b = grad_b + weighted
    if s_bar is not None:
        u, s, vh = np.linalg.svd(x_mat, full_matrices=False)
        grad_a = grad_a + _svd_gradient(u, s, vh, None, s_bar, None)
    return grad_a, grad_b[:, 0] if one_rhs else grad_b
