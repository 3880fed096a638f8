"""Helpers shared by the distributed primitives: argument conversion, automatic
names, and :func:`create`, which builds a tiled array from a tiling (the ranks
agreeing on the shape, the tiling and, for a replicated input, its contents).
Every distributed primitive is declared with :data:`ORDERED` and decorated with
``@lockstep`` (``lockstep.py``) under its ``@primitive``.

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
from ..agreement import checksum
from ..darray import DistributedArray
from ..lockstep import lockstep
from ..storages import Storage

__all__ = ["ORDERED", "auto_name", "box_slices", "create", "lockstep", "placement",
           "tiling_type"]

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
    """``(tile_index, numtiles)`` with the defaults ``find_here()``, ``num_localities()``;
    a tiled array has one tile per locality, so any other ``numtiles`` is an error
    (it used to make an array of another shape)."""
    index = api.find_here() if tile_index is None else to_int(tile_index, "tile_index")
    count = api.num_localities() if numtiles is None else to_int(numtiles, "numtiles")
    if count != api.num_localities():
        raise PhylanxValueError(f"numtiles {count} differs from the number of localities "
                                f"({api.num_localities()}): a distributed array has one "
                                "tile per locality")
    return index, count


def tiling_type(value: Any) -> str:
    text = str(value or "sym")
    if text not in tiling.TILING_TYPES:
        raise PhylanxValueError(f"unknown tiling_type {text!r} "
                                f"(one of {', '.join(tiling.TILING_TYPES)})")
    return text


def create(name: str, shape: tuple[int, ...], tile_index: Any, numtiles: Any,
           kind: str, intersection: Any, make: Callable[[tiling.Box], np.ndarray],
           key1d: str | None = None, replicated: np.ndarray | None = None,
           declared: dict[str, Any] | None = None) -> DistributedArray:
    """Collective: this rank's tile (``make(box)``) of a ``shape`` array split by
    ``kind``; a problem on any rank (bad tiling, index out of range) raises on all.
    The ranks must agree on the name, the shape, the tiling and ``declared`` (their values
    travel with the tiles' boxes), and on a checksum of ``replicated``, the whole
    array every rank passed; the tiles must make up ``shape``."""
    declared = {"name": name, "shape": tuple(int(n) for n in shape), "tiling_type": str(kind),
                "intersection": repr(intersection), **(declared or {})}
    if replicated is not None:
        declared["checksum of the data"] = checksum(replicated)
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
    layout = tiles.establish(local, box, key1d, problem, f"array {name!r}",
                             declared=declared, final=True)
    # (every caller's ``make`` allocates the tile: memory of its own)
    return DistributedArray(local, layout, name, storage=Storage(name))


def box_slices(box: tiling.Box) -> tuple[slice, ...]:
    return tuple(slice(s, e) for s, e in box)
