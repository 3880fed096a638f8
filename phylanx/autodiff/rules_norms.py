"""VJP rules of the norms: ``__npnorm`` (``np.linalg.norm``, every ``ord``) and the
original's ``norm``.

Vector norms (``axis`` nil on a vector, or one axis): the 2-norm ``x / r``; ``ord`` 1
``sign(x)``; ``inf``/``-inf`` ``sign(x)`` at the largest/smallest ``|x|`` (ties share the
cotangent, as JAX's ``max`` does); ``0`` counts the non-zeros, piecewise constant (a zero
gradient); any other ``p``: ``sign(x) |x|^(p-1) / r^(p-1)``.  Matrix norms (a matrix
with ``axis`` nil, or two axes): Frobenius ``x / r``; ``"nuc"`` ``u @ vh``; ``2``/``-2``
the outer product of the singular vectors of the largest/smallest singular value (ties
share: ``u_block @ vh_block`` is the same for every basis of a repeated value's block);
``1``/``-1`` ``sign(x)`` in the column of largest/smallest absolute sum, ``inf``/``-inf``
in the row.  ``sign`` is |x|'s slope, +1 at 0 (``abs``'s rule, as JAX: the 1-norm of a
vector with zeros is JAX's).  Where a 2-, p- or Frobenius norm is zero, its
(sub)gradient is taken as zero (JAX: NaN, from ``x / r``); docs/autodiff.md, "Kinks".
"""
from __future__ import annotations

import numpy as np

from .rule_helpers import arr, expand_reduced, to_bool
from .rules_arithmetic import abs_slope
from .table import VJP


def _order(ord_):
    """``ord`` as a Python number or string (0-d arrays and NumPy scalars unwrapped)."""
    if isinstance(ord_, np.ndarray) and ord_.ndim == 0:
        ord_ = ord_[()]
    return ord_.item() if isinstance(ord_, np.generic) else ord_


def _shared(values: np.ndarray, best: np.ndarray) -> np.ndarray:
    """1 / (number of ties) where ``values`` equals ``best`` along the last axis, else 0."""
    hits = (values == best).astype(values.dtype if values.dtype.kind == "f" else np.float64)
    return hits / np.maximum(np.sum(hits, axis=-1, keepdims=True), 1.0)


def _divided(num: np.ndarray, r: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(r == 0, 0.0, num / np.where(r == 0, 1.0, r))


def _vector_gradient(x: np.ndarray, r: np.ndarray, axis: int | None, ord_) -> np.ndarray:
    """d norm / dx for a vector norm along ``axis`` (None: all of ``x``); ``r`` the norm
    with the reduced axis kept (length 1)."""
    if ord_ is None or ord_ == 2:
        return _divided(x, r)
    magnitude, sign = np.abs(x), abs_slope(x)
    if ord_ == 0:
        return np.zeros(x.shape, x.dtype)
    if ord_ == 1:
        return sign
    if ord_ in (np.inf, -np.inf):
        moved = magnitude.reshape(1, -1) if axis is None else np.moveaxis(magnitude, axis, -1)
        best = np.max(moved, -1, keepdims=True) if ord_ > 0 else np.min(moved, -1, keepdims=True)
        share = _shared(moved, best)
        share = share.reshape(x.shape) if axis is None else np.moveaxis(share, -1, axis)
        return sign * share
    with np.errstate(divide="ignore", invalid="ignore"):
        return _divided(sign * magnitude ** (ord_ - 1), r ** (ord_ - 1))


def _matrix_gradient(m: np.ndarray, r: np.ndarray, ord_) -> np.ndarray:
    """d norm / dm for the matrix norm of the last two axes; ``r`` shaped (..., 1, 1)."""
    if ord_ is None or ord_ == "fro":
        return _divided(m, r)
    if ord_ in ("nuc", 2, -2):
        u, s, vh = np.linalg.svd(m, full_matrices=False)
        if ord_ == "nuc":
            return u @ vh
        share = _shared(s, s[..., :1] if ord_ == 2 else s[..., -1:])
        return (u * share[..., None, :]) @ vh
    sign = abs_slope(m)
    by_column = ord_ in (1, -1)
    sums = np.sum(np.abs(m), axis=-2 if by_column else -1)
    best = np.max(sums, -1, keepdims=True) if ord_ > 0 else np.min(sums, -1, keepdims=True)
    share = _shared(sums, best)
    return sign * (share[..., None, :] if by_column else share[..., :, None])


def _matrix_axes(x: np.ndarray, axis) -> tuple[int, int] | None:
    """The two axes of a matrix norm, or None for a vector norm."""
    if axis is None:
        return (0, 1) if x.ndim == 2 else None
    axes = [int(a) for a in np.ravel(axis)] if not isinstance(axis, (int, np.integer)) \
        else [int(axis)]
    return (axes[0] % x.ndim, axes[1] % x.ndim) if len(axes) == 2 else None


@VJP.register("__npnorm")
def norm_vjp(ct, out, x, ord=None, axis=None, keepdims=False):
    """``np.linalg.norm`` with every ``ord`` NumPy takes (module doc)."""
    v = arr(x)
    ord_ = _order(ord)
    pair = _matrix_axes(v, axis) if ord_ is not None or axis is not None else None
    if pair is None:             # a vector norm (ord nil, axis nil: of all elements)
        one = None if axis is None else int(np.ravel(axis)[0]) % v.ndim
        r = expand_reduced(out, v, one, keepdims)
        ct_kept = expand_reduced(ct, v, one, keepdims)
        return (ct_kept * _vector_gradient(v, r, one, ord_),)
    moved = np.moveaxis(v, pair, (-2, -1))
    rest = np.asarray(out) if not to_bool(keepdims) else np.squeeze(np.asarray(out), pair)
    ct_rest = np.asarray(ct) if not to_bool(keepdims) else np.squeeze(np.asarray(ct), pair)
    grad = _matrix_gradient(moved, rest[..., None, None], ord_) * ct_rest[..., None, None]
    return (np.moveaxis(grad, (-2, -1), pair),)


@VJP.register("norm")
def original_norm_vjp(ct, out, x, ord=None, axis=None, keepdims=False):
    """The original's norm: a vector's norm of every ``ord`` it takes (nil, an int,
    ``inf``, ``-inf``) and a matrix's (element-wise) Frobenius norm."""
    v = arr(x)
    ord_ = _order(ord)
    r = np.asarray(out).reshape((1,) * v.ndim)
    ct = np.asarray(ct).reshape((1,) * v.ndim)
    if v.ndim == 2:              # nil, "fro" and 2 are all element-wise here
        return (ct * _divided(v, r),)
    return (ct * _vector_gradient(v, r, None, ord_),)
