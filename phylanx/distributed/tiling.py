"""Tiling arithmetic of distributed arrays (reference §4.2): pure functions, no communication.

A *box* is a tuple of half-open spans ``(start, stop)``, one per dimension, in axis
order.  A *layout* of an array over N localities is the tuple of the N boxes.

* :func:`tile_boxes` splits a global shape into ``numtiles`` boxes the way the
  original's ``tile_calculation_helper.hpp`` does (``sym``/``row``/``column``/``page``),
  with an optional overlap (``intersection``);
* :func:`check_layout` checks that boxes describe one array (union starting at 0, no
  gaps; overlaps allowed) and returns its global shape;
* :func:`owned_cells` splits a layout into disjoint boxes, each owned by one locality
  (the lowest whose box holds it), so that partial sums over overlapping tiles count
  every element once;
* :func:`intersect`, :func:`to_local`, :func:`box_shape`: span algebra.

**Empty tiles** (issue 28, user49).  A tile holding nothing has a box empty along some
axis, written one of two ways: ``annotate`` keeps the spans the user gave for the other
axes (rows (0, 0), columns (0, 5)); the rules that derive a layout (``v[:, None]``,
``concatenate``, slices, masks, ``_drop_axis``) write (0, 0) on every axis.  Both stay:
the second is the only form every producer can write (dropping the axis a tile is
empty along leaves no span to say it is empty; the other spans would claim elements),
and ``annotate`` must not change what the user wrote.  What holds for both, and what
every consumer relies on: **a tile's array has its box's shape**, and no consumer
slices an empty tile by a box -- an empty part's shape comes from the part
(``broadcasting.general_elementwise``), owned cells and :func:`intersect` skip empty
boxes (reductions and products work on owned cells), a scan sizes what it sends by the
receiving box.  Layouts differing only in how an empty tile is written are *not* equal:
equal layouts promise equal tile shapes (the aligned element-wise shortcut combines the
tiles as they are).  A consumer choosing a path from the boxes (a fresh table's rows,
a row mask, a local reduction) decides alike for either form (dist50,
``tests/distributed/test_empty_tile_forms.py``): one program's spelling must not change
its messages; only ``fused_tiles`` declines the (0, 0) form (its kernel runs on the
tile as it is, and a plain operand does not broadcast against a (0, 0) tile), leaving
it to the node-by-node rules.
``tests/distributed/programs/empty_tiles.py`` runs every rule on operands of each
producer, rank 0's or a middle rank's tile empty, against NumPy.

Errors are ``PhylanxValueError`` without location: the primitive calling us adds it.
"""
from __future__ import annotations

import math
from itertools import product
from typing import Any

import numpy as np

from ..errors import PhylanxValueError

Span = tuple[int, int]
Box = tuple[Span, ...]

TILING_TYPES = ("sym", "row", "column", "page")
#: annotation key of each axis, by number of dimensions (1-d: either key, see below)
AXIS_KEYS = {1: ("columns",), 2: ("rows", "columns"), 3: ("pages", "rows", "columns")}
_KEY_AXIS = {2: {"rows": 0, "columns": 1}, 3: {"pages": 0, "rows": 1, "columns": 2}}


def split(n: int, parts: int, what: str = "dimension") -> list[Span]:
    """``n`` elements in ``parts`` contiguous blocks; the first ``n % parts`` get one more."""
    if parts < 1:
        raise PhylanxValueError(f"the number of tiles must be positive, got {parts}")
    if n < parts:
        raise PhylanxValueError(
            f"cannot split the {what} of {n} element(s) into {parts} tile(s) "
            "(fewer elements than tiles)")
    return even_spans(n, parts)


def even_spans(n: int, count: int) -> list[Span]:
    """``n`` elements in ``count`` nearly equal blocks (the first ``n % count`` one longer),
    unchecked: blocks are empty when there are fewer elements than blocks."""
    base, extra = divmod(n, count)
    spans, start = [], 0
    for i in range(count):
        stop = start + base + (i < extra)
        spans.append((start, stop))
        start = stop
    return spans


def _middle_divisors(n: int) -> tuple[int, int]:
    """``(a, b)``, ``a * b == n``, ``a`` the largest divisor of ``n`` not above sqrt(n)."""
    a = max(d for d in range(1, math.isqrt(n) + 1) if n % d == 0)
    return a, n // a


