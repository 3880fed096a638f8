"""VJP rules of ``interp`` (piecewise-linear interpolation), ``average`` (weighted) and
NumPy's ``append`` (``__npappend``): kernel rules, first order only (no equation form
yet: nested differentiation through them is a located error).
"""
from __future__ import annotations

import numpy as np

from .rule_helpers import arr, expand_reduced, reduced_axes
from .table import VJP
from .tape import PhylanxGradientError


def _in_dtype_of(gradient, operand):
    """``gradient`` in ``operand``'s float dtype (float32 stays float32, as JAX): the
    rules compute in float64."""
    if gradient is None:
        return None
    dtype = np.asarray(operand).dtype
    return np.asarray(gradient).astype(dtype, copy=False) if dtype.kind == "f" else gradient


@VJP.register("interp")
def interp_vjp(ct, out, x, xp, fp, left=None, right=None, period=None):
    """JAX's ``interp`` derivative: the segment ``[xp[i-1], xp[i]]`` with ``i`` =
    ``clip(searchsorted(xp, x, "right"), 1, n - 1)`` (a point on a knot takes the
    segment to its right, the last knot the last segment); outside ``[xp[0], xp[-1]]``
    the value is ``left``/``right`` (default ``fp[0]``/``fp[-1]``), constant in ``x``."""
    if period is not None:
        raise PhylanxGradientError("cannot differentiate interp with period= (no rule "
                                   "for the periodic form yet)")
    points, knots, values = arr(x), arr(xp), arr(fp)
    ct = np.broadcast_to(np.asarray(ct, np.float64), points.shape)
    n = len(knots)
    if n < 2:
        raise PhylanxGradientError("cannot differentiate interp with fewer than 2 points")
    i = np.clip(np.searchsorted(knots, points, side="right"), 1, n - 1)
    width = knots[i] - knots[i - 1]
    slope = (values[i] - values[i - 1]) / width
    t = (points - knots[i - 1]) / width
    below, above = points < knots[0], points > knots[-1]
    inside = ~(below | above)
    d_x = np.where(inside, ct * slope, 0.0)
    d_fp = np.zeros(n)
    np.add.at(d_fp, i - 1, np.where(inside, ct * (1 - t), 0.0))
    np.add.at(d_fp, i, np.where(inside, ct * t, 0.0))
    d_xp = np.zeros(n)
    np.add.at(d_xp, i - 1, np.where(inside, ct * slope * (t - 1), 0.0))
    np.add.at(d_xp, i, np.where(inside, -ct * slope * t, 0.0))
    d_left = d_right = None
    if left is None:
        d_fp[0] += np.sum(ct[below])
    else:
        d_left = np.sum(ct[below])
    if right is None:
        d_fp[-1] += np.sum(ct[above])
    else:
        d_right = np.sum(ct[above])
    return (_in_dtype_of(d_x.reshape(np.shape(x)), x), _in_dtype_of(d_xp, xp),
            _in_dtype_of(d_fp, fp), _in_dtype_of(d_left, left),
            _in_dtype_of(d_right, right), None)


@VJP.register("average")
def average_vjp(ct, out, a, axis=None, weights=None, returned=False, keepdims=False):
    """``sum(a w) / sum(w)`` over ``axis`` (``w`` of ``a``'s shape, or 1-d along an
    integer ``axis``): d a = ct w / sum(w), d w = ct (a - average) / sum(w), plus the
    second result's cotangent (``returned``) on every weight."""
    x = arr(a)
    ct_avg, ct_sum = (ct if isinstance(ct, (list, tuple)) else (ct, None))[:2]
    avg = out[0] if isinstance(out, (list, tuple)) else out
    if ct_avg is None:
        ct_avg = np.zeros(np.shape(avg))
    axes = reduced_axes(axis, x.ndim)
    if weights is None:
        w = np.ones_like(x, dtype=np.float64)
    else:
        w = arr(weights)
        if w.shape != x.shape:
            if w.ndim != 1 or len(axes) != 1:
                raise PhylanxGradientError(
                    f"cannot differentiate average with weights of shape {w.shape} "
                    f"against an array of shape {x.shape}")
            w = w.reshape([-1 if k == axes[0] else 1 for k in range(x.ndim)])
    w_full = np.broadcast_to(w, x.shape)
    total = np.sum(w_full, axis=axes or None, keepdims=True)
    g = expand_reduced(ct_avg, x, axis, keepdims)
    d_a = np.broadcast_to(g * w_full / total, x.shape)
    if weights is None:
        return (_in_dtype_of(d_a, a),)
    d_w = g * (x - expand_reduced(avg, x, axis, keepdims)) / total
    if ct_sum is not None:
        d_w = d_w + expand_reduced(ct_sum, x, axis, keepdims)
    d_w = np.broadcast_to(d_w, x.shape)
    if np.shape(weights) != x.shape:
        others = tuple(k for k in range(x.ndim) if k != axes[0])
        d_w = np.sum(d_w, axis=others).reshape(np.shape(weights))
    return _in_dtype_of(d_a, a), None, _in_dtype_of(d_w, weights)


@VJP.register("__npappend")
def npappend_vjp(ct, out, array, values, axis=None):
    """``np.append``: the cotangent split where the values start (flat for axis nil)."""
    ct = np.asarray(ct)
    first = np.asarray(array)
    if axis is None:
        flat = ct.reshape(-1)
        return (flat[:first.size].reshape(first.shape),
                flat[first.size:].reshape(np.shape(values)))
    k = int(axis) % ct.ndim
    head, tail = np.split(ct, [first.shape[k]], axis=k)
    return head, tail.reshape(np.shape(values))
