"""Structure ops of tiled arrays with NumPy's global answer (``DISTRIBUTION`` rules):
``concatenate`` and the stacks, ``argmin``/``argmax``, ``where``/``nonzero``, ``cumsum``,
``sort``/``argsort``.

What each sends (n: the array's elements, p: localities, f: a tile's face across
the axis):

* ``concatenate(xs, axis)`` along an axis no tiled operand is split on, all tiled
  operands tiled alike elsewhere: each rank joins its tiles (plain operands give the
  part facing its tile): nothing sent.  Otherwise the result is kept in row blocks and
  each rank fetches from every tiled operand the block landing in its rows (remote
  reads: about n/p per rank); flattened (``axis`` nil), lists, or operands NumPy
  refuses: gather.  The stacks: **gather + re-tile** (every operand gathered, NumPy's
  answer, kept as row blocks when the first tiled operand is split by rows and the
  result leads with that axis): n per rank.
* ``argmin``/``argmax`` without axis: each rank's first extremum per owned cell and its
  global flat index, one all_gather of those pairs, then NumPy's rule on them in
  flat-index order (first occurrence, a NaN first): O(p) values.  Along an axis the
  array is not split on: local, the result tiled alike (nothing sent); along a split
  axis: gather + re-tile.
* ``where(c, x, y)``: element-wise, tile by tile (``darray.elementwise``); ``where(c)``
  and ``nonzero(c)``: ``c`` gathered, the global indices (plain, on every rank).
* ``cumsum`` along a split axis: the local cumsum plus, per rank, the sum of everything
  before its tile along the axis (an exclusive scan: every rank sends each rank the
  sums of its owned cells ahead of that rank's tile, one all_gather of p faces f);
  along other axes: local.  Without an axis: the same on the flattened array when the
  tiles are whole rows (C order keeps each rank's elements together), else gather.
  Floating sums are the same to rounding (the scan adds tile totals, not one by one).
* ``sort``/``argsort`` along an axis the array is not split on: local (indices along
  an unsplit axis are global).  Along the split axis or flattened: **gather + re-tile**
  (n per rank; the result keeps the source's layout when it has its shape).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .... import distributed as api
from ....primitives.dtypes import to_axis
from ....primitives.rules import DISTRIBUTION
from ....runtime import nodes
from ... import tiles, tiling
from ...darray import DistributedArray, elementwise
from ...lockstep import label_of, operation
from ...tiles import Layout
from ._global_common import can_tile, communicating, is_tiled, row_spans, rows_of, whole


def _tiled_in(args: list) -> DistributedArray:
    """The first tiled operand, also inside a list or tuple operand."""
    for a in args:
        if is_tiled(a):
            return a
        if type(a) in (list, tuple):
            for e in a:
                if is_tiled(e):
                    return e
    raise AssertionError("a rule was dispatched without a tiled operand")


def _gathered(name: str, impl: Any, args: list, leads_with_rows: Any) -> Any:
    """Gather + re-tile: NumPy's answer on the gathered operands, every rank alike;
    kept as row blocks if ``leads_with_rows(result)`` and the source is split by rows."""
    source = _tiled_in(args)
    with operation(label_of(name, (source,))):
        plain = [whole(a) for a in args]
    result = impl(*plain)
    if can_tile(result) and 0 in source.layout.split_axes() and leads_with_rows(result):
        if result.shape == source.shape:
            box = source.box
            return source.derive(result[tuple(slice(s, e) for s, e in box)].copy(),
                                  new_memory=True)
        return rows_of(result, source)
    return result


def _always(result: Any) -> bool:
    return True


def _drop_axis(layout: Layout, axis: int) -> Layout:
    # (an empty tile's box stays empty: dropping the axis it is empty along must not
    # make it claim the rest)
    boxes = [b[:axis] + b[axis + 1:] if not tiling.is_empty(b) else
             tuple((0, 0) for _ in b[1:]) for b in layout.boxes]
    shape = layout.shape[:axis] + layout.shape[axis + 1:]
    key = ("rows" if axis == 1 else "columns") if len(shape) == 1 else None
    return Layout(boxes, shape, key)


# -- concatenate and the stacks ---------------------------------------------------------
def concatenate_rule(impl: Any, args: list) -> Any:
    arrays, axis = args[0], (args[1] if len(args) > 1 else 0)
    local = _local_concatenation(impl, arrays, axis)
    if local is not None:
        return local
    fetched = _fetched_concatenation(impl, arrays, axis)
    if fetched is not None:
        return fetched
    return _gathered("concatenate", impl, list(args), _always)


def _fetched_concatenation(impl: Any, arrays: Any, axis: Any) -> DistributedArray | None:
    """Join into row blocks of the result: each rank fetches, from every tiled operand,
    the block that lands in its rows (plain operands: sliced), and joins them."""
    if type(arrays) not in (list, tuple) or axis is None or not all(
            is_tiled(a) or isinstance(a, np.ndarray) for a in arrays):
        return None
    first = _tiled_in([arrays])
    if any(a.ndim != first.ndim for a in arrays):
        return None
    ax = to_axis(axis, first.ndim)
    if any(a.shape[:ax] + a.shape[ax + 1:] != first.shape[:ax] + first.shape[ax + 1:]
           for a in arrays):
        return None     # NumPy's error, from the gathered operands
    shape = first.shape[:ax] + (sum(a.shape[ax] for a in arrays),) + first.shape[ax + 1:]
    count, rank = api.num_localities(), api.find_here()
    spans = row_spans(shape[0], count)
    start, stop = spans[rank]
    parts, offset = [], 0
    with operation(label_of("concatenate", tuple(arrays))):
        for a in arrays:
            # the rows of ``a`` that land in this rank's rows of the result
            lo, hi = (start - offset, stop - offset) if ax == 0 else (start, stop)
            lo, hi = max(lo, 0), min(hi, a.shape[0])
            box = ((lo, hi),) + tuple((0, n) for n in a.shape[1:])
            wanted = [box] if hi > lo else []
            if is_tiled(a):
                got = tiles.fetch(a.local, a.layout, wanted)
                parts.append(got[0] if got else None)
            else:
                parts.append(a[lo:hi] if hi > lo else None)
            offset += a.shape[ax]
    dtype = np.result_type(*[a.dtype for a in arrays])
    held = [p for p in parts if p is not None]
    mine = ((start, stop),) + tuple((0, n) for n in shape[1:])
    joined = impl(held, ax).astype(dtype, copy=False) if held else \
        np.zeros(tiling.box_shape(mine), dtype)
    boxes = [((s, e),) + tuple((0, n) for n in shape[1:]) for s, e in spans]
    return first.derive(joined, Layout(boxes, shape, first.layout.key1d))


def _local_concatenation(impl: Any, arrays: Any, axis: Any) -> DistributedArray | None:
    """Join the tiles, if no tiled operand is split along ``axis`` and all are tiled
    alike on the other axes (plain operands of the matching global extents)."""
    if type(arrays) not in (list, tuple) or axis is None:
        return None
    first = _tiled_in([arrays])
    tiled = [a for a in arrays if is_tiled(a)]
    if any(a.ndim != first.ndim for a in tiled) or not all(
            is_tiled(a) or (isinstance(a, np.ndarray) and a.ndim == first.ndim)
            for a in arrays):
        return None
    ax = to_axis(axis, first.ndim)

    def others(box: tiling.Box) -> tiling.Box:
        return box[:ax] + box[ax + 1:]
    faces = [others(b) for b in first.layout.boxes]
    if any(ax in a.layout.split_axes() or [others(b) for b in a.layout.boxes] != faces
           for a in tiled):
        return None
    if any(others(tuple((0, n) for n in a.shape)) != others(tuple((0, n) for n in first.shape))
           for a in arrays if not is_tiled(a)):
        return None
    box = first.box
    face = tuple(slice(s, e) for s, e in box)
    parts = []
    for a in arrays:
        if is_tiled(a):
            parts.append(a.local)
        else:
            parts.append(a[face[:ax] + (slice(None),) + face[ax + 1:]])
    joined = impl(parts, ax)
    total = sum(a.shape[ax] for a in arrays)
    # (an empty tile stays empty along every axis: it holds no part of the new axis)
    boxes = [b[:ax] + ((0, total),) + b[ax + 1:] if not tiling.is_empty(b) else
             tuple((0, 0) for _ in b) for b in first.layout.boxes]
    if tiling.is_empty(box):
        joined = np.zeros((0,) * first.ndim, joined.dtype)
    shape = first.shape[:ax] + (total,) + first.shape[ax + 1:]
    return first.derive(joined, Layout(boxes, shape, first.layout.key1d))


def stack_rule(impl: Any, args: list) -> Any:
    """``stack``: the new axis leads when ``axis`` is 0 (then the result is plain)."""
    axis = args[1] if len(args) > 1 and args[1] is not None else 0
    return _gathered("stack", impl, list(args), lambda r: to_axis(axis, r.ndim) != 0)


def vstack_rule(impl: Any, args: list) -> Any:
    """``vstack`` of vectors makes them rows (a new leading axis: plain)."""
    first = _tiled_in(args)
    return _gathered("vstack", impl, list(args), lambda r: first.ndim > 1)


def hstack_rule(impl: Any, args: list) -> Any:
    return _gathered("hstack", impl, list(args), _always)


# -- argmin, argmax --------------------------------------------------------------------
def arg_extremum(finder: Any) -> Any:
    def rule(impl: Any, args: list) -> Any:
        a = args[0]
        axis = args[1] if len(args) > 1 else None
        if not is_tiled(a) or a.size == 0:
            return impl(*whole_args(args))
        if axis is None:
            return _flat_extremum(a, finder)
        ax = to_axis(axis, a.ndim)
        if ax in a.layout.split_axes():
            return _gathered(finder.__name__, impl, list(args), lambda r: ax != 0)
        if a.ndim == 1:     # along the only axis: the flat index
            return _flat_extremum(a, finder)
        local = np.zeros((0,) * (a.ndim - 1), np.intp) if tiling.is_empty(a.box) \
            else finder(a.local, axis=ax)
        return a.derive(local, _drop_axis(a.layout, ax))
    rule.__name__ = finder.__name__ + "_rule"
    return rule


def whole_args(args: list) -> list:
    with operation(label_of("gather", tuple(args))):
        return [whole(a) for a in args]


def _flat_extremum(a: DistributedArray, finder: Any) -> np.int64:
    """The first extremum's global flat index (NumPy's rule, NaN first): every rank's
    first extremum per owned cell, then ``finder`` over them in flat-index order."""
    box = a.box
    values, flats = [], []
    for cell in a.layout.owned[api.find_here()]:
        part = a.local[tiling.to_local(cell, box)]
        k = int(finder(part))
        at = np.unravel_index(k, part.shape)
        values.append(part[at])
        flats.append(np.ravel_multi_index(tuple(int(i) + s for i, (s, _) in zip(at, cell)),
                                          a.shape))
    mine = (np.array(values, a.dtype), np.array(flats, np.int64))
    with operation(label_of(finder.__name__, (a,))):
        parts = tiles.all_gather(mine, final=True)
    all_values = np.concatenate([v for v, _ in parts])
    all_flats = np.concatenate([f for _, f in parts])
    order = np.argsort(all_flats, kind="stable")
    return np.int64(all_flats[order][finder(all_values[order])])


# -- where, nonzero --------------------------------------------------------------------
def where_rule(impl: Any, args: list) -> Any:
    """Three operands: element-wise; one: the global indices (gathered)."""
    if len(args) == 3:
        return elementwise(impl, args)
    return impl(*whole_args(args))


def nonzero_rule(impl: Any, args: list) -> Any:
    return impl(*whole_args(args))


# -- cumsum ----------------------------------------------------------------------------
def cumsum_rule(impl: Any, args: list) -> Any:
    a = args[0]
    axis = args[1] if len(args) > 1 else None
    dtype = args[2] if len(args) > 2 else None
    if not is_tiled(a):
        return impl(*whole_args(args))
    if axis is None and a.ndim > 1:
        if set(a.layout.split_axes()) - {0}:
            return _gathered("cumsum", impl, list(args), _always)
        return _scan(impl, _flattened(a), 0, dtype)
    ax = 0 if axis is None else to_axis(axis, a.ndim)
    if ax not in a.layout.split_axes():
        return a.derive(impl(a.local, ax, dtype))
    return _scan(impl, a, ax, dtype)


def _flattened(a: DistributedArray) -> DistributedArray:
    """A tiled array of whole rows as the tiled vector of its C-order elements."""
    rest = int(np.prod(a.shape[1:]))
    boxes = [((b[0][0] * rest, b[0][1] * rest),) if not tiling.is_empty(b) else ((0, 0),)
             for b in a.layout.boxes]
    return DistributedArray(a.local.reshape(-1), Layout(boxes, (a.size,)), a.name,
                            a.generation, a.storage)


def _scan(impl: Any, a: DistributedArray, ax: int, dtype: Any) -> DistributedArray:
    """``cumsum`` along the split axis ``ax``: local cumsum + exclusive scan."""
    rank, box = api.find_here(), a.box
    local = impl(a.local, ax, dtype)
    contributions = []
    for other in a.layout.boxes:
        face = tiling.box_shape(other[:ax] + other[ax + 1:])
        acc = np.zeros(face, local.dtype)
        start = other[ax][0]
        if not tiling.is_empty(other) and start > 0:
            ahead = other[:ax] + ((0, start),) + other[ax + 1:]
            for cell in a.layout.owned[rank]:
                part = tiling.intersect(cell, ahead)
                if part is None:
                    continue
                sums = a.local[tiling.to_local(part, box)].sum(axis=ax, dtype=local.dtype)
                where = tiling.to_local(part[:ax] + part[ax + 1:], other[:ax] + other[ax + 1:])
                acc[where] += sums
        contributions.append(acc)
    with operation(label_of("cumsum", (a,))):
        parts = tiles.all_gather(contributions, final=True)
    offset = np.zeros(tiling.box_shape(box[:ax] + box[ax + 1:]), local.dtype)
    for got in parts:
        offset = offset + got[rank]
    return a.derive(local + np.expand_dims(offset, ax))


# -- sort, argsort ---------------------------------------------------------------------
def sort_rule(impl: Any, args: list) -> Any:
    a = args[0]
    axis = args[1] if len(args) > 1 else -1
    if not is_tiled(a):
        return impl(*whole_args(args))
    if axis is None or to_axis(axis, a.ndim) in a.layout.split_axes():
        return _gathered("sort", impl, list(args), _always)
    return a.derive(impl(a.local, *args[1:]))


SEQUENCES = ("concatenate", "__npstack", "__npvstack", "__nphstack", "stack", "vstack",
             "hstack")
DISTRIBUTION.defrule("concatenate", concatenate_rule)
DISTRIBUTION.register("__npstack", "stack")(stack_rule)
DISTRIBUTION.register("__npvstack", "vstack")(vstack_rule)
DISTRIBUTION.register("__nphstack", "hstack")(hstack_rule)
DISTRIBUTION.defrule("argmax", arg_extremum(np.argmax))
DISTRIBUTION.defrule("argmin", arg_extremum(np.argmin))
DISTRIBUTION.register("where", "__npwhere")(where_rule)
DISTRIBUTION.defrule("nonzero", nonzero_rule)
DISTRIBUTION.defrule("cumsum", cumsum_rule)
DISTRIBUTION.register("sort", "argsort")(sort_rule)
nodes.SEQUENCE_OPERANDS.update(SEQUENCES)
communicating(*SEQUENCES, "argmax", "argmin", "where", "__npwhere", "nonzero", "cumsum",
              "sort", "argsort")
