"""Products of tiled arrays (reference §4.3): ``dot_d`` and ``cannon_product_d``.

``dot_d`` follows numpy.dot for the four rank combinations 1-d·1-d, 1-d·2-d,
2-d·1-d, 2-d·2-d (either operand may also be a plain, replicated array):

* when the lhs (2-d) is split along rows only, each locality multiplies its rows
  with the whole rhs (fetched): the result is tiled by the lhs's rows;
* else, when the rhs (2-d) is split along columns only, each locality multiplies
  the whole lhs with its columns: the result is tiled by the rhs's columns;
* otherwise (a split contraction axis, and always for 1-d·1-d) each locality
  multiplies the cells it *owns* with the matching parts of the other operand, and
  the partial results are summed over all localities: the result is replicated.

Every result has NumPy's shape (the original returned a wrong one for one case).
The pieces of a tiled operand a rank needs are fetched while it multiplies the ones
it owns (``overlapped_fetch.py``): every remote read starts first, the local pieces'
products are computed meanwhile, then each remote piece's as it arrives, added in a
fixed order (the same bits whatever the arrival order).
``cannon_product_d`` is Cannon's algorithm on a q x q grid of tiles (P = q*q
localities): locality (i, j) accumulates A[i, l] @ B[l, j] over l, all blocks
fetched at once (so later steps' blocks arrive while earlier ones multiply).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .... import distributed as api
from ....errors import PhylanxValueError
from ....primitives.registry import primitive
from ....values import scalarize
from ... import overlapped_fetch, tiles, tiling
from ...darray import DistributedArray
from ...tiles import Layout
from .._support import ORDERED, lockstep

_NO_ORACLE = {"no_oracle": "products of tiled operands (tested under mpiexec against numpy)"}


def _operand(x: Any, what: str) -> Any:
    if isinstance(x, DistributedArray):
        if x.ndim not in (1, 2):
            raise PhylanxValueError(f"dot_d: {what} must be 1-d or 2-d, not {x.ndim}-d")
        return x
    a = np.asarray(x)
    if a.ndim not in (1, 2):
        raise PhylanxValueError(f"dot_d: {what} must be 1-d or 2-d, not {a.ndim}-d")
    return a


def _parts(x: Any, boxes: list) -> list[np.ndarray]:
    """Collective for a tiled ``x``: the global ``boxes`` of ``x`` (plain: slices)."""
    if isinstance(x, DistributedArray):
        return tiles.fetch(x.local, x.layout, boxes)
    return [x[tuple(slice(s, e) for s, e in b)] for b in boxes]


def _cells(x: DistributedArray) -> list[tuple[tiling.Box, np.ndarray]]:
    rank = api.find_here()
    box = x.layout.boxes[rank]
    return [(c, x.local[tiling.to_local(c, box)]) for c in x.layout.owned[rank]]


def _summed(partial: np.ndarray) -> Any:
    """The sum over localities, added in locality order (the same bits everywhere);
    in start mode a ``Started`` (``tiles.all_gathered_then``)."""
    if api.num_localities() == 1:
        return _total([partial])
    return tiles.all_gathered_then(partial, _total)


def _total(parts: list) -> Any:
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return scalarize(np.asarray(total))


def _span(box: tiling.Box, axis: int) -> tuple[int, int]:
    """The box's span along ``axis``, or an empty one if the box is empty (an empty
    tile owns nothing, whatever its span along the other axis)."""
    return (0, 0) if tiling.is_empty(box) else box[axis]


def _only_split(x: Any, axes: set[int]) -> bool:
    return isinstance(x, DistributedArray) and set(x.layout.split_axes()) <= axes


def row_layout(a: DistributedArray, b: Any) -> Layout:
    """The layout of ``dot_d(a, b)`` for an ``a`` split by rows only: ``a``'s row spans
    (an empty tile, e.g. (3, 0) when another rank holds all, gives no rows)."""
    boxes = [(_span(bx, 0),) + tuple((0, n) for n in b.shape[1:]) for bx in a.layout.boxes]
    return Layout(boxes, a.shape[:1] + b.shape[1:], "rows")


def column_layout(a: Any, b: DistributedArray) -> Layout:
    """The layout of ``dot_d(a, b)`` for a ``b`` split by columns only: its column spans."""
    boxes = [tuple((0, n) for n in a.shape[:-1]) + (_span(bx, 1),) for bx in b.layout.boxes]
    return Layout(boxes, a.shape[:-1] + b.shape[1:], "columns")


def row_product(a: DistributedArray, whole_b: np.ndarray) -> DistributedArray:
    """``a @ whole_b`` for ``a`` split along rows only: each rank multiplies its rows,
    the result is tiled by ``a``'s rows.  No message: the caller has ``whole_b``."""
    dtype = np.result_type(a.dtype, whole_b.dtype)
    layout = row_layout(a, whole_b)
    mine = layout.boxes[api.find_here()]
    local = np.dot(a.local, whole_b).astype(dtype, copy=False) \
        if not tiling.is_empty(a.box) else np.zeros(tiling.box_shape(mine), dtype)
    return a.derive(local, layout)


