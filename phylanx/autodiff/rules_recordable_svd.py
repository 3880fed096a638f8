"""Equation forms of the SVD-based rules: ``svd``, ``pinv`` and ``lstsq`` (for nested
differentiation; the mechanism is in :mod:`.rules_recordable`, the formulas and their
conditions in :mod:`.rules_decompositions`).

Each is its kernel rule's formula written with primitives (``matmul``, ``transpose``,
``expand_dims``, the arithmetic), stacks of matrices included:

* ``svd``: Townsend's formula, the gaps ``1 / (s_j^2 - s_i^2)`` an equation of ``s``.
  ``full_matrices``' extra columns of u (rows of vh) are cut off by a product with a
  constant selection matrix (their cotangent must be zero, as the kernel rule requires);
  ``compute_uv`` false computes the vectors with a recorded ``svd``.
* ``pinv``: Golub and Pereyra's formula in ``a``, ``pinv(a)`` and the cotangent.
* ``lstsq``: ``x = pinv(a) b`` (a recorded ``pinv``), the residuals at their minimum,
  ``s`` through a recorded reduced ``svd``.

The conditions are the kernel rule's and raise its errors (a repeated singular value
where the vectors get a cotangent, ...), located by the engine.  Constants (identities,
selections) are built in the operand's float dtype, so float32 stays float32.
``tests/autodiff/test_second_order.py`` checks them.
"""
from __future__ import annotations

import numpy as np

from ..errors import PhylanxValueError
from . import rules_decompositions  # noqa: F401 (the rules)
from .equations import eq, shape_of
from .rule_helpers import to_bool
from .rules_decompositions import _reduced_cotangent, _repeated, lstsq_rcond
from .rules_recordable import recordable
from .rules_recordable_decompositions import _fold, _item, _mm, _t


def _dtype(*values) -> np.dtype:
    """The float dtype the forward computed in (float32 stays float32)."""
    return np.result_type(*(np.asarray(v).dtype for v in values), np.float16)


def _sum(*terms):
    terms = [t for t in terms if t is not None]
    total = terms[0]
    for t in terms[1:]:
        total = eq("__add", total, t)
    return total


def _columns(m, n: int, keep: int, dtype):
    """The first ``keep`` of the ``n`` columns of (each matrix of) ``m``: ``m @ eye(n)[:,
    :keep]``, a product with a constant (its adjoint the same product transposed)."""
    return m if n == keep else eq("matmul", m, np.eye(n, keep, dtype=dtype))


def _rows(m, n: int, keep: int, dtype):
    """The first ``keep`` of the ``n`` rows of (each matrix of) ``m``."""
    return m if n == keep else eq("matmul", np.eye(keep, n, dtype=dtype), m)


def _svd_gradient(u, s, vh, u_bar, s_bar, vh_bar, dims, dtype):
    """Townsend's formula for the reduced SVD a = u diag(s) vh (u: m x k, vh: k x n;
    ``dims`` = (rank, m, n, k)), as :func:`.rules_decompositions._svd_gradient`."""
    rank, m, n, k = dims
    eye = np.eye(k, dtype=dtype)
    values = np.asarray(s)
    inner = None if s_bar is None else eq("__mul", eq("expand_dims", s_bar, -2), eye)
    v_bar = None if vh_bar is None else _t(vh_bar, rank)
    if u_bar is not None or v_bar is not None:
        if _repeated(values):
            raise PhylanxValueError(
                "svd: the singular vectors of a repeated singular value have no gradient "
                "(any rotation of them is an answer); differentiate the singular values")
        non_square = (u_bar is not None and m > k) or (v_bar is not None and n > k)
        if non_square and np.any(values <= k * np.finfo(values.dtype).eps * values[..., :1]):
            raise PhylanxValueError(
                "svd: the singular vectors of a non-square matrix with a zero singular value "
                "have no gradient")
        squares = eq("__mul", s, s)
        diff = eq("__sub", eq("expand_dims", squares, -2), eq("expand_dims", squares, -1))
        gaps = eq("__div", 1.0 - eye, eq("__add", diff, eye))      # 1 / (s_j^2 - s_i^2)
        sing = eq("__mul", eq("expand_dims", s, -2), eye)          # diag(s)
        if u_bar is not None:
            ut_ub = _mm(_t(u, rank), u_bar)
            skew = eq("__mul", gaps, eq("__sub", ut_ub, _t(ut_ub, rank)))
            inner = _sum(inner, _mm(skew, sing))
        if v_bar is not None:
            vt_vb = _mm(vh, v_bar)
            skew = eq("__mul", gaps, eq("__sub", vt_vb, _t(vt_vb, rank)))
            inner = _sum(inner, _mm(sing, skew))
    grad = None if inner is None else _mm(u, inner, vh)
    if u_bar is not None and m > k:            # (Ubar - U U^T Ubar) / s vh
        rest = eq("__sub", u_bar, _mm(u, _t(u, rank), u_bar))
        grad = _sum(grad, _mm(eq("__div", rest, eq("expand_dims", s, -2)), vh))
    if v_bar is not None and n > k:            # U (Vbar^T - Vbar^T V vh) / s
        vbt = _t(v_bar, rank)
        rest = eq("__sub", vbt, _mm(vbt, _t(vh, rank), vh))
        grad = _sum(grad, _mm(u, eq("__div", rest, eq("expand_dims", s, -1))))
    return grad


