"""Subscripts of tiled arrays with global indices: ``x[i, j]``, ``x[a:b:c]``, ``x[mask]``,
``x[[2, 0]]`` and stores into them (the ``DISTRIBUTION`` rules of ``__subscript`` and
``__pyindex``, the store hook, and ``DistributedArray.__getitem__``/``__setitem__``).

Indices are global and mean what NumPy says for the whole array; every rank checks
them against the global shape, so a bad index (out of range, a mask of another shape)
is NumPy's ``IndexError`` as a located ``PhylanxIndexError`` on every rank alike.  A
tiled index (a mask or an index array) is gathered first.  Two ways to the answer:

* **Separable** (ints, slices with any step, ``None``, ``...``, and at most one 1-d
  index array or mask whose positions are monotonic, with no int beside it): each
  rank takes the part of its tile the selection covers, and every rank computes every
  rank's box of the result from the layout it already holds: no message.  The result
  stays tiled when it keeps an axis the source is split along; otherwise (``x[0]`` of a
  row-tiled matrix: one rank's row) it is gathered, a plain value identical on every
  rank, read-only, standing for NumPy's view: changed in place (``y *= 2``) it writes
  back into ``x`` (:func:`_write_back`).  One element (``x[i, j]``) is sent by its
  owner to all: one small all_gather.
* **A mask of the array's shape** (plain, or tiled like the array), tiles of whole rows
  without overlap: each rank keeps its selected elements (C order keeps them
  together); only the counts travel (one small all_gather; none for a plain mask).
* **General** (index arrays in any order, several of them, other masks): every rank
  computes the global coordinates of the selection (through zero-stride coordinate
  views: memory of the result's size, not the array's), contributes the values of the
  cells it owns, and one all_gather assembles the result on every rank (bytes moved:
  the result, once per rank).  It stays tiled (row blocks, ``rows_of``) when its first
  index selects along the tiled first axis, else it is the plain value.

Stores (``x[i] = v``, ``x[mask] = v``, slices) write, on every rank, the part of the
selection its tile holds (each copy, where tiles overlap); a plain or scalar ``v`` is
broadcast against the selection's global shape, a tiled ``v`` is used tile by tile when
laid out like the selection, else gathered.  Nothing is sent unless ``v`` or the index
is tiled (a scalar stored under a mask of the array's shape tiled like it: nothing).
Augmented assignments (``x[k] += v``, ``x += v``) reach the same store through
``__inplace``'s rule (:func:`inplace_rule`).  After a store, every gathered copy
standing for a view takes its new values (``view_copies.py``: one all_gather, only
while such copies exist); a plain value or index stored is carried by ``x`` to its
next exchange, where ranks that stored different ones fail (``DistributedArray.plain``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .... import distributed as api
from ....compiler import special_forms
from ....errors import PhylanxError, PhylanxIndexError, PhylanxTypeError, PhylanxValueError
from ....primitives import indexing
from ....primitives.rules import DISTRIBUTION
from ....values import NEWAXIS, stands_for_view
from ... import tiles, tiling, view_copies
from ...agreement import agreed
from ...darray import DistributedArray, located_at, merged, plain_operands, refusal
from ...lockstep import label_of, operation, plain_operands_of_rule
from ...one_rank_errors import guarded
from ...tiles import Layout
from ._global_common import communicating, is_tiled, rows_of, whole


def _stand_in(a: DistributedArray) -> np.ndarray:
    return np.broadcast_to(np.zeros((), a.dtype), a.shape)


# -- index keys ----------------------------------------------------------------------
def physl_key(x: DistributedArray, indices: list) -> tuple:
    """The NumPy index of a ``__subscript``'s index arguments (PhySL's nil: a whole
    axis; a list: a range), tiled index arrays left in place."""
    plain = [i for i in indices if not is_tiled(i)]
    indexing.check_python_indices(_stand_in(x), plain)
    items = indexing.per_axis(list(indices))
    return tuple(i if is_tiled(i) else indexing.to_index(i) for i in items)


def python_key(x: DistributedArray, key: Any) -> tuple:
    """The NumPy index of a Python subscript ``x[key]`` (None: a new axis; a list: an
    index array); a float index is NumPy's IndexError."""
    items = key if type(key) is tuple else (key,)
    indexing.check_python_indices(_stand_in(x), [i for i in items if type(i) is not slice
                                                 and not is_tiled(i)])
    out = []
    for i in items:
        if i is None or i is Ellipsis or type(i) is slice or is_tiled(i):
            out.append(i)
        elif type(i) is list:
            out.append(indexing.advanced(i))
        else:
            out.append(indexing.to_index(i))
    return tuple(out)


