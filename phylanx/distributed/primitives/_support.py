"""Helpers shared by the distributed primitives: argument conversion, automatic
names, and :func:`create`, which builds a tiled array from a tiling.

Not a category module (the ``_`` prefix keeps the loader from importing it as one).
"""
from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import distributed as api
from ...errors import PhylanxError, PhylanxValueError
from ...primitives.dtypes import to_int
from .. import tiles, tiling
from ..darray import DistributedArray

#: options of every distributed primitive: it communicates in program order
ORDERED = {"ordered": True}

_counters: dict[str, Any] = {}
_lock = threading.Lock()


def auto_name(name: Any, kind: str) -> str:
    """``name`` if given, else ``<kind>_<k>`` (``full_array_1`` ...): every rank counts
    the same way because every rank runs the same program."""
    if name not in (None, ""):
        return str(name)
    with _lock:
        counter = _counters.setdefault(kind, itertools.count(1))
        return f"{kind}_{next(counter)}"


def placement(tile_index: Any, numtiles: Any) -> tuple[int, int]:
    """``(tile_index, numtiles)`` with the defaults ``find_here()``, ``num_localities()``."""
    index = api.find_here() if tile_index is None else to_int(tile_index, "tile_index")
    count = api.num_localities() if numtiles is None else to_int(numtiles, "numtiles")
    return index, count


def tiling_type(value: Any) -> str:
    text = str(value or "sym")
    if text not in tiling.TILING_TYPES:
        raise PhylanxValueError(f"unknown tiling_type {text!r} "
                                f"(one of {', '.join(tiling.TILING_TYPES)})")
    return text


def create(name: str, shape: tuple[int, ...], tile_index: Any, numtiles: Any,
           kind: str, intersection: Any, make: Callable[[tiling.Box], np.ndarray],
           key1d: str | None = None) -> DistributedArray:
    """Collective: this rank's tile (``make(box)``) of a ``shape`` array split by
    ``kind``; a problem on any rank (bad tiling, index out of range) raises on all."""
    problem, local, box = None, None, None
    try:
        index, count = placement(tile_index, numtiles)
        boxes = tiling.tile_boxes(shape, count, tiling_type(kind), intersection)
        if not 0 <= index < count:
            raise PhylanxValueError(f"tile_index {index} is out of range "
                                    f"(0 to {count - 1} for {count} tiles)")
        box = boxes[index]
        local = make(box)
    except PhylanxError as e:
        problem = e.message
    layout = tiles.establish(local, box, key1d, problem, f"array {name!r}")
    return DistributedArray(local, layout, name)


def box_slices(box: tiling.Box) -> tuple[slice, ...]:
    return tuple(slice(s, e) for s, e in box)
