"""VJP rules of reductions and scans: sum, mean, prod, amax/amin, var/std, logsumexp,
cumsum/cumprod, trace, normalize (the norms are in :mod:`.rules_norms`).

A reduction's cotangent is put back on the reduced axes (as length 1 when ``keepdims``
was not given) and broadcast over the operand.
"""
from __future__ import annotations

import numpy as np

from ..errors import PhylanxValueError
from .rule_helpers import arr, broadcast_reduced, count_reduced, expand_reduced, reduced_axes
from .table import VJP


@VJP.register("sum")
def sum_vjp(ct, out, a, axis=None, keepdims=None, initial=None, dtype=None):
    return (broadcast_reduced(ct, a, axis, keepdims), None, None,
            None if initial is None else ct)


@VJP.register("mean")
def mean_vjp(ct, out, a, axis=None, keepdims=None, dummy=None, dtype=None):
    # the reduced cotangent divided, then broadcast (a view): dividing the broadcast one
    # made and wrote an operand-sized array (a pass over Conv1D's activations), the
    # same values
    scaled = np.asarray(ct) / max(count_reduced(a, axis), 1)
    return (broadcast_reduced(scaled, a, axis, keepdims),)


def _products_of_others(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """For every element, the product of the other elements of its reduction (exact with
    zeros: exclusive products from the left and from the right)."""
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(x, rest + list(axes))
    flat = moved.reshape(moved.shape[:len(rest)] + (-1,))
    ones = np.ones(flat.shape[:-1] + (1,), flat.dtype)
    left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    others = (left * right).reshape(moved.shape)
    return np.transpose(others, np.argsort(rest + list(axes)))


@VJP.register("prod")
def prod_vjp(ct, out, a, axis=None, keepdims=None, initial=None, dtype=None):
    x = arr(a)
    axes = reduced_axes(axis, x.ndim)
    others = _products_of_others(x, axes) if x.ndim else np.ones_like(x)
    if initial is not None:
        others = others * initial
    ct = expand_reduced(ct, x, axis, keepdims)
    initial_ct = None if initial is None else np.asarray(ct) * np.asarray(out) / initial
    return ct * others, None, None, initial_ct


def _extreme_vjp(ct, out, a, axis=None, keepdims=None, initial=None, dtype=None):
    """The cotangent goes to the elements equal to their reduction's result, shared
    equally between ties (as JAX: ``ct * hit / count``).

    Why this form: the tie count is a reduction over the reduced axes (for global max
    pooling, over the middle axis of a Conv1D's activations: a slow strided pass), needed
    only when some reduction has ties.  With no ``initial`` and no NaN result, every
    reduction has at least one hit, so the number of hits equals the number of results
    exactly when none has a tie: one ``count_nonzero`` of the whole mask (a fast pass)
    decides, and the common case is one product of the cotangent with the boolean mask
    (three operand-sized passes fewer than the float shares it computed before).
    """
    x = arr(a)
    hits = x == expand_reduced(out, x, axis, keepdims)
    ct = expand_reduced(ct, x, axis, keepdims)
    dtype = np.result_type(ct, x)            # float32 stays float32
    result = np.asarray(out)
    untied = (initial is None and np.count_nonzero(hits) == result.size
              and not np.isnan(result).any())
    if not untied:
        count = np.sum(hits, axis=reduced_axes(axis, x.ndim) or None, keepdims=True,
                       dtype=np.intp)
        ct = ct / np.maximum(count, 1).astype(dtype)   # no hit (NaN, ``initial``): 0
    return (np.multiply(ct, hits, dtype=dtype),)


VJP.register("amax", "amin")(_extreme_vjp)


@VJP.register("var")
def var_vjp(ct, out, a, axis=None, keepdims=None, dummy=None, dtype=None, ddof=0):
    x = arr(a)
    axes = reduced_axes(axis, x.ndim) or None
    centred = x - np.mean(x, axis=axes, keepdims=True)
    n = count_reduced(x, axis) - ddof
    return (expand_reduced(ct, x, axis, keepdims) * 2.0 * centred / n,)


@VJP.register("std")
def std_vjp(ct, out, a, axis=None, keepdims=None, dummy=None, dtype=None, ddof=0):
    x = arr(a)
    axes = reduced_axes(axis, x.ndim) or None
    centred = x - np.mean(x, axis=axes, keepdims=True)
    n = count_reduced(x, axis) - ddof
    sd = expand_reduced(out, x, axis, keepdims)
    return (expand_reduced(ct, x, axis, keepdims) * centred / (n * sd),)


@VJP.register("logsumexp")
def logsumexp_vjp(ct, out, a, axis=None, keepdims=None, dummy=None, dtype=None):
    x = arr(a)
    return (expand_reduced(ct, x, axis, keepdims) *
            np.exp(x - expand_reduced(out, x, axis, keepdims)),)


def _scan_axis(a, axis):
    return None if axis is None or np.ndim(a) == 0 else int(axis) % np.ndim(a)


@VJP.register("cumsum")
def cumsum_vjp(ct, out, a, axis=None, dtype=None):
    ax = _scan_axis(a, axis)
    ct = np.asarray(ct)
    if ax is None:                          # the flattened array was scanned
        return (np.cumsum(ct[::-1])[::-1].reshape(np.shape(a)),)
    return (np.flip(np.cumsum(np.flip(ct, ax), axis=ax), ax),)


@VJP.register("cumprod")
def cumprod_vjp(ct, out, a, axis=None, dtype=None):
    ax = _scan_axis(a, axis)
    x = arr(a)
    ct, out = np.asarray(ct), np.asarray(out)
    if ax is None:
        x, shape, ax = x.reshape(-1), x.shape, 0
    else:
        shape = None
    if np.any(x == 0):
        raise PhylanxValueError("the gradient of cumprod is only computed for operands "
                                "without zeros")
    g = np.flip(np.cumsum(np.flip(ct * out, ax), axis=ax), ax) / x
    return (g if shape is None else g.reshape(shape),)


@VJP.register("trace")
def trace_vjp(ct, out, a, dtype=None, offset=0):
    x = arr(a)
    eye = np.eye(x.shape[0], x.shape[1], int(offset), dtype=x.dtype).reshape(x.shape[:2] + (1,) *
                                                                (x.ndim - 2))
    return (eye * np.asarray(ct),)


@VJP.register("normalize")
def normalize_vjp(ct, out, a, dtype=None):
    x = arr(a)
    n = np.linalg.norm(x)
    u = np.asarray(out)
    ct = np.asarray(ct)
    return ((ct - u * np.sum(ct * u)) / n,)
