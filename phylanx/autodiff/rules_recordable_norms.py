"""Equation forms of the norm rules: ``__npnorm`` (``np.linalg.norm``), the original's
``norm``, ``normalize`` and Keras' ``l2_normalize`` (for nested differentiation; the
mechanism is in :mod:`.rules_recordable`).

The smooth norms are written with primitives: the 2-norm and Frobenius norm
``ct x / r``, a ``p``-norm ``ct sign(x) |x|^(p-1) / r^(p-1)``.  The piecewise linear ones
(``ord`` 1, ``inf``, ``-inf``, 0; the matrix norms ``±1``, ``±inf``) have a gradient
constant where it exists (the kernel rule's signs and shares, constants of the
derivative), times the cotangent.  The spectral matrix norms (``"nuc"``, ``±2``, since
ad46) record the ``svd`` of their matrix.  Not covered (None: a located error in nested
differentiation): a zero norm (a kink), a spectral norm over axes other than the last
two.  ``tests/autodiff/test_second_order.py`` checks them.
"""
from __future__ import annotations

import numpy as np

from . import rules_keras, rules_norms, rules_recordable_svd, rules_reductions  # noqa: F401
from .equations import eq, shape_of
from .rule_helpers import arr, expand_reduced, reduced_axes
from .rules_arithmetic import abs_slope
from .rules_norms import _matrix_axes, _matrix_gradient, _order, _shared, _vector_gradient
from .rules_recordable import recordable


def _vector(ct, out, x, one, ord_, kept_shape):
    """The cotangent of a vector norm along ``one`` (None: all of ``x``)."""
    r, ctk = eq("reshape", out, kept_shape), eq("reshape", ct, kept_shape)
    if ord_ is None or ord_ == 2:
        return eq("__mul", ctk, eq("__div", x, r))
    if ord_ == 0:
        return np.zeros(shape_of(x))  # counts the non-zeros: piecewise constant
    if ord_ in (1, np.inf, -np.inf):
        v = arr(x)
        constant = _vector_gradient(v, np.reshape(np.asarray(out), kept_shape), one, ord_)
        return eq("__mul", ctk, constant)
    p = float(ord_)
    signed = eq("__mul", abs_slope(arr(x)), eq("power", eq("absolute", x), p - 1.0))
    return eq("__mul", ctk, eq("__div", signed, eq("power", r, p - 1.0)))


@recordable("__npnorm")
def npnorm_equations(ct, out, x, ord=None, axis=None, keepdims=False, wanted=None):
    v = arr(x)
    if np.any(np.asarray(out) == 0):
        return None                 # a zero norm: a kink (the kernel takes zero there)
    ord_ = _order(ord)
    pair = _matrix_axes(v, axis) if ord_ is not None or axis is not None else None
    if pair is None:
        one = None if axis is None else int(np.ravel(axis)[0]) % v.ndim
        kept = list(np.shape(expand_reduced(np.asarray(out), v, one, keepdims)))
        return (_vector(ct, out, x, one, ord_, kept),)
    kept = [1 if i in pair else n for i, n in enumerate(v.shape)]
    ctk = eq("reshape", ct, kept)
    if ord_ is None or ord_ == "fro":
        return (eq("__mul", ctk, eq("__div", x, eq("reshape", out, kept))),)
    if ord_ in ("nuc", 2, -2):
        return _spectral(ctk, x, v, pair, ord_)
    moved = np.moveaxis(v, pair, (-2, -1))
    rest = np.reshape(np.asarray(out), np.shape(moved)[:-2])
    constant = np.moveaxis(_matrix_gradient(moved, rest[..., None, None], ord_), (-2, -1),
                           pair)
    return (eq("__mul", ctk, constant),)


def _spectral(ctk, x, v, pair, ord_):
    """``"nuc"``: ``u @ vh``; ``±2``: ``u diag(share) vh`` (the kernel rule's, the ties'
    shares constants), the factors from a recorded reduced ``svd`` (its equation form
    gives the next derivative); the last two axes only."""
    if tuple(pair) != (v.ndim - 2, v.ndim - 1):
        return None                 # a moved matrix: not covered
    parts = eq("svd", x, False)
    u, vh = eq("__subscript", parts, 0), eq("__subscript", parts, 2)
    if ord_ != "nuc":
        s = np.linalg.svd(v, compute_uv=False)
        share = _shared(s, s[..., :1] if ord_ == 2 else s[..., -1:])
        u = eq("__mul", u, np.expand_dims(share, -2))
    return (eq("__mul", ctk, eq("matmul", u, vh)),)


@recordable("norm")
def original_norm_equations(ct, out, x, ord=None, axis=None, keepdims=False, wanted=None):
    if np.any(np.asarray(out) == 0):
        return None
    kept = [1] * len(shape_of(x))
    if len(kept) == 2:              # nil, "fro" and 2 are all element-wise here
        return (eq("__mul", eq("reshape", ct, kept), eq("__div", x, eq("reshape", out, kept))),)
    return (_vector(ct, out, x, None, _order(ord), kept),)


@recordable("normalize")
def normalize_equations(ct, out, a, dtype=None, wanted=None):
    # out = a / |a|: (ct - out <ct, out>) / |a|
    norm = eq("sqrt", eq("sum", eq("__mul", a, a)))
    return (eq("__div", eq("__sub", ct, eq("__mul", out, eq("sum", eq("__mul", ct, out)))),
               norm),)


@recordable("l2_normalize")
def l2_normalize_equations(ct, out, x, axis=None, wanted=None):
    v = arr(x)
    axes = reduced_axes(axis, v.ndim) or None
    if np.any(np.sum(v * v, axis=axes, keepdims=True) <= 1e-12):
        return None                 # below the floor the norm is a constant: not covered
    along = list(axes) if axes is not None else None
    square_sum = eq("sum", eq("__mul", x, x), along, True)
    norm = eq("sqrt", square_sum)
    projected = eq("sum", eq("__mul", ct, x), along, True)
    return (eq("__sub", eq("__div", ct, norm),
               eq("__div", eq("__mul", x, projected), eq("__mul", norm, square_sum))),)