def column_product(whole_a: np.ndarray, b: DistributedArray,
                   named: DistributedArray | None = None) -> DistributedArray:
    """``whole_a @ b`` for ``b`` split along columns only: the result is tiled by
    ``b``'s columns, named after ``named`` (default ``b``).  No message: the caller
    has ``whole_a``."""
    dtype = np.result_type(whole_a.dtype, b.dtype)
    layout = column_layout(whole_a, b)
    mine = layout.boxes[api.find_here()]
    local = np.dot(whole_a, b.local).astype(dtype, copy=False) \
        if not tiling.is_empty(b.box) else np.zeros(tiling.box_shape(mine), dtype)
    return (b if named is None else named).derive(local, layout)


@primitive("dot_d", "dot_d(_1, _2)", flags=ORDERED, takes_tiled=True, **_NO_ORACLE,
           example='dot_d(annotate_d([1, 2], "u", list("tile", list("columns", 0, 2))), '
                   '[3, 4])', result="11")
@lockstep(same_plain=True)
def dot_d(a, b):
    """numpy.dot of distributed (tiled) operands: 1-d·1-d, 1-d·2-d, 2-d·1-d, 2-d·2-d.

    The result is tiled when one operand's tiles hold whole contraction slices
    (lhs split by rows only, or rhs by columns only), else it is summed over the
    localities and replicated on each.
    """
    a, b = _operand(a, "the first argument"), _operand(b, "the second argument")
    if not isinstance(a, DistributedArray) and not isinstance(b, DistributedArray):
        return scalarize(np.asarray(np.dot(a, b)))
    k_a, k_b = a.shape[-1], b.shape[0]
    if k_a != k_b:
        raise PhylanxValueError(f"dot_d: shapes {a.shape} and {b.shape} are not aligned "
                                f"({k_a} != {k_b})")
    if a.ndim == 2 and _only_split(a, {0}):          # rows of a -> rows of the result
        if not isinstance(b, DistributedArray):
            return row_product(a, b)
        return _row_product_fetching(a, b)
    if b.ndim == 2 and _only_split(b, {1}):          # columns of b -> columns of the result
        if not isinstance(a, DistributedArray):
            return column_product(a, b)
        return _column_product_fetching(a, b)
    # a contraction axis is split: partial products of owned cells, summed everywhere
    partial = np.zeros(a.shape[:-1] + b.shape[1:], np.result_type(a.dtype, b.dtype))
    if isinstance(a, DistributedArray):
        _cells_times_other(partial, a, b)
    else:
        _other_times_cells(partial, a, b)
    return _summed(partial)


def _whole(x: DistributedArray) -> tiling.Box:
    return tuple((0, n) for n in x.shape)


def _streamed(arrivals: overlapped_fetch.Arrivals, total: overlapped_fetch.OrderedSum,
              factors: Any) -> None:
    """Add the product of ``factors(piece)`` (left, right) of every piece to ``total``:
    the local pieces' at once (while the remote ones travel), then each remote one as
    it arrives."""
    with overlapped_fetch.local_work():
        for piece in arrivals.local:
            total.add_product(piece.index, *factors(piece))
    for piece in arrivals.arrived():
        total.add_product(piece.index, *factors(piece))


