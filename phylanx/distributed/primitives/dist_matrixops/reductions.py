"""Reductions of tiled arrays: ``argmax_d``, ``argmin_d`` (reference §4.3) and our
``sum_d``, ``mean_d``, ``max_d``, ``min_d``.

Each locality reduces the cells it *owns* (``tiling.owned_cells``: overlapping
tiles count every element once) into an array of the result's global shape, the
partial results are all-gathered and combined in locality order, so every
locality gets the same, replicated result (a plain array or scalar), bit for bit.
Arg-extrema combine (value, global index) pairs the way NumPy breaks ties: the
first occurrence wins, and a NaN beats every number.  Empty tiles are allowed.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .... import distributed as api
from ....errors import PhylanxValueError
from ....primitives.dtypes import to_axis, to_bool
from ....primitives.registry import primitive
from ....values import scalarize
from ... import tiles, tiling
from ...darray import DistributedArray, as_tiled
from .._support import ORDERED, lockstep

_REPLICATED = {"no_oracle": "combines the tiles of all localities (tested under mpiexec)"}


def _cells(a: DistributedArray):
    """(owned global box, its block of the local tile) for every cell this rank owns."""
    rank = api.find_here()
    box = a.layout.boxes[rank]
    for cell in a.layout.owned[rank]:
        yield cell, a.local[tiling.to_local(cell, box)]


def _combine(parts: list, ufunc: np.ufunc) -> Any:
    out = parts[0]
    for p in parts[1:]:
        out = ufunc(out, p)
    return out


def _identity(op: str, dtype: np.dtype) -> Any:
    if op == "sum":
        return dtype.type(0)
    if dtype.kind == "b":
        return np.bool_(op == "min")
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min if op == "max" else info.max
    return dtype.type(-np.inf if op == "max" else np.inf)


def _reduce(a: Any, axis: Any, keepdims: Any, op: str) -> Any:
    a = as_tiled(a, "the argument")
    ax = to_axis(axis, a.ndim)
    ufunc = {"sum": np.add, "max": np.maximum, "min": np.minimum}[op]
    dtype = np.sum(np.zeros(0, a.dtype)).dtype if op == "sum" else a.dtype
    reduced = tuple(n for i, n in enumerate(a.shape) if i != ax) if ax is not None else ()
    if op != "sum" and (a.size == 0 if ax is None else a.shape[ax] == 0):
        raise PhylanxValueError(f"zero-size array to reduction operation {op}imum "
                                "which has no identity")
    partial = np.full(reduced, _identity(op, dtype), dtype)
    for cell, block in _cells(a):
        if ax is None:
            if block.size:
                partial = ufunc(partial, ufunc.reduce(block, axis=None).astype(dtype))
        else:
            where = tuple(slice(s, e) for i, (s, e) in enumerate(cell) if i != ax)
            if block.shape[ax]:
                partial[where] = ufunc(partial[where], ufunc.reduce(block, axis=ax))
    parts = tiles.all_gather(partial, final=True) if len(a.layout.boxes) > 1 else [partial]
    result = _combine(parts, ufunc)
    if to_bool(keepdims):
        result = np.expand_dims(result, tuple(range(a.ndim)) if ax is None else ax)
    return result


def _declare(name: str, op: str, doc: str):
    def impl(a, axis=None, keepdims=False):
        return scalarize(_reduce(a, axis, keepdims, op))
    impl.__name__ = name
    impl.__doc__ = doc
    # axis and keepdims shape the replicated answer: the ranks must pass the same
    impl = lockstep(impl, same_plain=True)
    primitive(name, f"{name}(_1, __arg(_2_axis, nil), __arg(_3_keepdims, false))",
              flags=ORDERED, takes_tiled=True, extension=True, **_REPLICATED,
              example=f'{name}(annotate_d([1, 4, 2], "r", list("tile", list("columns", 0, 3))))',
              result={"sum_d": "7", "max_d": "4", "min_d": "1"}[name])(impl)
    return impl


sum_d = _declare("sum_d", "sum", "Sum of a distributed array (all of it, or along ``axis``), "
                 "replicated on every locality.")
max_d = _declare("max_d", "max", "Maximum of a distributed array (all, or along ``axis``), "
                 "replicated on every locality.")
min_d = _declare("min_d", "min", "Minimum of a distributed array (all, or along ``axis``), "
                 "replicated on every locality.")


@primitive("mean_d", "mean_d(_1, __arg(_2_axis, nil), __arg(_3_keepdims, false))",
           flags=ORDERED, takes_tiled=True, extension=True, **_REPLICATED,
           example='mean_d(annotate_d([1, 4, 1], "m", list("tile", list("columns", 0, 3))))',
           result="2.0")
@lockstep(same_plain=True)
def mean_d(a, axis=None, keepdims=False):
    """Mean of a distributed array (all, or along ``axis``), replicated everywhere."""
    a = as_tiled(a, "the argument")
    ax = to_axis(axis, a.ndim)
    total = _reduce(a, axis, keepdims, "sum")
    count = a.size if ax is None else a.shape[ax]
    if total.dtype.kind not in "fc":
        total = total.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return scalarize(total / total.dtype.type(count) if count else total * np.nan)


def _better(value, index, best_value, best_index, op: str):
    """Element-wise: is (value, index) better than the best so far (NumPy's ties)?"""
    vnan, bnan = np.isnan(value) if value.dtype.kind in "fc" else False, \
        np.isnan(best_value) if best_value.dtype.kind in "fc" else False
    strictly = value > best_value if op == "max" else value < best_value
    equal = value == best_value
    empty = best_index < 0
    valid = index >= 0
    return valid & (empty | (vnan & ~bnan) | (~bnan & ~vnan & strictly)
                    | ((equal | (vnan & bnan)) & (index < best_index)))


def _arg(a: Any, axis: Any, op: str) -> Any:
    a = as_tiled(a, "the argument")
    ax = to_axis(axis, a.ndim)
    pick = np.argmax if op == "max" else np.argmin
    reduced = tuple(n for i, n in enumerate(a.shape) if i != ax) if ax is not None else ()
    if a.size == 0 or (ax is not None and a.shape[ax] == 0):
        raise PhylanxValueError(f"attempt to get arg{op} of an empty sequence")
    values = np.zeros(reduced, a.dtype)
    index = np.full(reduced, -1, np.int64)
    for cell, block in _cells(a):
        if block.size == 0:
            continue
        if ax is None:
            local = np.unravel_index(int(pick(block)), block.shape)
            where = tuple(s + i for (s, _), i in zip(cell, local))
            cand_v = np.asarray(block[local])
            cand_i = np.asarray(np.ravel_multi_index(where, a.shape))
            sub = ()
        else:
            cand_l = pick(block, axis=ax)
            cand_v = np.take_along_axis(block, np.expand_dims(cand_l, ax), ax).squeeze(ax)
            cand_i = cand_l.astype(np.int64) + cell[ax][0]
            sub = tuple(slice(s, e) for i, (s, e) in enumerate(cell) if i != ax)
        take = _better(cand_v, cand_i, values[sub], index[sub], op)
        values[sub] = np.where(take, cand_v, values[sub])
        index[sub] = np.where(take, cand_i, index[sub])
    parts = tiles.all_gather((values, index), final=True) if len(a.layout.boxes) > 1 \
        else [(values, index)]
    best_v, best_i = parts[0]
    for v, i in parts[1:]:
        take = _better(v, i, best_v, best_i, op)
        best_v, best_i = np.where(take, v, best_v), np.where(take, i, best_i)
    return scalarize(np.asarray(best_i, np.int64))


@primitive("argmax_d", "argmax_d(_1, _2)", "argmax_d(_1)", flags=ORDERED, takes_tiled=True,
           **_REPLICATED,
           example='argmax_d(annotate_d([1, 4, 2], "x", list("tile", list("columns", 0, 3))))',
           result="1")
@lockstep(same_plain=True)
def argmax_d(a, axis=None):
    """Global index of the maximum of a distributed array, replicated everywhere.

    Flat like numpy.argmax, or the global indices along ``axis``."""
    return _arg(a, axis, "max")


@primitive("argmin_d", "argmin_d(_1, _2)", "argmin_d(_1)", flags=ORDERED, takes_tiled=True,
           **_REPLICATED,
           example='argmin_d(annotate_d([3, 1, 2], "n", list("tile", list("columns", 0, 3))))',
           result="1")
@lockstep(same_plain=True)
def argmin_d(a, axis=None):
    """Global index of the minimum of a distributed array (flat), or along ``axis``."""
    return _arg(a, axis, "min")