def _checked(x: DistributedArray, key: tuple) -> np.ndarray:
    """NumPy's answer for the shape (a zero-stride stand-in indexed by ``key``): its
    IndexError, the same on every rank, as a PhylanxIndexError."""
    try:
        return _stand_in(x)[key]
    except IndexError as e:
        raise PhylanxIndexError(f"{e} (global shape {x.shape})") from None


def _has_ellipsis(key: tuple) -> bool:
    return any(k is Ellipsis for k in key)     # (``in`` would compare arrays)


def _components(key: tuple, shape: tuple[int, ...]) -> list[tuple] | None:
    """The key as one entry per source axis plus new axes, if separable (module doc):
    ``("new",)``, ``("int", axis, i)``, ``("sel", axis, positions, step)`` (step None for
    an index array, whose positions are an array; a slice's are a ``range``); None for
    the general path."""
    key = tuple(NEWAXIS if k is None else k for k in key)
    arrays = [k for k in key if isinstance(k, np.ndarray)]
    ints = [k for k in key if type(k) is int]
    if len(arrays) > 1 or (arrays and (arrays[0].ndim != 1 or ints)) or \
            any(type(k) is bool for k in key):
        return None
    real = sum(1 for k in key if k is not NEWAXIS and k is not Ellipsis)
    if _has_ellipsis(key):
        at = next(i for i, k in enumerate(key) if k is Ellipsis)
        key = key[:at] + (slice(None),) * (len(shape) - real) + key[at + 1:]
    else:
        key = key + (slice(None),) * (len(shape) - real)
    out, axis = [], 0
    for k in key:
        if k is NEWAXIS:
            out.append(("new",))
            continue
        n = shape[axis]
        if type(k) is int:
            out.append(("int", axis, k % n))
        elif type(k) is slice:
            out.append(("sel", axis, range(n)[k], k.step or 1))   # (O(1), not n positions)
        else:
            positions = np.nonzero(k)[0] if k.dtype == np.bool_ else np.arange(n)[k]
            steps = np.diff(positions)
            if not (np.all(steps >= 0) or np.all(steps <= 0)):
                return None
            out.append(("sel", axis, positions, None))
        axis += 1
    return out


