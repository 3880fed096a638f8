"""Products of tiled arrays: the ``DISTRIBUTION`` rules of ``dot`` and ``matmul``
(``np.dot``, ``x.dot(w)``, ``x @ w`` and ``np.matmul`` compile to these two, and for
1-d and 2-d operands they are the same product).

* **contraction split, parts local**: when the contraction axis of a tiled operand
  is split and, on every rank, the part of the other operand its owned cells
  multiply is at hand (a plain operand, or a tiled one laid out alike: ``x.T @ r``
  with ``x`` and ``r`` both row-tiled), each rank multiplies its cells with those
  parts and the partial products are summed over the ranks (one all_gather, added in
  rank order: the same plain result on every rank).  Decided from the layouts, the
  same on every rank.
* **row-tiled lhs, plain rhs** (``x @ w``): each rank multiplies its rows, the result
  is row-tiled; likewise a plain lhs times a column-tiled rhs.  No message and no
  lockstep end message: like an element-wise operation, everything that can fail is
  decided from the layouts every rank holds (``dot_d`` itself, a lockstep operation,
  paid one exchange of header slots per call for it: on 2 ranks, the LRA's
  per-iteration overhead).
* **otherwise** ``dot_d``: a row-tiled lhs times a plain (or fetched) rhs stays
  row-tiled (``x @ w``), a column-tiled rhs gives a column-tiled result, and any
  other combination fetches what it needs (``products.py``).

A scalar operand of ``dot`` is an element-wise product (tile by tile); operands of
more than two axes take the gather fallback (``gather_fallback.py``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .... import distributed as api
from ....primitives.rules import DISTRIBUTION
from ....runtime import started
from ... import lockstep, tiling
from ...broadcasting import elementwise
from ...darray import DistributedArray
from .global_view import _stand_in
from .products import (
    _only_split,
    _summed,
    column_layout,
    column_product,
    dot_d,
    row_layout,
    row_product,
)


def _inside(part: tiling.Box, tile: tiling.Box) -> bool:
    return tiling.is_empty(part) or all(ts <= s and e <= te
                                        for (s, e), (ts, te) in zip(part, tile))


def _needs(a: DistributedArray, b: Any, rank: int) -> list[tuple[tiling.Box, tiling.Box]]:
    """(owned cell of ``a`` on ``rank``, the box of ``b`` it multiplies)."""
    rest = tuple((0, n) for n in np.shape(b)[1:])
    return [(cell, (cell[-1],) + rest) for cell in a.layout.owned[rank]]


def _needs_rhs(a: Any, b: DistributedArray, rank: int) -> list[tuple[tiling.Box, tiling.Box]]:
    """(owned cell of ``b`` on ``rank``, the box of ``a`` it multiplies)."""
    lead = tuple((0, n) for n in np.shape(a)[:-1])
    return [(cell, lead + (cell[0],)) for cell in b.layout.owned[rank]]


def _at_hand(other: Any, needs: Any) -> bool:
    """On every rank, the parts of ``other`` that rank needs are local (or plain)."""
    if type(other) is not DistributedArray:
        return True
    return all(_inside(part, other.layout.boxes[r])
               for r in range(len(other.layout.boxes)) for _, part in needs(r))


def _slice(x: Any, part: tiling.Box) -> np.ndarray:
    if type(x) is DistributedArray:
        return x.local[tiling.to_local(part, x.box)]
    return x[tuple(slice(s, e) for s, e in part)]


def _contracts_locally(a: Any, b: Any) -> bool:
    """The contraction axis of a tiled operand is split and every rank holds the parts
    of the other operand its cells multiply (module docstring), from the layouts."""
    by_rows = type(a) is DistributedArray and a.ndim == 2 and _only_split(a, {0})
    by_columns = type(b) is DistributedArray and b.ndim == 2 and _only_split(b, {1})
    if by_rows or by_columns:
        return False                      # dot_d keeps these tiled
    if type(a) is DistributedArray:
        return a.ndim - 1 in a.layout.split_axes() and \
            _at_hand(b, lambda r: _needs(a, b, r))
    return 0 in b.layout.split_axes() and _at_hand(a, lambda r: _needs_rhs(a, b, r))


def _local_contraction(a: Any, b: Any) -> Any:
    """Partial products of owned cells with local parts, summed (module docstring)."""
    rank = api.find_here()
    shape = np.shape(a)[:-1] + np.shape(b)[1:]
    dtype = np.result_type(a.dtype, b.dtype)
    partial = np.zeros(shape, dtype)
    if type(a) is DistributedArray:
        for cell, part in _needs(a, b, rank):
            where = (slice(*cell[0]),) if a.ndim == 2 else ()
            partial[where] += np.dot(a.local[tiling.to_local(cell, a.box)], _slice(b, part))
    else:
        for cell, part in _needs_rhs(a, b, rank):
            where = (Ellipsis, slice(*cell[1])) if b.ndim == 2 else ()
            partial[where] += np.dot(_slice(a, part), b.local[tiling.to_local(cell, b.box)])
    with lockstep.operation(lockstep.label_of("dot", tuple(
            x for x in (a, b) if type(x) is DistributedArray))):
        return _summed(partial)


def result_layout(name: str, a: Any, b: Any) -> Any:
    """The layout of ``name(a, b)`` (``dot`` or ``matmul``) decided from the shapes,
    dtypes and layouts alone, as :func:`product_rule` decides: a
    :class:`~phylanx.distributed.tiles.Layout` for a tiled result, ``"plain"`` for the
    summed (replicated, plain) one, ``"elementwise"`` for a scalar operand of ``dot``,
    None where the rule declines or refuses (the gather fallback, a shape error)."""
    if name == "dot" and (a.ndim == 0 or b.ndim == 0):
        return "elementwise"
    if a.ndim not in (1, 2) or b.ndim not in (1, 2) \
            or a.dtype.kind not in "biufc" or b.dtype.kind not in "biufc" \
            or a.shape[-1] != b.shape[0]:
        return None
    if type(a) is DistributedArray and a.ndim == 2 and _only_split(a, {0}):
        return row_layout(a, b)
    if type(b) is DistributedArray and b.ndim == 2 and _only_split(b, {1}):
        return column_layout(a, b)
    return "plain"


def product_path(name: str, a: Any, b: Any) -> str | None:
    """How :func:`product_rule` computes ``name(a, b)``, decided from the shapes, dtypes
    and layouts alone (the same on every rank; the IR's communication facts use it):
    ``"elementwise"`` (a scalar operand of ``dot``), ``"rows"`` / ``"columns"`` (each
    rank multiplies its own tile: no message), ``"summed"`` (local partial products,
    one all_gather), ``"dot_d"`` (fetches, then perhaps an all_gather), ``"mismatch"``
    (the kernel's shape error), None (the gather fallback)."""
    if name == "dot" and (a.ndim == 0 or b.ndim == 0):
        return "elementwise"
    if a.ndim not in (1, 2) or b.ndim not in (1, 2) \
            or a.dtype.kind not in "biufc" or b.dtype.kind not in "biufc":
        return None                        # NumPy's answer or error, through the fallback
    if a.shape[-1] != b.shape[0]:
        return "mismatch"
    if a.ndim == 2 and _only_split(a, {0}) and type(b) is not DistributedArray:
        return "rows"                      # x @ w: local, like an element-wise operation
    if b.ndim == 2 and _only_split(b, {1}) and type(a) is not DistributedArray:
        return "columns"
    return "summed" if _contracts_locally(a, b) else "dot_d"


def product_rule(name: str):
    def rule(impl: Any, args: list) -> Any:
        if len(args) != 2:
            return NotImplemented
        a, b = args
        a = a if type(a) is DistributedArray else np.asarray(a)
        b = b if type(b) is DistributedArray else np.asarray(b)
        path = product_path(name, a, b)
        if path is None:
            return NotImplemented          # NumPy's answer or error, through the fallback
        if path == "elementwise":
            return elementwise(np.multiply, [a, b])
        if path == "mismatch":
            # the kernel's own error, from the global shapes alone: the same on every
            # rank, before any communication
            return impl(*[_stand_in(x) if type(x) is DistributedArray else x for x in (a, b)])
        if path == "rows":
            return row_product(a, b)
        if path == "columns":
            return column_product(a, b)
        return _local_contraction(a, b) if path == "summed" else dot_d(a, b)
    rule.__name__ = f"{name}_rule"
    return rule


DISTRIBUTION.defrule("dot", product_rule("dot"))
DISTRIBUTION.defrule("matmul", product_rule("matmul"))
#: a summed product may leave its all_gather to the statement's join (start mode)
started.STARTS.update(("dot", "matmul"))
