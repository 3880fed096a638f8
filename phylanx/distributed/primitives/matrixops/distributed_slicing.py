"""Global shape and slices of distributed arrays (reference §4.3): ``shape_d``,
``slice_row_d``, ``slice_column_d`` (also as ``store`` targets: ``store_slice``).

No communication: every locality knows every tile's box, so each computes the new
layout by itself.  (``shape`` of a distributed array is its global shape too;
``slice_row`` refuses one: the local view is explicit, ``local_tile``.)
"""
from __future__ import annotations

import numpy as np

from .... import distributed as api
from ....compiler import special_forms
from ....errors import PhylanxIndexError, PhylanxValueError
from ....primitives import indexing
from ....primitives.dtypes import to_int
from ....primitives.registry import primitive
from ... import view_copies
from ...darray import DistributedArray, as_tiled
from ...tiles import Layout
from .._support import ORDERED, lockstep

_LOCAL = {"no_oracle": "works on the tiles' layout (tested under mpiexec)"}


@primitive("shape_d", "shape_d(_1, _2)", "shape_d(_1)", flags=ORDERED, takes_tiled=True, **_LOCAL,
           example='shape_d(annotate_d([1, 2], "s", list("tile", list("columns", 0, 2))), 0)',
           result="2")
@lockstep(local=True)
def shape_d(a, dim=None):
    """The global shape of a distributed array, or its extent along ``dim``.

    (``shape`` gives the same, as a tuple of Python ints.)"""
    shape = as_tiled(a, "the argument").shape
    if dim is None:
        return [np.int64(n) for n in shape]
    d = to_int(dim, "dim")
    if not -len(shape) <= d < len(shape):
        raise PhylanxValueError(f"dim {d} is out of range for a {len(shape)}-d array")
    return np.int64(shape[d])


def _plan(a: DistributedArray, axis: int, indices: tuple, kind: str):
    """Where global ``indices`` along ``axis`` fall: the slice's layout, and the index
    of this locality's part of it in its tile (None if it holds none and the axis is
    dropped)."""
    if len(indices) != 1:
        raise PhylanxValueError(f"{kind} takes one index (an integer or list(start, stop"
                                f"[, step])), got {len(indices)}")
    index = indexing.to_index(indices[0])
    n = a.shape[axis]
    try:
        chosen = np.arange(n)[index]
    except IndexError as e:
        raise PhylanxIndexError(f"index {indices[0]!r} along an axis of {n}: {e}") from None
    drop = chosen.ndim == 0
    chosen = np.atleast_1d(chosen)
    if chosen.size > 1 and not (np.all(np.diff(chosen) > 0) or np.all(np.diff(chosen) < 0)):
        raise PhylanxValueError(f"{kind} needs indices in increasing or decreasing order")
    if drop and a.ndim == 1:
        raise PhylanxValueError(f"{kind} with one index of a vector gives a scalar; "
                                "use a range, list(i, i + 1)")
    boxes, mine = [], None
    rank = api.find_here()
    for r, box in enumerate(a.layout.boxes):
        start, stop = box[axis]
        held = np.nonzero((chosen >= start) & (chosen < stop))[0]
        k0, k1 = (int(held[0]), int(held[-1]) + 1) if held.size else (0, 0)
        if drop:
            new = box[:axis] + box[axis + 1:] if held.size else \
                tuple((0, 0) for _ in range(a.ndim - 1))
        else:
            new = box[:axis] + ((k0, k1),) + box[axis + 1:]
        boxes.append(new)
        if r == rank and (held.size or not drop):
            mine = [slice(None)] * a.ndim
            mine[axis] = int(chosen[0]) - start if drop else chosen[k0:k1] - start
            mine = tuple(mine)
    shape = a.shape[:axis] + ((len(chosen),) if not drop else ()) + a.shape[axis + 1:]
    key = a.layout.key1d
    if drop and len(shape) == 1:    # a row of a matrix is a row vector, a column a column
        key = "columns" if axis == 0 else "rows"
    return Layout(boxes, shape, key), mine