@recordable("svd")
def svd_equations(ct, out, a, full_matrices=True, compute_uv=True, hermitian=False,
                  wanted=None):
    shape = shape_of(a)
    rank, m, n = len(shape), shape[-2], shape[-1]
    k, dtype = min(m, n), _dtype(a)
    dims = (rank, m, n, k)
    if not to_bool(compute_uv):                # the vectors from a recorded reduced svd
        parts = eq("svd", a, False, True, hermitian)
        grad = _svd_gradient(eq("__subscript", parts, 0), out, eq("__subscript", parts, 2),
                             None, ct, None, dims, dtype)
    else:
        u, s, vh = out[0], out[1], out[2]
        u_bar, s_bar, vh_bar = _item(ct, 0), _item(ct, 1), _item(ct, 2)
        full = to_bool(full_matrices)
        if u_bar is not None:                  # the completion's columns: no cotangent
            _reduced_cotangent(np.asarray(u_bar), k, -1, "columns of u")
            u_bar = _columns(u_bar, m, k, dtype) if full else u_bar
        if vh_bar is not None:
            _reduced_cotangent(np.asarray(vh_bar), k, -2, "rows of vh")
            vh_bar = _rows(vh_bar, n, k, dtype) if full else vh_bar
        if full:
            u, vh = _columns(u, m, k, dtype), _rows(vh, n, k, dtype)
        grad = _svd_gradient(u, s, vh, u_bar, s_bar, vh_bar, dims, dtype)
    if grad is None:
        return (None,)
    return (_fold(grad, rank, n, False) if to_bool(hermitian) else grad,)


def _pinv_gradient(x, p, p_bar, dims, dtype):
    """Golub and Pereyra (:func:`.rules_decompositions._pinv_gradient`): -P^T Pbar P^T +
    (I - X P) Pbar^T P P^T + P^T P Pbar^T (I - P X)."""
    rank, m, n = dims
    pt, pbt = _t(p, rank), _t(p_bar, rank)
    left = eq("__sub", np.eye(m, dtype=dtype), _mm(x, p))
    right = eq("__sub", np.eye(n, dtype=dtype), _mm(p, x))
    return _sum(eq("__minus", _mm(pt, p_bar, pt)), _mm(left, pbt, p, pt),
                _mm(pt, p, pbt, right))


@recordable("pinv")
def pinv_equations(ct, out, a, rcond=None, hermitian=False, wanted=None):
    shape = shape_of(a)
    rank, m, n = len(shape), shape[-2], shape[-1]
    x = a
    if to_bool(hermitian):                     # the matrix numpy used: lower mirrored
        x = eq("__add", eq("tril", a), _t(eq("tril", a, -1), rank))
    grad = _pinv_gradient(x, out, ct, (rank, m, n), _dtype(a, out))
    return (_fold(grad, rank, n, False) if to_bool(hermitian) else grad,)


@recordable("lstsq")
def lstsq_equations(ct, out, a, b, rcond=None, wanted=None):
    """x = pinv(a) b; residuals |b - a x|^2 at their minimum; s as in svd (the kernel
    rule's, :func:`.rules_decompositions.lstsq_vjp`)."""
    (m, n), one_rhs = shape_of(a), len(shape_of(b)) == 1
    dtype = _dtype(a, b)
    rhs = eq("expand_dims", b, -1) if one_rhs else b
    solution = eq("expand_dims", out[0], -1) if one_rhs else out[0]
    x_bar, res_bar, s_bar = _item(ct, 0), _item(ct, 1), _item(ct, 3)
    grads_a, grads_b = [], []
    if x_bar is not None:
        p = eq("pinv", a, lstsq_rcond(rcond, a))
        xb = eq("expand_dims", x_bar, -1) if one_rhs else x_bar
        grads_a.append(_pinv_gradient(a, p, _mm(xb, _t(rhs, 2)), (2, m, n), dtype))
        grads_b.append(_mm(_t(p, 2), xb))
    if res_bar is not None and np.size(res_bar):
        residual = eq("__sub", rhs, _mm(a, solution))   # d|b - a x|^2 = 2 <r, db - da x>
        weighted = eq("__mul", 2.0, residual, eq("expand_dims", res_bar, 0))
        grads_a.append(eq("__minus", _mm(weighted, _t(solution, 2))))
        grads_b.append(weighted)
    if s_bar is not None:
        parts = eq("svd", a, False)
        grads_a.append(_svd_gradient(eq("__subscript", parts, 0), eq("__subscript", parts, 1),
                                     eq("__subscript", parts, 2), None, s_bar, None,
                                     (2, m, n, min(m, n)), dtype))
    grad_b = _sum(*grads_b) if grads_b else None
    if grad_b is not None and one_rhs:
        grad_b = eq("reshape", grad_b, [m])
    return (_sum(*grads_a) if grads_a else None, grad_b)