def _three_divisors(n: int) -> tuple[int, int, int]:
    """Three counts with product ``n``, ascending: (1,1,n) for 2, 3, 5, (1,2,2) for 4,
    otherwise the largest divisor below the cube root, then the middle divisors of
    the rest (the original's cube-root-based factoring; it gives the same special cases)."""
    a = max(d for d in range(1, int(round(n ** (1 / 3))) + 2) if n % d == 0 and d ** 3 <= n)
    b, c = _middle_divisors(n // a)
    return tuple(sorted((a, b, c)))  # type: ignore[return-value]


def _by_length(shape: tuple[int, ...]) -> list[int]:
    """Axes from longest to shortest; ties go to the earlier axis (rows before columns:
    the original splits rows when rows >= cols)."""
    return sorted(range(len(shape)), key=lambda ax: (-shape[ax], ax))


def grid(shape: tuple[int, ...], numtiles: int, tiling_type: str) -> tuple[int, ...]:
    """Number of blocks along each axis for ``numtiles`` tiles of ``tiling_type``."""
    ndim = len(shape)
    if ndim not in (1, 2, 3):
        raise PhylanxValueError(f"distributed arrays are 1-d, 2-d or 3-d, not {ndim}-d")
    if tiling_type not in TILING_TYPES:
        raise PhylanxValueError(
            f"unknown tiling_type {tiling_type!r} (one of {', '.join(TILING_TYPES)})")
    if numtiles < 1:
        raise PhylanxValueError(f"the number of tiles must be positive, got {numtiles}")
    if tiling_type == "page" and ndim != 3:
        raise PhylanxValueError(f"tiling_type 'page' needs a 3-d array, not {ndim}-d")
    counts = [1] * ndim
    if ndim == 1:
        counts[0] = numtiles
    elif tiling_type == "sym":
        ranked = _by_length(shape)
        factors = _middle_divisors(numtiles) if ndim == 2 else _three_divisors(numtiles)
        for ax, count in zip(ranked, sorted(factors, reverse=True)):
            counts[ax] = count
    else:
        axis = {"page": 0, "row": ndim - 2, "column": ndim - 1}[tiling_type]
        counts[axis] = numtiles
    return tuple(counts)


def _overlaps(intersection: Any, ndim: int) -> tuple[int, ...]:
    if intersection is None:
        return (0,) * ndim
    if isinstance(intersection, (list, tuple, np.ndarray)):
        values = [int(v) for v in intersection]
        if len(values) != ndim:
            raise PhylanxValueError(
                f"intersection has {len(values)} entries for a {ndim}-d array")
    else:
        values = [int(intersection)] * ndim
    if any(v < 0 for v in values):
        raise PhylanxValueError(f"intersection must not be negative, got {values}")
    return tuple(values)


def tile_boxes(shape: tuple[int, ...], numtiles: int, tiling_type: str = "sym",
               intersection: Any = None) -> list[Box]:
    """The box of every tile, numbered row-major over the grid (within pages for 3-d).

    With an ``intersection`` i, interior tiles grow by i on both sides along every
    split axis, edge tiles on their inner side only; leaving the array is an error.
    """
    shape = tuple(int(s) for s in shape)
    counts = grid(shape, numtiles, tiling_type)
    axis_names = [f"{key} axis" for key in AXIS_KEYS[len(shape)]] if len(shape) > 1 \
        else ["vector"]
    splits = [split(n, c, name) for n, c, name in zip(shape, counts, axis_names)]
    over = _overlaps(intersection, len(shape))
    for ax, (spans, extra) in enumerate(zip(splits, over)):
        if extra == 0 or len(spans) == 1:
            continue
        grown = []
        for i, (start, stop) in enumerate(spans):
            start = start - extra if i > 0 else start
            stop = stop + extra if i < len(spans) - 1 else stop
            if start < 0 or stop > shape[ax]:
                raise PhylanxValueError(
                    f"intersection {extra} along axis {ax} makes tile {i} leave the array "
                    f"(span [{start}, {stop}) of a dimension of {shape[ax]})")
            grown.append((start, stop))
        splits[ax] = grown
    return [tuple(box) for box in product(*splits)]


def box_shape(box: Box) -> tuple[int, ...]:
    return tuple(stop - start for start, stop in box)


def is_empty(box: Box) -> bool:
    return any(stop <= start for start, stop in box)


def intersect(a: Box, b: Box) -> Box | None:
    """The common part of two boxes, or None."""
    out = tuple((max(s1, s2), min(e1, e2)) for (s1, e1), (s2, e2) in zip(a, b))
    return None if is_empty(out) else out


def to_local(box: Box, tile: Box) -> tuple[slice, ...]:
    """The index of ``box`` (global, inside ``tile``) in the tile's local array."""
    return tuple(slice(s - ts, e - ts) for (s, e), (ts, _) in zip(box, tile))


def check_layout(boxes: list[Box]) -> tuple[int, ...]:
    """The global shape of ``boxes``; raises unless in every dimension the union of
    the non-empty spans starts at 0 and has no gap."""
    ndim = len(boxes[0])
    shape = []
    for ax in range(ndim):
        spans = sorted({box[ax] for box in boxes if not is_empty(box)})
        covered = 0
        for start, stop in spans:
            if start > covered:
                raise PhylanxValueError(
                    f"the tiles leave a gap along axis {ax}: nothing covers "
                    f"[{covered}, {start})")
            covered = max(covered, stop)
        shape.append(covered)
    if any(not is_empty(b) for b in boxes):
        # every element must be in some tile, not just every index of every axis
        _check_volume(boxes, tuple(shape))
    return tuple(shape)


def _check_volume(boxes: list[Box], shape: tuple[int, ...]) -> None:
    cells = owned_cells(boxes, shape)
    total = sum(int(np.prod(box_shape(c))) for mine in cells for c in mine)
    if total != int(np.prod(shape)):
        raise PhylanxValueError(
            f"the tiles do not cover the array of shape {shape}: "
            f"{int(np.prod(shape)) - total} element(s) are in no tile")


def owned_cells(boxes: list[Box], shape: tuple[int, ...]) -> list[list[Box]]:
    """Per locality, disjoint boxes it owns: each element belongs to the lowest
    locality whose box holds it.  Adjacent cells of one owner are merged along the
    last split so that a grid tiling gives one cell per tile."""
    ndim = len(shape)
    cuts = []
    for ax in range(ndim):
        points = {0, shape[ax]}
        for box in boxes:
            if not is_empty(box):
                points.update(box[ax])
        cuts.append(sorted(p for p in points if 0 <= p <= shape[ax]))
    owned: list[list[Box]] = [[] for _ in boxes]
    for cell in product(*[list(zip(c[:-1], c[1:])) for c in cuts]):
        for rank, box in enumerate(boxes):
            if all(s <= cs and ce <= e for (cs, ce), (s, e) in zip(cell, box)):
                owned[rank].append(tuple(cell))
                break
    return [_merge(cells) for cells in owned]


def _merge(cells: list[Box]) -> list[Box]:
    """Merge cells that differ in one span and touch there (repeat until stable)."""
    cells = list(cells)
    changed = True
    while changed:
        changed = False
        for i in range(len(cells)):
            for j in range(i + 1, len(cells)):
                a, b = cells[i], cells[j]
                diff = [ax for ax in range(len(a)) if a[ax] != b[ax]]
                if len(diff) == 1:
                    ax = diff[0]
                    lo, hi = sorted((a[ax], b[ax]))
                    if lo[1] == hi[0]:
                        cells[i] = a[:ax] + ((lo[0], hi[1]),) + a[ax + 1:]
                        del cells[j]
                        changed = True
                        break
            if changed:
                break
    return cells


def split_axes(boxes: list[Box], shape: tuple[int, ...]) -> list[int]:
    """The axes along which the layout is split (some tile does not span the whole axis)."""
    return [ax for ax in range(len(shape))
            if any(not is_empty(b) and b[ax] != (0, shape[ax]) for b in boxes)]


# -- annotation lists ------------------------------------------------------------------
def key_axes(keys: list[str], ndim: int, what: str = "tile") -> list[int]:
    """Axis of each span key of a ``tile`` annotation for an ``ndim``-d tile."""
    if ndim not in (1, 2, 3):
        raise PhylanxValueError(f"distributed arrays are 1-d, 2-d or 3-d, not {ndim}-d")
    if len(keys) != ndim or len(set(keys)) != ndim:
        raise PhylanxValueError(
            f"the {what} annotation must have exactly one span per dimension of the "
            f"{ndim}-d tile, got {', '.join(keys) or 'none'}")
    if ndim == 1:
        if keys[0] not in ("rows", "columns"):
            raise PhylanxValueError(f"a 1-d tile is annotated with 'rows' or 'columns', "
                                    f"not {keys[0]!r}")
        return [0]
    axes = []
    for key in keys:
        if key not in _KEY_AXIS[ndim]:
            raise PhylanxValueError(
                f"unknown span key {key!r} for a {ndim}-d tile "
                f"(one of {', '.join(AXIS_KEYS[ndim])})")
        axes.append(_KEY_AXIS[ndim][key])
    return axes


def parse_tile(spec: Any, ndim: int) -> tuple[Box, str | None]:
    """``list("tile", list("columns", c0, c1), ...)`` -> (box in axis order, 1-d key)."""
    if not isinstance(spec, (list, tuple)) or not spec or spec[0] != "tile":
        raise PhylanxValueError(f"expected a list(\"tile\", ...) annotation, got {spec!r}")
    keys, spans = [], []
    for item in spec[1:]:
        if not isinstance(item, (list, tuple)) or len(item) != 3 or not isinstance(item[0], str):
            raise PhylanxValueError(
                f"a tile span is list(\"rows\"|\"columns\"|\"pages\", start, stop), got {item!r}")
        start, stop = int(item[1]), int(item[2])
        if not 0 <= start <= stop:
            raise PhylanxValueError(f"span {item[0]} [{start}, {stop}) is not a valid range")
        keys.append(str(item[0]))
        spans.append((start, stop))
    axes = key_axes(keys, ndim)
    box = [None] * ndim
    for ax, span in zip(axes, spans):
        box[ax] = span
    return tuple(box), (keys[0] if ndim == 1 else None)  # type: ignore[return-value]


def format_tile(box: Box, key1d: str | None = None) -> list:
    """The ``list("tile", ...)`` annotation of ``box`` (keys in axis order)."""
    keys = (key1d or "columns",) if len(box) == 1 else AXIS_KEYS[len(box)]
    return ["tile", *[[k, np.int64(s), np.int64(e)] for k, (s, e) in zip(keys, box)]]