def _row_product_fetching(a: DistributedArray, b: DistributedArray) -> DistributedArray:
    """``a @ b`` for ``a`` split along rows only and a tiled ``b``: each piece of ``b``
    (rows k0:k1, columns c0:c1) meets ``a``'s columns k0:k1 in the result's columns
    c0:c1; the local pieces multiply while the remote ones travel."""
    layout = row_layout(a, b)
    out = np.zeros(tiling.box_shape(layout.boxes[api.find_here()]),
                   np.result_type(a.dtype, b.dtype))
    with overlapped_fetch.fetching(b.local, b.layout, [_whole(b)]) as arrivals:
        if not tiling.is_empty(a.box):
            regions = {i: ((0, out.shape[0]),) + box[1:]
                       for i, (_, box) in enumerate(arrivals.parts)}
            _streamed(arrivals, overlapped_fetch.OrderedSum(out, regions),
                      lambda piece: (a.local[:, slice(*piece.box[0])], piece.value))
    return a.derive(out, layout)


def _column_product_fetching(a: DistributedArray, b: DistributedArray) -> DistributedArray:
    """``a @ b`` for ``b`` split along columns only and a tiled ``a``: each piece of
    ``a`` (rows r0:r1, columns k0:k1) meets ``b``'s rows k0:k1 in the result's rows
    r0:r1; the local pieces multiply while the remote ones travel.  Named after ``a``."""
    layout = column_layout(a, b)
    out = np.zeros(tiling.box_shape(layout.boxes[api.find_here()]),
                   np.result_type(a.dtype, b.dtype))
    with overlapped_fetch.fetching(a.local, a.layout, [_whole(a)]) as arrivals:
        if not tiling.is_empty(b.box):
            rows = b.box[0][0]
            regions = {i: box[:-1] + ((0, out.shape[-1]),)
                       for i, (_, box) in enumerate(arrivals.parts)}
            _streamed(arrivals, overlapped_fetch.OrderedSum(out, regions),
                      lambda piece: (piece.value, b.local[piece.box[-1][0] - rows:
                                                          piece.box[-1][1] - rows]))
    return a.derive(out, layout)


def _cells_times_other(partial: np.ndarray, a: DistributedArray, b: Any) -> None:
    """Add to ``partial`` the products of ``a``'s owned cells with the matching rows
    of ``b`` (fetched, if tiled: the local pieces multiply while the others travel)."""
    cells = _cells(a)
    wanted = [(c[-1],) + tuple((0, n) for n in b.shape[1:]) for c, _ in cells]
    if not isinstance(b, DistributedArray):
        for (cell, block), other in zip(cells, _parts(b, wanted)):
            partial[(slice(*cell[0]),) if a.ndim == 2 else ()] += np.dot(block, other)
        return
    with overlapped_fetch.fetching(b.local, b.layout, wanted) as arrivals:
        # piece i of b (rows k0:k1 of cell's contraction span, columns c0:c1)
        regions = {i: ((cells[w][0][0],) if a.ndim == 2 else ()) + box[1:]
                   for i, (w, box) in enumerate(arrivals.parts)}

        def factors(piece: overlapped_fetch.Piece) -> tuple[np.ndarray, np.ndarray]:
            (cell, block), (k0, k1) = cells[piece.wanted], piece.box[0]
            return block[..., k0 - cell[-1][0]:k1 - cell[-1][0]], piece.value
        _streamed(arrivals, overlapped_fetch.OrderedSum(partial, regions), factors)


def _other_times_cells(partial: np.ndarray, a: Any, b: DistributedArray) -> None:
    """Add to ``partial`` the products of the matching columns of ``a`` (fetched, if
    tiled) with ``b``'s owned cells."""
    cells = _cells(b)
    wanted = [((0, a.shape[0]), c[0]) if a.ndim == 2 else (c[0],) for c, _ in cells]
    if not isinstance(a, DistributedArray):
        for (cell, block), other in zip(cells, _parts(a, wanted)):
            partial[(Ellipsis, slice(*cell[1])) if b.ndim == 2 else ()] += np.dot(other, block)
        return
    with overlapped_fetch.fetching(a.local, a.layout, wanted) as arrivals:
        # piece i of a (rows r0:r1, columns k0:k1 of the cell's contraction span)
        regions = {i: box[:-1] + ((cells[w][0][1],) if b.ndim == 2 else ())
                   for i, (w, box) in enumerate(arrivals.parts)}

        def factors(piece: overlapped_fetch.Piece) -> tuple[np.ndarray, np.ndarray]:
            (cell, block), (k0, k1) = cells[piece.wanted], piece.box[-1]
            return piece.value, block[k0 - cell[0][0]:k1 - cell[0][0]]
        _streamed(arrivals, overlapped_fetch.OrderedSum(partial, regions), factors)


