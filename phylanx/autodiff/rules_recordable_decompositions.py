"""Equation forms of the decomposition rules: ``cholesky``, ``eigh``, ``eigvalsh``,
``eig``, ``eigvals`` and ``qr`` (for nested differentiation; the mechanism is in
:mod:`.rules_recordable`, the formulas and their conditions in
:mod:`.rules_decompositions`).

Each is its kernel rule's formula written with primitives (``matmul``, ``transpose``,
``inverse``, ``solve``, ``tril``/``triu``), stacks of matrices included.  The eigenvalue
gaps ``F_ij = 1 / (w_j - w_i)`` depend on the eigenvalues, so they are equations too
(``off / (w_j - w_i + I)``, the off-diagonal mask and the identity constants).
``eigvalsh`` and ``eigvals`` need the eigenvectors, which their forward did not return:
the form computes them with ``eigh`` / ``eig`` (recorded, so their own rules give the
next derivative).  Not covered (None: a located error in nested differentiation, as
the kernel rule's own conditions): repeated eigenvalues where eigenvectors get a
cotangent, complex eigenvalues of a general matrix, ``qr``'s ``"r"`` mode (its Q not
returned).  ``svd``, ``pinv`` and ``lstsq``: :mod:`.rules_recordable_svd`.
``tests/autodiff/test_second_order.py`` checks them.
"""
from __future__ import annotations

import numpy as np

from . import rules_decompositions  # noqa: F401 (the rules)
from .equations import eq, shape_of
from .rule_helpers import to_bool
from .rules_decompositions import _reads_upper, _repeated
from .rules_recordable import recordable


def _t(m, rank: int):
    """Each matrix of ``m`` (of rank ``rank``) transposed."""
    return eq("transpose", m, list(range(rank - 2)) + [rank - 1, rank - 2])


def _mm(*factors):
    product = factors[0]
    for f in factors[1:]:
        product = eq("matmul", product, f)
    return product


def _diag(values, n: int):
    """diag(values) for the last axis of ``values`` (a stack of diagonal matrices)."""
    return eq("__mul", eq("expand_dims", values, -2), np.eye(n))


def _gaps(w, n: int):
    """``F_ij = 1 / (w_j - w_i)``, 0 on the diagonal, as an equation of ``w``."""
    off = 1.0 - np.eye(n)
    diff = eq("__sub", eq("expand_dims", w, -2), eq("expand_dims", w, -1))
    return eq("__div", off, eq("__add", diff, np.eye(n)))


def _fold(g, rank: int, n: int, upper: bool):
    """The gradient on the triangle read (:func:`.rules_decompositions._fold`)."""
    both = eq("__add", g, _t(g, rank))
    off = eq("triu", both, 1) if upper else eq("tril", both, -1)
    return eq("__add", off, eq("__mul", g, np.eye(n)))


def _item(ct, i: int):
    return None if ct is None or i >= len(ct) else ct[i]


@recordable("cholesky")
def cholesky_equations(ct, out, a, upper=False, wanted=None):
    rank, n = len(shape_of(a)), shape_of(a)[-1]
    is_upper = to_bool(upper)
    low = _t(out, rank) if is_upper else out
    low_bar = _t(ct, rank) if is_upper else ct
    inner = _mm(_t(low, rank), low_bar)
    phi = eq("__add", eq("tril", inner, -1), eq("__mul", inner, 0.5 * np.eye(n)))
    inv = eq("inverse", low)
    return (_fold(_mm(_t(inv, rank), phi, inv), rank, n, is_upper), None)


def _eigh_gradient(w, v, w_bar, v_bar, rank: int, n: int):
    """V (diag(wbar) + F o (V^T Vbar)) V^T; None where not covered."""
    inner = None if w_bar is None else _diag(w_bar, n)
    if v_bar is not None:
        if _repeated(np.asarray(w)):
            return None
        mixed = eq("__mul", _gaps(w, n), _mm(_t(v, rank), v_bar))
        inner = mixed if inner is None else eq("__add", inner, mixed)
    if inner is None:
        return None
    return _mm(v, inner, _t(v, rank))


