"""What the global-index rules share (``global_subscripts.py``, ``global_structure.py``).

* :func:`communicating`: a primitive whose rule for tiled operands communicates must
  run in program order on every rank, like a ``_d`` primitive.  With several
  localities its name joins ``runtime.nodes.ORDERED`` (never spawned concurrently with
  its siblings, never overlapped by the block scheduler); with one locality nothing is
  sent, so ordinary programs keep their concurrency.
* :func:`whole`: a tiled operand gathered (every rank gets the whole array).
* :func:`rows_of`: a plain result every rank computed alike, kept tiled again: each
  rank keeps its block of nearly equal row blocks (empty ones allowed), no message.

Not a category module (the ``_`` prefix keeps the loader from importing it as one).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .... import distributed as api
from ....runtime import nodes
from ... import tiles, tiling
from ...darray import DistributedArray
from ...tiles import Layout


def communicating(*names: str) -> None:
    """Run ``names`` in program order when there is more than one locality."""
    if api.num_localities() > 1:
        nodes.ORDERED.update(names)


def is_tiled(value: Any) -> bool:
    return type(value) is DistributedArray


def whole(value: Any) -> Any:
    """``value``, a tiled array gathered (a collective: every rank calls it alike);
    a list or tuple gets its tiled elements gathered."""
    if is_tiled(value):
        return tiles.gather(value.local, value.layout)
    if type(value) in (list, tuple) and any(is_tiled(v) for v in value):
        return type(value)(whole(v) for v in value)
    return value


def row_spans(n: int, count: int) -> list[tuple[int, int]]:
    """``n`` rows in ``count`` nearly equal blocks (the first ``n % count`` one longer);
    blocks are empty when there are fewer rows than localities."""
    return tiling.even_spans(n, count)


def rows_of(result: np.ndarray, source: DistributedArray, key1d: str | None = None
            ) -> DistributedArray:
    """A plain ``result`` (the same on every rank) as a tiled array split by rows:
    this rank keeps its block; no communication.  Named after ``source``."""
    count = api.num_localities()
    spans = row_spans(result.shape[0], count)
    boxes = [((s, e),) + tuple((0, n) for n in result.shape[1:]) for s, e in spans]
    box = boxes[api.find_here()]
    local = result[tuple(slice(s, e) for s, e in box)].copy()
    return source.derive(local, Layout(boxes, result.shape, key1d), new_memory=True)


def can_tile(result: Any) -> bool:
    """A result a tiled array can hold: a non-empty 1-d to 3-d NumPy array."""
    return isinstance(result, np.ndarray) and 1 <= result.ndim <= 3 and result.size > 0