def _grid_spans(x: DistributedArray, q: int, what: str) -> tuple[list, list]:
    """Row spans of grid rows and column spans of grid columns, checked."""
    boxes = x.layout.boxes
    rows = [boxes[i * q][0] for i in range(q)]
    cols = [boxes[j][1] for j in range(q)]
    for i in range(q):
        for j in range(q):
            if boxes[i * q + j] != (rows[i], cols[j]):
                raise PhylanxValueError(
                    f"cannon_product_d: the {what} is not tiled on a {q} x {q} grid numbered "
                    f"row-major (as tiling_type \"sym\" does): locality {i * q + j} holds "
                    f"{list(boxes[i * q + j])}")
    for spans, axis in ((rows, 0), (cols, 1)):
        if spans[0][0] != 0 or any(p[1] != s[0] for p, s in zip(spans, spans[1:])) \
                or spans[-1][1] != x.shape[axis]:
            raise PhylanxValueError(f"cannon_product_d: the {what}'s tiles must not overlap")
    return rows, cols


@primitive("cannon_product_d", "cannon_product_d(_1, _2)", flags=ORDERED, takes_tiled=True,
           **_NO_ORACLE,
           example='all_gather_d(cannon_product_d(constant_d(1, list(2, 2)), '
                   'constant_d(2, list(2, 2))))', result="[[4.0, 4.0], [4.0, 4.0]]")
@lockstep
def cannon_product_d(a, b):
    """Matrix product with Cannon's algorithm on a q x q grid of tiles (P = q*q localities).

    Both matrices must be tiled on that grid (``tiling_type`` sym with 1, 4, 9, ...
    localities) with the lhs's column spans equal to the rhs's row spans; the result
    is tiled like the lhs (rows) and rhs (columns), named after the lhs.
    """
    count = api.num_localities()
    q = math.isqrt(count)
    if q * q != count:
        raise PhylanxValueError(
            f"cannon_product_d needs a square number of localities (1, 4, 9, ...) to form "
            f"a grid of tiles, got {count}")
    for x, what in ((a, "first argument"), (b, "second argument")):
        if not isinstance(x, DistributedArray) or x.ndim != 2:
            raise PhylanxValueError(f"cannon_product_d: the {what} must be a tiled matrix")
    if a.shape[1] != b.shape[0]:
        raise PhylanxValueError(f"cannon_product_d: shapes {a.shape} and {b.shape} are not "
                                "aligned")
    a_rows, a_cols = _grid_spans(a, q, "first argument")
    b_rows, b_cols = _grid_spans(b, q, "second argument")
    if a_cols != b_rows:
        raise PhylanxValueError("cannon_product_d: the first argument's column spans "
                                f"{a_cols} differ from the second's row spans {b_rows}")
    i, j = divmod(api.find_here(), q)
    steps = [(i + j + s) % q for s in range(q)]      # Cannon's skewed order
    lhs = tiles.fetch(a.local, a.layout, [(a_rows[i], a_cols[l]) for l in steps])
    rhs = tiles.fetch(b.local, b.layout, [(b_rows[l], b_cols[j]) for l in steps])
    local = np.zeros((a_rows[i][1] - a_rows[i][0], b_cols[j][1] - b_cols[j][0]),
                     np.result_type(a.dtype, b.dtype))
    for left, right in zip(lhs, rhs):
        local += left @ right
    boxes = [(a_rows[r // q], b_cols[r % q]) for r in range(count)]
    return a.derive(local, Layout(boxes, (a.shape[0], b.shape[1])))