def _held(r: range, start: int, stop: int) -> tuple[int, int]:
    """``[k0, k1)``: the items of a slice's positions ``r`` inside ``[start, stop)``
    (monotonic, so contiguous), by arithmetic (empty when ``k0 >= k1``)."""
    s = r.step
    if s > 0:
        return (max(0, -(-(start - r.start) // s)),
                min(len(r), max(0, -(-(stop - r.start) // s))))
    return (max(0, (r.start - stop) // -s + 1),
            min(len(r), max(0, (r.start - start) // -s + 1)))


class _Plan:
    """A separable selection: every rank's box of the result, this rank's index into
    its tile (None if it holds nothing), and the source axis of each result axis."""

    def __init__(self, x: DistributedArray, comps: list[tuple], shape: tuple[int, ...]):
        self.shape = shape
        self.sources = [c[1] if c[0] == "sel" else None for c in comps if c[0] != "int"]
        rank, self.boxes, self.mine, self.holders = api.find_here(), [], None, []
        empty = tuple((0, 0) for _ in shape)
        for r, box in enumerate(x.layout.boxes):
            result_box, local = self._part(box, comps)
            if result_box is None or tiling.is_empty(result_box):
                self.boxes.append(empty)
                continue
            self.boxes.append(result_box)
            self.holders.append(r)
            if r == rank:
                self.mine = local

    @staticmethod
    def _part(box: tiling.Box, comps: list[tuple]) -> tuple:
        if tiling.is_empty(box):
            return None, None
        result_box, local = [], []
        for c in comps:
            if c[0] == "new":
                result_box.append((0, 1))
                local.append(None)
                continue
            start, stop = box[c[1]]
            if c[0] == "int":
                if not start <= c[2] < stop:
                    return None, None
                local.append(c[2] - start)
                continue
            positions, step = c[2], c[3]
            if step is None:
                held = np.nonzero((positions >= start) & (positions < stop))[0]
                if held.size == 0:
                    return None, None
                k0, k1 = int(held[0]), int(held[-1]) + 1
                result_box.append((k0, k1))
                local.append(positions[k0:k1] - start)
                continue
            k0, k1 = _held(positions, start, stop)
            if k0 >= k1:
                return None, None
            result_box.append((k0, k1))
            end = positions[k1 - 1] - start + step
            local.append(slice(positions[k0] - start, None if end < 0 else end, step))
        return tuple(result_box), tuple(local)

    def layout(self, x: DistributedArray) -> Layout:
        key1d = None
        if len(self.shape) == 1:
            key1d = x.layout.key1d if x.ndim == 1 else \
                "rows" if (x.ndim == 2 and self.sources[0] == 0) else "columns"
        return Layout(self.boxes, self.shape, key1d)

    def stays_tiled(self, x: DistributedArray) -> bool:
        split = x.layout.split_axes()
        return 1 <= len(self.shape) <= 3 and any(s in split for s in self.sources)

    def local_part(self, x: DistributedArray) -> np.ndarray:
        if self.mine is None:
            return np.zeros((0,) * len(self.shape), x.dtype)
        return x.local[self.mine]


def _coordinates(shape: tuple[int, ...], key: tuple) -> list[np.ndarray]:
    """Per source axis, the global coordinate of every selected element (result shape),
    from zero-stride views of ``arange``: no memory of the source's size."""
    out = []
    for axis, n in enumerate(shape):
        along = [1] * len(shape)
        along[axis] = n
        grid = np.broadcast_to(np.arange(n, dtype=np.intp).reshape(along), shape)
        out.append(np.asarray(grid[key]).reshape(-1))
    return out


def _inside(coords: list[np.ndarray], box: tiling.Box) -> np.ndarray:
    inside = np.ones(coords[0].shape, bool) if coords else np.ones((), bool)
    for c, (s, e) in zip(coords, box):
        inside &= (c >= s) & (c < e)
    return inside


# -- reading -------------------------------------------------------------------------
def _full_mask(x: DistributedArray, key: tuple) -> Any:
    """The mask of ``x[mask]`` if it has ``x``'s shape and, tiled, its layout: this
    rank's part of it is the part facing its tile (None otherwise)."""
    if len(key) != 1:
        return None
    m = key[0]
    if is_tiled(m):
        return m if m.dtype == np.bool_ and m.layout == x.layout else None
    if isinstance(m, np.ndarray) and m.dtype == np.bool_ and m.shape == x.shape:
        return m
    return None


def _row_mask(x: DistributedArray, key: tuple) -> Any:
    """The mask of ``x[mask]`` when ``x`` has two axes or three in whole-row tiles split
    by rows alone and ``mask`` is a tiled 1-d boolean array whose tiles face ``x``'s
    rows (``points[labels == j]``, ``labels`` computed from ``points``' rows): each
    rank's part of the selection is in its own tile (None otherwise)."""
    if len(key) != 1 or not is_tiled(key[0]) or x.ndim < 2:
        return None
    m = key[0]
    if m.dtype != np.bool_ or m.ndim != 1 or m.shape[0] != x.shape[0] \
            or x.layout.split_axes() != [0] or not _whole_rows(x):
        return None
    if any(_rows_held(mb) != _rows_held(xb) for mb, xb in zip(m.layout.boxes, x.layout.boxes)) \
            or len(m.layout.boxes) != len(x.layout.boxes) or not _whole_rows(m):
        return None
    return m


def _rows_held(box: tiling.Box) -> tiling.Span | None:
    """The rows a tile holds; None for an empty tile, however its box is written
    (``tiling.py``: a mask's and its array's empty tiles may be written apart)."""
    return None if tiling.is_empty(box) else box[0]


def _masked_row_blocks(x: DistributedArray, mask: DistributedArray, label: str) -> Any:
    """``x[mask]`` of a row mask tiled like ``x``'s rows (:func:`_row_mask`): each rank
    keeps its selected rows; only the counts travel (one small all_gather), where the
    general path gathers the mask.  The result's boxes are those the separable path
    gives (an empty part: an empty box); nothing selected: NumPy's empty array."""
    mine = x.local[mask.local]
    with operation(label):
        counts = [int(c) for c in tiles.all_gather(np.int64(mine.shape[0]), final=True)]
    boxes = x.layout.boxes
    shape = (sum(counts), *x.shape[1:])
    if shape[0] == 0:
        return np.zeros(shape, x.dtype)
    spans, offset = [None] * len(boxes), 0
    for r in sorted(range(len(boxes)), key=lambda r: (boxes[r][0][0], r)):
        spans[r] = ((offset, offset + counts[r]), *((0, n) for n in shape[1:])) \
            if counts[r] else tuple((0, 0) for _ in shape)
        offset += counts[r]
    return x.derive(mine, Layout(spans, shape), suffix="_sliced", new_memory=True)


def _mask_part(mask: Any, box: tiling.Box) -> np.ndarray:
    return mask.local if is_tiled(mask) else mask[tuple(slice(s, e) for s, e in box)]


def _whole_rows(x: DistributedArray) -> bool:
    """Tiles of whole rows that do not overlap: C order keeps each rank's elements
    together, in the order of the tiles' first rows."""
    if set(x.layout.split_axes()) - {0}:
        return False
    return all(tiling.is_empty(b) or cells == [b] for b, cells in
               zip(x.layout.boxes, x.layout.owned))


def _masked_rows(x: DistributedArray, mask: Any, label: str) -> Any:
    """``x[mask]`` of whole-row tiles: each rank keeps its selected elements; only the
    counts travel (none for a plain mask, which every rank can count)."""
    boxes = x.layout.boxes
    mine = x.local[_mask_part(mask, x.box)]
    if is_tiled(mask):
        with operation(label):
            counts = [int(c) for c in tiles.all_gather(np.int64(mine.size), final=True)]
    else:
        counts = [0 if tiling.is_empty(b) else int(np.count_nonzero(_mask_part(mask, b)))
                  for b in boxes]
    spans, offset = [None] * len(boxes), 0
    for r in sorted(range(len(boxes)), key=lambda r: (boxes[r][0][0], r)):
        spans[r] = ((offset, offset + counts[r]),)
        offset += counts[r]
    if offset == 0:
        return np.zeros(0, x.dtype)
    return x.derive(mine, Layout(spans, (offset,)), suffix="_sliced", new_memory=True)


def read(x: DistributedArray, key: tuple) -> Any:
    """``x[key]``, the global answer (module doc); collective unless no rank sends."""
    label = label_of("__subscript", (x, *key))
    mask = _full_mask(x, key)
    if mask is not None and 0 in x.layout.split_axes() and _whole_rows(x):
        return _masked_rows(x, mask, label)
    rows = _row_mask(x, key)
    if rows is not None:
        return _masked_row_blocks(x, rows, label)
    if any(is_tiled(k) for k in key):
        with operation(label):
            return _read(x, tuple(whole(k) for k in key), label)
    return _read(x, key, label)


def _read(x: DistributedArray, key: tuple, label: str) -> Any:
    probe = _checked(x, key)
    if probe.size == 0:     # nothing selected: the same empty array everywhere
        return np.zeros(probe.shape, x.dtype)
    comps = _components(key, x.shape)
    if comps is None:
        return _gathered_selection(x, key, probe, label)
    plan = _Plan(x, comps, probe.shape)
    if probe.ndim == 0:
        # one element: its first holder sends it to all
        # (every rank sends an array of x's dtype: the owner's holds the element)
        owner = plan.holders[0]
        mine = np.atleast_1d(x.local[plan.mine]) if plan.mine is not None else \
            np.zeros(0, x.dtype)
        with operation(label):
            value = tiles.all_gather(mine, final=True)[owner][0]
        if not _has_ellipsis(key):
            return value
        # ``x[i, ...]``: NumPy's 0-d view, which ``s *= 2`` changes in place (ip46): a
        # copy standing for it writes back into x, as a gathered row does below
        return stands_for_view(np.asarray(value),
                               lambda old, new: _write_back(x, key, old, new, label))
    result = x.derive(plan.local_part(x), plan.layout(x), suffix="_sliced")
    if plan.stays_tiled(x):
        return result
    with operation(label):
        if any(c[0] == "sel" and c[3] is None for c in comps):
            # an index array: NumPy's answer is a copy too, not a view
            return tiles.gather(result.local, result.layout, final=True)
        # NumPy gives a view here: a change in place of the copy reaches x (``y = x[2];
        # y *= 2``), any other write into it is NumPy's read-only error (values.py), and
        # a store into x reaches the copy (view_copies.py: result's tiles are views of
        # x's, result has x's storage)
        copy = view_copies.gathered_copy(result)
    return stands_for_view(copy, lambda old, new: _write_back(x, key, old, new, label))


def _write_back(x: DistributedArray, key: tuple, old: np.ndarray, new: np.ndarray,
                label: str) -> None:
    """A copy standing for the view ``x[key]`` changed in place from ``old`` to ``new``:
    ``x[key] = new``, unless ``x`` changed there since the copy was taken (NumPy's view
    would have seen that change, the copy did not: its new value is not NumPy's).  Each
    rank compares the cells it holds; with several ranks one small all_gather makes it
    the same answer (and error) on every rank."""
    plan = _Plan(x, _components(key, x.shape), old.shape)
    changed = False
    if plan.mine is not None:
        part = tuple(slice(s, e) for s, e in plan.boxes[api.find_here()])
        changed = not np.array_equal(x.local[plan.mine], old[part],
                                     equal_nan=old.dtype.kind in "fc")
    if api.num_localities() > 1:
        with operation(label + "/write_back"):
            changed = any(bool(c) for c in tiles.all_gather(np.bool_(changed), final=True))
    if changed:
        raise agreed(PhylanxValueError(
                f"the distributed array '{x.name}' changed since a selection of it was "
                f"gathered into a copy (where NumPy gives a view): the copy's change in "
                f"place would not be NumPy's; change the array itself (x[2] *= 2, not "
                f"y = x[2]; ...; y *= 2)"))
    write(x, key, new)


def _gathered_selection(x: DistributedArray, key: tuple, probe: np.ndarray,
                        label: str) -> Any:
    """The general path: every rank sends the selected values of the cells it owns."""
    rank = api.find_here()
    coords = _coordinates(x.shape, key)
    box = x.box
    positions, values = [], []
    for cell in x.layout.owned[rank]:
        where = np.nonzero(_inside(coords, cell))[0]
        positions.append(where)
        values.append(x.local[tuple(c[where] - s for c, (s, _) in zip(coords, box))])
    mine = (np.concatenate(positions) if positions else np.zeros(0, np.intp),
            np.concatenate(values) if values else np.zeros(0, x.dtype))
    with operation(label):
        parts = tiles.all_gather(mine, final=True)
    out = np.empty(probe.size, x.dtype)
    for where, got in parts:
        out[where] = got
    out = out.reshape(probe.shape)
    if out.ndim == 0:
        return out if _has_ellipsis(key) else out[()]
    first = key[0]
    along_rows = not (first is None or first is NEWAXIS or first is Ellipsis or
                      type(first) in (int, bool)) and 0 in x.layout.split_axes()
    if along_rows and 1 <= out.ndim <= 3:
        return rows_of(out, x)
    return out


# -- storing -------------------------------------------------------------------------
def write(x: DistributedArray, key: tuple, value: Any, where: Any = None) -> None:
    """``x[key] = value`` with global indices (module doc); then every gathered copy
    standing for a view takes its new values (``view_copies.py``).  ``where``: the
    store's source location, which names its operands if the ranks' differ."""
    store(x, key, value, where)
    view_copies.refresh(x)


def store(x: DistributedArray, key: tuple, value: Any, where: Any = None) -> None:
    """:func:`write` without the refresh of the copies (each rank writes its tiles)."""
    plain = plain_operands((value, *key), f"a store into '{x.name}'", where)
    # each rank stores its own: a value (or index) that differs between ranks is found
    # at x's next exchange (x carries its digest), or at this store's own
    with plain_operands_of_rule(plain):
        _store(x, key, value)
    # a tiled value (or index) computed tile by tile from plain operands carries their
    # digests (``x += w``: ``x + w`` sent nothing); stored into x, x carries them on
    carried = tuple(p for v in (value, *key) if type(v) is DistributedArray for p in v.plain)
    if plain or carried:
        x.plain = merged(x.plain, plain + carried)


def _store(x: DistributedArray, key: tuple, value: Any) -> None:
    mask = _full_mask(x, key)
    if mask is not None and np.ndim(value) == 0 and not is_tiled(value):
        # one value where the mask holds: each rank writes its tile (every copy)
        if not tiling.is_empty(x.box):
            x.local[_mask_part(mask, x.box)] = value
        return
    label = label_of("store", (x, value, *key))
    aligned = _aligned_plan(x, key, value)
    if aligned is not None:
        # decided from the layouts every rank holds: each stores its own tile's part,
        # nothing is sent, so no end message either
        with operation(label, local=True):
            if aligned.mine is not None:
                x.local[aligned.mine] = value.local
        return
    sends = is_tiled(value) or any(is_tiled(k) for k in key)
    with operation(label, local=not sends):
        key = tuple(whole(k) for k in key)
        probe = _checked(x, key)
        if probe.size == 0:
            _fit(whole(value), probe.shape)     # NumPy's broadcast error all the same
            return
        comps = _components(key, x.shape)
        if comps is not None:
            plan = _Plan(x, comps, probe.shape)
            if is_tiled(value) and value.shape == probe.shape and \
                    value.layout.boxes == tuple(plan.boxes):
                if plan.mine is not None:
                    x.local[plan.mine] = value.local
                return
            given = _fit(whole(value), probe.shape)
            if plan.mine is not None:
                part = plan.boxes[api.find_here()]
                x.local[plan.mine] = given[tuple(slice(s, e) for s, e in part)]
            return
        given = _fit(whole(value), probe.shape).reshape(-1)
        coords = _coordinates(x.shape, key)
        box = x.box
        where = np.nonzero(_inside(coords, box))[0] if not tiling.is_empty(box) else []
        if len(where):
            x.local[tuple(c[where] - s for c, (s, _) in zip(coords, box))] = given[where]


def _aligned_plan(x: DistributedArray, key: tuple, value: Any) -> _Plan | None:
    """The plan of ``x[key] = value`` when ``value`` is tiled exactly as the separable
    selection (plain indices), else None (also for an index NumPy refuses: the
    general path raises it inside the store's operation, as before)."""
    if not is_tiled(value) or any(is_tiled(k) for k in key):
        return None
    try:
        probe = _checked(x, key)
    except PhylanxIndexError:
        return None
    comps = _components(key, x.shape) if probe.size else None
    if comps is None or value.shape != probe.shape:
        return None
    plan = _Plan(x, comps, probe.shape)
    return plan if value.layout.boxes == tuple(plan.boxes) else None


def _fit(value: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``value`` broadcast to the selection's shape, as NumPy's assignment does (leading
    length-1 axes of the value dropped); NumPy's error otherwise."""
    v = np.asarray(value)
    while v.ndim > len(shape) and v.shape[0] == 1:
        v = v[0]
    try:
        return np.broadcast_to(v, shape)
    except ValueError:
        raise PhylanxValueError(
            f"could not broadcast a value of shape {np.shape(value)} into the selection "
            f"of shape {shape}") from None


# -- the rules -----------------------------------------------------------------------
def subscript_rule(impl: Any, args: list) -> Any:
    """``__subscript(x, i...)`` with a tiled ``x`` (global indices) or a tiled index."""
    x, indices = args[0], args[1:]
    if not is_tiled(x):     # a plain array indexed by a tiled mask or index array
        with operation(label_of("__subscript", tuple(args))):
            return impl(x, *[whole(i) for i in indices])
    return read(x, physl_key(x, indices))


def pyindex_rule(impl: Any, args: list) -> Any:
    """``__pyindex(m)`` of a tiled ``m``: the array itself, for the subscript to read."""
    return args[0]


def store_rule(kind: str, container: DistributedArray, indices: list, value: Any,
               node: Any) -> None:
    """``store(__subscript(x, i...), v)`` into a tiled ``x``; an error on one rank only
    (a plain ``v`` whose shape differs there) is agreed first (``one_rank_errors.py``)."""
    if kind != "__subscript":
        raise refusal(kind, container)
    guarded(("store", node.loc), lambda e: located_at(node, e),
            store, container, physl_key(container, indices), value, node.loc)
    # (after the store's evaluation has ended: a rank that failed in it alone asks
    # the others how it ended, and they answer from here, not from a collective)
    try:
        view_copies.refresh(container)
    except PhylanxError as e:
        raise located_at(node, e) from None


def inplace_rule(impl: Any, args: list) -> Any:
    """``__inplace(target, value)`` with a tiled operand: what ``x[k] += v`` and
    ``x += v`` compile to (``store(x[k], __inplace(x[k], x[k] + v))``).  The target
    takes the value in place, as the kernel does for an array: a tiled target is
    stored into whole, ``target[...] = value`` (:func:`write`, the store any
    ``x[k] = x[k] + v`` takes: tile by tile when ``value`` is laid out like it, else
    gathered), a plain target takes the gathered value (the kernel).  The kernel's
    errors, from the global shapes and dtypes: the same on every rank."""
    target, value = args
    if not is_tiled(target):
        return impl(target, whole(value))
    if target is value:
        return target
    if tuple(np.shape(value)) != target.shape:
        raise PhylanxValueError(f"a result of shape {tuple(np.shape(value))} does not fit in "
                                f"place into an array of shape {target.shape}")
    if not np.can_cast(np.result_type(value), target.dtype, "same_kind"):
        raise PhylanxTypeError(f"cannot store a {np.result_type(value)} result in place "
                               f"into a {target.dtype} array; convert with .astype() first")
    write(target, (slice(None),) * target.ndim, value)
    return target


def update_rule(impl: Any, args: list) -> Any:
    """``__update(target, other, op)`` with a tiled operand (``x op= e`` outside loops,
    compiler/rewrite/updates.py): what it replaced, ``__inplace(target, target op
    other)``, the operator taken tile by tile as NumPy's operators on tiled arrays are
    (``DistributedArray.__array_ufunc__``), then :func:`inplace_rule`."""
    from ....primitives.frontend_support.python_builtins import UPDATE_OPERATORS, inplace
    target, other, op = args
    return inplace_rule(inplace, [target, UPDATE_OPERATORS[op](target, other)])


DISTRIBUTION.defrule("__subscript", subscript_rule)
DISTRIBUTION.defrule("__pyindex", pyindex_rule)
DISTRIBUTION.defrule("__inplace", inplace_rule)
DISTRIBUTION.defrule("__update", update_rule)
special_forms.KIND_STORES[DistributedArray] = store_rule
communicating("__subscript", "__inplace", "__update")
