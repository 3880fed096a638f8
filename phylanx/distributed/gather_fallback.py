"""NumPy's answer for a primitive that has no distribution rule: gather, compute, re-tile.

A tiled array means the whole array (``darray.py``), so a primitive without a
``DISTRIBUTION`` rule that is given one must still answer for the whole array, never
for this locality's tile.  It does the slow, always-correct thing: every rank gathers
the whole of each tiled operand (one all_gather of all their tiles), runs the
primitive's own kernel on the plain arrays (so the answer is NumPy's by
construction, the same on every rank), and

* re-tiles the result when it is an array with the leading extent of a tiled operand
  (``np.sort(x, axis=1)``, ``np.cumsum(x, axis=1)``, ``x.astype(...)``): each rank
  keeps its part, laid out like that operand (the operand's own layout when the shapes
  are equal, else its spans along axis 0 with the other axes whole);
* returns any other value as it is (a scalar, a smaller array, a list): every rank
  computed the same from the same data.

The whole array crosses the network for every such call, so the first call from each
source line (per primitive) warns with a :class:`PhylanxPerformanceWarning` naming the
primitive and saying what to do instead.  ``local_tile(x)`` stays the explicit local
view; a primitive with side effects (random numbers, files) is still refused, since
every rank would repeat its effect (``darray.refusal``).
"""
from __future__ import annotations

import threading
import warnings
from typing import Any

import numpy as np

from ..source import SourceLoc
from . import lockstep, tiles, tiling
from .darray import DistributedArray
from .errors import PhylanxPerformanceWarning
from .tiles import Layout

#: (file, line, source text, primitive) already warned about
_warned: set[tuple] = set()
_warned_lock = threading.Lock()


def warn_once(primitive: str, loc: SourceLoc | None) -> None:
    """The performance warning for ``primitive`` at ``loc``, once per source line."""
    key = (getattr(loc, "file", None), getattr(loc, "line", 0),
           hash(getattr(loc, "text", None)), primitive)
    with _warned_lock:
        if key in _warned:
            return
        _warned.add(key)
    where = str(loc) if loc is not None else "<unknown>"
    warnings.warn_explicit(
        f"{where}: {primitive} has no distribution rule: every locality gathers the whole "
        "of its distributed operands to compute NumPy's answer (correct, but the whole "
        "array crosses the network on every call; local_tile(x) is this locality's tile)",
        PhylanxPerformanceWarning, getattr(loc, "file", None) or "<phylanx>",
        max(getattr(loc, "line", 0), 1))


def tiled_operands(value: Any, found: list | None = None) -> list[DistributedArray]:
    """The distributed arrays in ``value`` (an operand, or a list/tuple of them)."""
    found = [] if found is None else found
    if type(value) is DistributedArray:
        found.append(value)
    elif type(value) in (list, tuple):
        for item in value:
            tiled_operands(item, found)
    return found


def _replace(value: Any, whole: dict[int, np.ndarray]) -> Any:
    if type(value) is DistributedArray:
        return whole[id(value)]
    if type(value) in (list, tuple):
        return type(value)(_replace(item, whole) for item in value)
    return value


def gather_all(arrays: list[DistributedArray]) -> dict[int, np.ndarray]:
    """Collective: the whole of each array, on every rank, in one all_gather."""
    unique = list({id(a): a for a in arrays}.values())
    if len(unique[0].layout.boxes) == 1:
        return {id(a): tiles.gather(a.local, a.layout) for a in unique}
    per_rank = tiles.all_gather([np.ascontiguousarray(a.local) for a in unique], final=True)
    whole = {}
    for k, a in enumerate(unique):
        out = np.zeros(a.shape, np.result_type(*[p[k].dtype for p in per_rank]))
        for box, part in zip(a.layout.boxes, per_rank):
            if not tiling.is_empty(box):
                out[tuple(slice(s, e) for s, e in box)] = part[k]
        whole[id(a)] = out
    return whole


def retiled(result: Any, operands: list[DistributedArray]) -> Any:
    """``result`` (the same on every rank) laid out like the first tiled operand with
    its leading extent, or as it is (see the module docstring)."""
    if type(result) is not np.ndarray or not 1 <= result.ndim <= 3:
        return result
    like = next((a for a in operands if a.shape[0] == result.shape[0]), None)
    if like is None:
        return result
    if like.shape == result.shape:
        layout = Layout(like.layout.boxes, result.shape, like.layout.key1d)
    else:
        rest = tuple((0, n) for n in result.shape[1:])
        boxes = [(b[0],) + rest for b in like.layout.boxes]
        key = like.layout.key1d if like.ndim == 1 else "rows"
        layout = Layout(boxes, result.shape, key)
    from .. import distributed as api
    box = layout.boxes[api.find_here()]
    local = result[tuple(slice(s, e) for s, e in box)].copy()
    return like.derive(local, layout, new_memory=True)


def always_gathers(primitive: str) -> bool:
    """True if a tiled operand given to ``primitive`` always takes this fallback: it has
    a kernel that is not given tiled arrays as they are (``takes_tiled``), no
    ``DISTRIBUTION`` rule, is not element-wise and has no side effects (the order
    ``darray._dispatch`` decides in).  The IR's communication facts use it."""
    from ..primitives.registry import lookup
    from ..primitives.rules import DISTRIBUTION
    spec = lookup(primitive)
    return (spec is not None and spec.impl is not None and DISTRIBUTION.get(primitive) is None
            and not (spec.special or spec.takes_tiled or spec.elementwise or spec.side_effects))


def gathered_bytes(arrays: list[DistributedArray]) -> int:
    """The bytes :func:`gather_all` moves, summed over the ranks: every rank receives
    every other rank's tile of each (distinct) array."""
    ranks = len(arrays[0].layout.boxes) if arrays else 1
    return (ranks - 1) * sum(int(np.prod(tiling.box_shape(b))) * a.dtype.itemsize
                             for a in arrays for b in a.layout.boxes
                             if not tiling.is_empty(b))


def gather_and_compute(primitive: str, impl: Any, args: tuple, loc: SourceLoc | None) -> Any:
    """The primitive's kernel on the gathered operands, re-tiled (module docstring)."""
    operands = tiled_operands(list(args))
    warn_once(primitive, loc)
    with lockstep.operation(lockstep.label_of(primitive, tuple(operands))):
        whole = gather_all(operands)
    return retiled(impl(*_replace(list(args), whole)), operands)


__all__ = ["always_gathers", "gather_and_compute", "gather_all", "gathered_bytes", "retiled",
           "tiled_operands", "warn_once"]