def _slice_axis(a: DistributedArray, axis: int, indices: tuple, kind: str) -> DistributedArray:
    """Select global indices along ``axis``; every tile keeps what it holds of them."""
    layout, mine = _plan(a, axis, indices, kind)
    local = a.local[mine] if mine is not None else np.zeros((0,) * (a.ndim - 1), a.dtype)
    return a.derive(local, layout, suffix="_sliced")


def store_slice(kind: str, a, indices: list, value) -> None:
    """``store(slice_row_d(a, i), value)`` / ``store(slice_column_d(a, j), value)``:
    each locality writes the part of its tile the global selection covers.

    ``value`` is a scalar or array broadcastable to the slice's global shape (every
    locality passes the same), or a distributed array of that shape: its tiles are
    used as they are if they are laid out like the slice, else it is gathered
    (every locality knows every layout, so all decide alike and gather together).
    Then the gathered copies standing for views of ``a`` take its new values, as after
    any store (``view_copies.py``; before dist50 they kept the old ones).
    """
    a = as_tiled(a, "the store target")
    _store_slice(kind, a, indices, value)
    view_copies.refresh(a)


def _store_slice(kind: str, a: DistributedArray, indices: list, value) -> None:
    axis = _row_axis(a.ndim) if kind == "slice_row_d" else a.ndim - 1
    layout, mine = _plan(a, axis, indices, kind)
    if isinstance(value, DistributedArray):
        if value.shape != layout.shape:
            raise PhylanxValueError(f"store into {kind}: the value's global shape "
                                    f"{value.shape} is not the slice's {layout.shape}")
        if [tuple(b) for b in value.layout.boxes] == [tuple(b) for b in layout.boxes]:
            if mine is not None:
                a.local[mine] = value.local
            return
        value = value.gather()
    try:
        whole = np.broadcast_to(np.asarray(value), layout.shape)
    except ValueError:
        raise PhylanxValueError(
            f"store into {kind}: a value of shape {np.shape(value)} does not broadcast to "
            f"the slice's global shape {layout.shape}") from None
    if mine is not None:
        box = layout.boxes[api.find_here()]
        a.local[mine] = whole[tuple(slice(s, e) for s, e in box)]


def _row_axis(ndim: int) -> int:
    return 0 if ndim <= 2 else ndim - 2


@primitive("slice_row_d", "slice_row_d(_1, __2)", flags=ORDERED, takes_tiled=True, **_LOCAL,
           example='shape_d(slice_row_d(constant_d(1, list(4, 3)), list(1, 3)))',
           result="list(2, 3)")
@lockstep(local=True)
def slice_row_d(a, *indices):
    """Rows of a distributed array selected with *global* indices.

    The index is an integer or ``list(start, stop[, step])``; each locality keeps
    the part of its tile in the selection, annotated as ``<name>_sliced``.
    (``slice_row`` refuses a distributed array; ``slice_row(local_tile(a), i)`` is the
    original's local selection.)"""
    a = as_tiled(a, "the argument")
    return _slice_axis(a, _row_axis(a.ndim), indices, "slice_row_d")


@primitive("slice_column_d", "slice_column_d(_1, __2)", flags=ORDERED, takes_tiled=True, **_LOCAL,
           example='shape_d(slice_column_d(constant_d(1, list(4, 3)), 1))', result="list(4)")
@lockstep(local=True)
def slice_column_d(a, *indices):
    """Columns (the last axis) of a distributed array selected with global indices."""
    a = as_tiled(a, "the argument")
    return _slice_axis(a, a.ndim - 1, indices, "slice_column_d")


# ``store(slice_row_d(a, i), v)``: the compiler's store special form calls store_slice
special_forms.SLICE_STORES.update(slice_row_d=store_slice, slice_column_d=store_slice)