@recordable("eigh")
def eigh_equations(ct, out, a, UPLO="L", wanted=None):  # noqa: N803 - NumPy's name
    rank, n = len(shape_of(a)), shape_of(a)[-1]
    grad = _eigh_gradient(out[0], out[1], _item(ct, 0), _item(ct, 1), rank, n)
    return None if grad is None else (_fold(grad, rank, n, _reads_upper(UPLO)), None)


@recordable("eigvalsh")
def eigvalsh_equations(ct, out, a, UPLO="L", wanted=None):  # noqa: N803 - NumPy's name
    rank, n = len(shape_of(a)), shape_of(a)[-1]
    v = eq("__subscript", eq("eigh", a, UPLO), 1)
    grad = _mm(v, _diag(ct, n), _t(v, rank))
    return (_fold(grad, rank, n, _reads_upper(UPLO)), None)


def _eig_gradient(w, v, w_bar, v_bar, rank: int, n: int):
    """V^-T (diag(wbar) + F o (V^T Vbar')) V^T, Vbar' = Vbar - V diag(diag(V^T Vbar))."""
    inner = None if w_bar is None else _diag(w_bar, n)
    if v_bar is not None:
        vt_vb = _mm(_t(v, rank), v_bar)
        column_parts = eq("sum", eq("__mul", vt_vb, np.eye(n)), -2)     # diag(V^T Vbar)
        kept = eq("__sub", v_bar, eq("__mul", v, eq("expand_dims", column_parts, -2)))
        mixed = eq("__mul", _gaps(w, n), _mm(_t(v, rank), kept))
        inner = mixed if inner is None else eq("__add", inner, mixed)
    if inner is None:
        return None
    return eq("solve", _t(v, rank), _mm(inner, _t(v, rank)))


def _real_distinct(w) -> bool:
    values = np.asarray(w)
    return values.dtype.kind != "c" and not _repeated(values)


@recordable("eig")
def eig_equations(ct, out, a, wanted=None):
    if not _real_distinct(out[0]):
        return None
    rank, n = len(shape_of(a)), shape_of(a)[-1]
    grad = _eig_gradient(out[0], out[1], _item(ct, 0), _item(ct, 1), rank, n)
    return None if grad is None else (grad,)


@recordable("eigvals")
def eigvals_equations(ct, out, a, wanted=None):
    if not _real_distinct(out):
        return None
    rank, n = len(shape_of(a)), shape_of(a)[-1]
    v = eq("__subscript", eq("eig", a), 1)
    return (_eig_gradient(out, v, ct, None, rank, n),)




@recordable("qr")
def qr_equations(ct, out, a, mode="reduced", wanted=None):
    """A = Q R, M >= N, full rank: Q (Rbar + M R^-T) + (Qbar - Q Q^T Qbar) R^-T, M =
    tril(Q^T Qbar - Qbar^T Q + R Rbar^T - Rbar R^T) (the kernel rule's); the reduced
    (and square complete) factors only."""
    shape = shape_of(a)
    rank, m, n = len(shape), shape[-2], shape[-1]
    if mode not in ("reduced", "complete") or m < n or (mode == "complete" and m > n):
        return None
    q, r = out[0], out[1]
    diag = np.abs(np.diagonal(np.asarray(r), axis1=-2, axis2=-1))
    if np.any(diag <= n * np.finfo(diag.dtype).eps * np.max(diag, -1, keepdims=True)):
        return None                 # rank-deficient: the kernel refuses it
    q_bar = _item(ct, 0) if _item(ct, 0) is not None else np.zeros(np.shape(q))
    r_bar = _item(ct, 1) if _item(ct, 1) is not None else np.zeros(np.shape(r))
    qtqb = _mm(_t(q, rank), q_bar)
    rrbt = _mm(r, _t(r_bar, rank))
    low = eq("tril", eq("__sub", eq("__add", eq("__sub", qtqb, _t(qtqb, rank)), rrbt),
                        _t(rrbt, rank)))
    right = _t(eq("solve", r, _t(low, rank)), rank)                     # low R^-T
    rest = _t(eq("solve", r, _t(eq("__sub", q_bar, _mm(q, qtqb)), rank)), rank)
    return (eq("__add", _mm(q, eq("__add", r_bar, right)), rest), None)
