"""VJP rules of reductions and scans: sum, mean, prod, amax/amin, var/std, logsumexp,
cumsum/cumprod, diff, trace, normalize (the norms are in :mod:`.rules_norms`).

A reduction's cotangent is put back on the reduced axes (as length 1 when ``keepdims``
was not given) and broadcast over the operand.
"""
from __future__ import annotations

import numpy as np

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


@VJP.register("__masked_mean")
def masked_mean_vjp(ct, out, a, where, axis=None, keepdims=None, dtype=None):
    """``ct / count`` on the selected elements, zero on the others (NumPy's where=)."""
    x = arr(a)
    mask = np.broadcast_to(np.asarray(where), x.shape)
    count = np.sum(mask, axis=reduced_axes(axis, x.ndim), keepdims=True)
    spread = broadcast_reduced(ct, a, axis, keepdims)
    scaled = (spread / np.maximum(count, 1)).astype(spread.dtype, copy=False)
    return np.where(mask, scaled, spread.dtype.type(0)), None


@VJP.register("nansum")
def nansum_vjp(ct, out, a, axis=None, dtype=None, keepdims=False):
    """``sum``'s, zero at the NaNs (they count as 0: JAX's ``nansum``)."""
    spread = broadcast_reduced(ct, a, axis, keepdims)
    return (np.where(np.isnan(arr(a)), spread.dtype.type(0), spread),)


@VJP.register("nanmean")
def nanmean_vjp(ct, out, a, axis=None, dtype=None, keepdims=False):
    """``ct / count`` of the non-NaN elements, zero at the NaNs (JAX's ``nanmean``)."""
    x = arr(a)
    kept = ~np.isnan(x)
    count = np.sum(kept, axis=reduced_axes(axis, x.ndim), keepdims=True)
    spread = broadcast_reduced(ct, a, axis, keepdims)
    scaled = (spread / np.maximum(count, 1)).astype(spread.dtype, copy=False)
    return (np.where(kept, scaled, spread.dtype.type(0)),)


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


# nanmax(a, axis, keepdims) has amax's first slots; a NaN never equals the result
VJP.register("amax", "amin", "nanmax", "nanmin")(_extreme_vjp)


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
    """d out_k / d x_i is the product of x_0..x_k without x_i (k >= i).  Before a line's
    first zero that is out_k / x_i; at the first zero z, the running product with x_z
    left out; after it every such product holds x_z, so 0 (as JAX; until ad50 a zero
    operand was an error)."""
    ax = _scan_axis(a, axis)
    x = arr(a)
    shape = x.shape
    x = x.reshape(-1) if ax is None else np.moveaxis(x, ax, -1)
    ct = np.asarray(ct).reshape(x.shape) if ax is None else np.moveaxis(np.asarray(ct), ax, -1)
    out = np.asarray(out).reshape(x.shape) if ax is None else np.moveaxis(np.asarray(out),
                                                                           ax, -1)
    position = np.arange(x.shape[-1])
    zero = x == 0
    first_zero = np.where(zero.any(-1), zero.argmax(-1), x.shape[-1])[..., None]
    before = position < first_zero
    g = np.where(before, _suffix_sums(ct * out) / np.where(before, x, 1), 0)
    at_zero = position == first_zero
    if np.any(at_zero):
        without_zero = np.cumprod(np.where(at_zero, 1, x), axis=-1)
        g = g + np.where(at_zero, _suffix_sums(ct * without_zero), 0)
    g = g.astype(np.result_type(x.dtype, ct.dtype), copy=False)
    return (g.reshape(shape) if ax is None else np.moveaxis(g, -1, ax),)


@VJP.register("diff")
def diff_vjp(ct, out, a, n=1, axis=-1, prepend=None, append=None):
    """Each difference out[i] = v[i + 1] - v[i] sends ct[i] to v[i + 1] and -ct[i] to v[i];
    ``n`` of them undone in turn, then the joined ``prepend``/``append`` parts cut off
    (they get their own cotangents: NumPy broadcast a number, the engine sums it back)."""
    x = arr(a)
    ax = int(axis) % x.ndim
    g = np.asarray(ct)
    pad = [(0, 0)] * x.ndim
    for _ in range(int(n)):
        pad[ax] = (1, 0)
        moved_up = np.pad(g, pad)
        pad[ax] = (0, 1)
        g = moved_up - np.pad(g, pad)
    before = 0 if prepend is None else np.shape(np.asarray(prepend))[ax] \
        if np.ndim(prepend) == x.ndim else 1
    length = x.shape[ax]
    parts = np.split(g, [before, before + length], axis=ax)
    return (parts[1], None, None, None if prepend is None else parts[0],
            None if append is None else parts[2])


def _suffix_sums(v):
    """sum_{k >= i} v_k along the last axis."""
    return np.flip(np.cumsum(np.flip(v, -1), axis=-1), -1)


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
