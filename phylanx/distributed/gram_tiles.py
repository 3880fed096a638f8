"""A gram row pass on each rank's row tile, then the sum of the partial products.

``fusion/rowpass.py`` computes ``x.T @ f(x @ w, y, ...)`` (or ``f @ x``) in one pass
over the rows of a plain ``x``.  On a row-tiled ``x`` the node-by-node path multiplies
each tile twice (``x @ w`` on the tile, ``f`` tile by tile, then the partial
``tile.T @ f`` of ``global_products``' summed path and its all_gather).  The law that
lets the row pass run on the tiles instead: the rows are independent (``f`` reads each
row alone, the product contracts over the rows), so for any partition of the rows
``x.T @ f(x @ w) = sum over the parts of x[part].T @ f(x[part] @ w)``; with one part per
rank, each rank's part is its row pass on its own tile, and the sum is the summed
path's all_gather, added in rank order.

**Decided from the layouts.**  It applies when ``x`` is split by rows only into tiles
that do not overlap (each rank owns its whole box, or nothing), each product's right
operand is a plain vector (``x @ w``: the rule's ``rows`` path), the element-wise
``f`` is row-local on these operands (``fused_tiles.trace``: every tiled operand laid
out as the product's rows, plain ones whole) and the gram is the summed path of
``global_products`` (one locality: ``dot_d`` on one tile).  Anything else runs the
expression node by node.  Each rank's tile is computed by the row pass's own policy
(its kernel, or NumPy on the tile), which only rounds the rank's partial sum.

**The node-by-node trace.**  Whether a rank takes this path may differ between ranks
(a region retired on one of them runs node by node), so it leaves what the node-by-node
path leaves: the evaluations of the product, ``f``'s operations and the transpose
counted at their sites, the transpose's local operation numbered, the gram's
all_gather labelled with the transposed ``x``'s and ``f``'s names, generations and
carried plain digests, at the gram's site; with start mode (``runtime/started.py``) the
all_gather starts as soon as the tile's pass ends and is waited for at the join.
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .. import distributed as api
from ..runtime import started
from . import lockstep, tiling
from .darray import DistributedArray, located_at, merged, plain_operands
from .fused_tiles import trace, warnings_raise
from .one_rank_errors import guarded, passed
from .primitives.dist_matrixops.global_products import product_path
from .primitives.dist_matrixops.layout_ops import transposed_layout
from .primitives.dist_matrixops.products import (
    _summed,
    column_layout,
    row_layout,
)


def _probe(layout: Any, dtype: Any, name: str, generation: int, plain: tuple) -> DistributedArray:
    """A tiled array of ``layout`` without data, named as the node-by-node value."""
    probe = DistributedArray(np.empty((0,) * len(layout.shape), dtype), layout, name,
                             generation)
    probe.plain = plain
    return probe


@functools.lru_cache(maxsize=64)
def _row_facts(layout: Any) -> tuple[bool, Any, Any]:
    """For a matrix ``x`` of ``layout``: (split by rows only into tiles that do not
    overlap, each rank owning its whole box; the layout of ``x @ w`` for a vector
    ``w``; the layout of ``x.T``).  A pure function of the layout, kept (an iteration
    asks it again of the same layout)."""
    own = set(layout.split_axes()) <= {0} and all(
        owned == ([] if tiling.is_empty(box) else [box])
        for box, owned in zip(layout.boxes, layout.owned))
    probe = _probe(layout, np.float64, "", 0, ())
    return own, row_layout(probe, np.empty(0)), transposed_layout(probe)[0]


def gram_on_tiles(rows: Any, values: list) -> Any:
    """The gram of the row pass ``rows`` (``fusion.rowpass.RowPass``) on ``values``
    (``x``, then each region leaf's value, a product's right operand in its place), or
    NotImplemented where the node-by-node path runs (module doc)."""
    from ..autodiff.recording import active_tape
    x = values[0]
    if active_tape() is not None or warnings_raise() or x.ndim != 2 \
            or x.dtype not in (np.float64, np.float32):
        return NotImplemented
    own, rows_of_x, transposed = _row_facts(x.layout)
    if not own:
        return NotImplemented
    one = api.num_localities() == 1
    leaves, region_values, values = rows.region.leaves, [], list(values)
    for i, (leaf, is_product, value) in enumerate(zip(leaves, rows.products, values[1:])):
        if is_product:
            carried = x.plain
            if one and type(value) is DistributedArray and value.layout.boxes == (
                    tuple((0, n) for n in value.shape),):
                # one locality: a tiled w is one whole tile (the gram's own result
                # on one tile; dot_d fetches it, the product carries x's digests)
                value = values[i + 1] = value.local
            elif type(value) is not np.ndarray:
                return NotImplemented
            else:
                plain = plain_operands((x, value), leaf.primitive, leaf.loc)
                if plain:
                    carried = merged(carried, plain)
            if not (value.shape == (x.shape[1],) and value.dtype.kind == "f"):
                return NotImplemented
            value = _probe(rows_of_x, np.result_type(x.dtype, value.dtype),
                           x.name, x.generation + 1, carried)
        elif type(value) not in (DistributedArray, bool, int, float) \
                and not isinstance(value, (np.ndarray, np.generic)):
            return NotImplemented            # a future, a list ...: node by node
        region_values.append(value)
    made = trace(rows.region, region_values)
    if made is None:
        return NotImplemented
    f_trace, dispatched = made
    if f_trace.layout.boxes != rows_of_x.boxes or f_trace.layout.shape != rows_of_x.shape \
            or f_trace.dtype.kind != "f":
        return NotImplemented                # not one float per row of x
    f = _probe(f_trace.layout, f_trace.dtype, f_trace.name, f_trace.generation,
               f_trace.plain)
    node = rows.node
    if rows.x_right:
        a, b, transpose = f, x, None
    else:
        transpose = node.children[0]
        a = _probe(transposed, x.dtype, x.name + "_transposed",
                   x.generation + 1, x.plain)
        b = f
    path = product_path("dot", a, b)
    if not (path == "summed" or (one and path == "dot_d")):
        return NotImplemented
    # the node-by-node evaluations before the gram, counted at their sites
    for leaf, is_product in zip(leaves, rows.products):
        if is_product:
            passed((leaf.primitive, leaf.loc))
    for op in dispatched:
        passed((op.primitive, op.loc))
    if transpose is not None:
        _transposed_here(transpose, x)
    local = [x.local] + [v.local if type(v) is DistributedArray else v for v in values[1:]]
    dtype = np.result_type(a.dtype, b.dtype)

    def partial() -> np.ndarray:
        if x.local.shape[0] == 0:
            return np.zeros(x.shape[1:2], dtype)      # an empty tile adds nothing
        return np.asarray(rows.hot_values(local, counted=False)).astype(dtype, copy=False)

    if one:
        # dot_d on one tile: the product of the fetched operand, tiled like it
        layout = column_layout(a, b) if rows.x_right else row_layout(a, b)
        return guarded((node.primitive, node.loc), lambda e: located_at(node, e),
                       lambda: a.derive(partial(), layout))

    def summed() -> Any:
        mine = partial()             # (computed before the operation, as node by node)
        with lockstep.operation(lockstep.label_of("dot", (a, b))):
            return _summed(mine)

    outer_site = lockstep.enter_site(node.primitive, node.loc, node.plan)
    outer_rule = started.enter_rule(node)
    try:
        with lockstep.plain_operands_of_rule(()):
            return guarded((node.primitive, node.loc), lambda e: located_at(node, e),
                           summed)
    finally:
        started.leave_rule(outer_rule)
        lockstep.leave_site(outer_site)


def _transposed(x: DistributedArray) -> None:
    """``transpose_d``'s operation, which sends nothing: numbered as it is."""
    with lockstep.operation(lockstep.label_of("transpose_d", (x,)), local=True):
        pass


def _transposed_here(transpose: Any, x: DistributedArray) -> None:
    """The transpose node's evaluation node by node, without its copy of the tile."""
    outer = lockstep.enter_site(transpose.primitive, transpose.loc, transpose.plan)
    try:
        guarded((transpose.primitive, transpose.loc),
                lambda e: located_at(transpose, e), _transposed, x)
    finally:
        lockstep.leave_site(outer)


__all__ = ["gram_on_tiles"]
