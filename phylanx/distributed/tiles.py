"""Communication of tiled arrays: establishing a layout (``annotate_d``), gathering,
fetching remote blocks, and agreeing on errors so that every rank raises them.

All collectives here use one channel, :data:`CHANNEL`: the distributed primitives
must run in the same order on every rank (SPMD), which the runtime guarantees by
never spawning them concurrently (``runtime/nodes.py``, ordered primitives).  One
channel instead of one per array name keeps the number of MPI communicators
fixed however many arrays a program creates.

**Errors on every rank.**  A problem only one rank can see (its tile does not fit
its annotation, its ``tile_index`` is out of range) must not leave the others
waiting: every operation first computes its problem (or None), the ranks exchange
them with the metadata they exchange anyway, and all raise the same error.
"""
from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import distributed as api
from ..errors import PhylanxError, PhylanxValueError
from . import tiling
from .tiling import Box

CHANNEL = "phylanx_tiles"


def _wait(future) -> Any:
    from .collectives import wait
    return wait(future)


def all_gather(value: Any) -> list:
    return _wait(api.all_gather(value, CHANNEL, where=None))


def all_reduce(value: Any, op: str = "sum") -> Any:
    return _wait(api.all_reduce(value, op, CHANNEL, where=None))


def broadcast(value: Any, root: int) -> Any:
    return _wait(api.broadcast(value, root, CHANNEL, where=None))


def barrier() -> None:
    _wait(api.barrier(CHANNEL, where=None))


def problem_of(fn: Callable[[], Any]) -> tuple[Any, str | None]:
    """``(fn(), None)``, or ``(None, message)`` if it raised a PhylanxError."""
    try:
        return fn(), None
    except PhylanxError as e:
        return None, e.message


def raise_agreed(problems: list[str | None], what: str) -> None:
    """Raise on every rank if any rank had a problem (``problems`` is all-gathered)."""
    bad = [(r, p) for r, p in enumerate(problems) if p is not None]
    if not bad:
        return
    ranks = [r for r, p in bad if p == bad[0][1]]
    where = (f"locality {ranks[0]}" if len(ranks) == 1
             else "localities " + ", ".join(map(str, ranks)))
    others = len(bad) - len(ranks)
    more = f" (and {others} other problem(s) elsewhere)" if others else ""
    raise PhylanxValueError(f"{what}: on {where}: {bad[0][1]}{more}")


def agree(problem: str | None, what: str) -> None:
    """Collective: raise on every rank if any rank has a problem."""
    if api.num_localities() > 1:
        raise_agreed(all_gather(problem), what)
    elif problem is not None:
        raise PhylanxValueError(f"{what}: {problem}")


# -- layouts -----------------------------------------------------------------------
class Layout:
    """Where the tiles of one array are: one box per locality, the global shape and,
    for vectors, the orientation key (``columns``: a row vector, ``rows``: a column)."""

    __slots__ = ("boxes", "shape", "key1d", "_owned")

    def __init__(self, boxes: list[Box] | tuple[Box, ...], shape: tuple[int, ...],
                 key1d: str | None = None) -> None:
        self.boxes = tuple(tuple((int(s), int(e)) for s, e in b) for b in boxes)
        self.shape = tuple(int(s) for s in shape)
        self.key1d = (key1d or "columns") if len(self.shape) == 1 else None
        self._owned: list[list[Box]] | None = None

    @property
    def owned(self) -> list[list[Box]]:
        """Per locality, the disjoint boxes it owns (see ``tiling.owned_cells``)."""
        if self._owned is None:
            self._owned = tiling.owned_cells(list(self.boxes), self.shape)
        return self._owned

    def split_axes(self) -> list[int]:
        return tiling.split_axes(list(self.boxes), self.shape)

    def tile(self, rank: int) -> list:
        return tiling.format_tile(self.boxes[rank], self.key1d)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and (self.boxes, self.shape, self.key1d) == \
            (other.boxes, other.shape, other.key1d)

    def __hash__(self) -> int:
        return hash((self.boxes, self.shape, self.key1d))

    def __repr__(self) -> str:
        return f"Layout(shape={self.shape}, boxes={self.boxes}, key={self.key1d})"


def establish(local: Any, box: Box | None, key1d: str | None, problem: str | None,
              what: str, claim: tuple[int, int] | None = None) -> Layout:
    """Collective: exchange every rank's tile box and build the layout, with the
    checks of reference §4.2 (one span per dimension, spans match the tile's extent,
    one vector orientation, union from 0 without gaps).  ``claim`` is the
    ``list("locality", id, n)`` the rank was given, if any."""
    rank, count = api.find_here(), api.num_localities()
    if problem is None:
        problem = _local_problem(local, box, claim, rank, count)
    meta = (problem, box, key1d, None if local is None else np.ndim(local))
    gathered = all_gather(meta) if count > 1 else [meta]
    raise_agreed([m[0] for m in gathered], what)
    boxes = [m[1] for m in gathered]
    if len({len(b) for b in boxes}) != 1:
        dims = ", ".join(f"locality {r}: {len(b)}-d" for r, b in enumerate(boxes))
        raise PhylanxValueError(f"{what}: the tiles differ in their number of dimensions "
                                f"({dims})")
    keys = [m[2] for m in gathered]
    if len(boxes[0]) == 1 and len(set(keys)) != 1:
        raise PhylanxValueError(
            f"{what}: a vector must be annotated with the same key on every locality, got "
            + ", ".join(f"{k!r} on locality {r}" for r, k in enumerate(keys)))
    try:
        shape = tiling.check_layout(boxes)
    except PhylanxValueError as e:
        raise PhylanxValueError(f"{what}: {e.message}") from None
    return Layout(boxes, shape, keys[0])


def _local_problem(local: Any, box: Box | None, claim: tuple[int, int] | None,
                   rank: int, count: int) -> str | None:
    if claim is not None and tuple(claim) != (rank, count):
        return (f"list(\"locality\", {claim[0]}, {claim[1]}) does not match this locality "
                f"({rank} of {count})")
    ndim = np.ndim(local)
    if ndim not in (1, 2, 3):
        return f"distributed arrays are 1-d, 2-d or 3-d, this tile is {ndim}-d"
    if box is None or len(box) != ndim:
        return (f"the annotation has {0 if box is None else len(box)} span(s) for a "
                f"{ndim}-d tile (one per dimension)")
    if tiling.box_shape(box) != np.shape(local):
        return (f"the spans {list(box)} (extent {tiling.box_shape(box)}) do not match the "
                f"tile's shape {np.shape(local)}")
    return None


# -- moving data ---------------------------------------------------------------------
def gather(local: np.ndarray, layout: Layout) -> np.ndarray:
    """Collective: the whole array on every rank."""
    tiles = all_gather(np.ascontiguousarray(local)) if len(layout.boxes) > 1 else [local]
    dtype = np.result_type(*[t.dtype for t in tiles]) if tiles else np.float64
    out = np.zeros(layout.shape, dtype)
    for box, tile in zip(layout.boxes, tiles):
        if not tiling.is_empty(box):
            out[tuple(slice(s, e) for s, e in box)] = tile
    return out


_fetch_ids = itertools.count()
_fetch_lock = threading.Lock()


def fetch(local: np.ndarray, layout: Layout, wanted: list[Box]) -> list[np.ndarray]:
    """Collective: the global ``wanted`` boxes of the array (``local`` is this rank's
    tile), each assembled from the cells their owners hold (remote reads)."""
    rank, count = api.find_here(), api.num_localities()
    dtype = local.dtype
    if count == 1:
        return [local[tiling.to_local(b, layout.boxes[0])].copy() for b in wanted]
    with _fetch_lock:
        key = f"phylanx_tiles/{next(_fetch_ids)}"
    api.register_array(key, local)
    try:
        pieces = []     # (index into wanted, where in it, future or array)
        for i, box in enumerate(wanted):
            for owner, cells in enumerate(layout.owned):
                for cell in cells:
                    part = tiling.intersect(box, cell)
                    if part is None:
                        continue
                    src = tiling.to_local(part, layout.boxes[owner])
                    dst = tiling.to_local(part, box)
                    if owner == rank:
                        pieces.append((i, dst, local[src]))
                    else:
                        pieces.append((i, dst, api.get_remote(owner, key, src, where=None,
                                                                       wait=True)))
        out = [np.zeros(tiling.box_shape(b), dtype) for b in wanted]
        for i, dst, value in pieces:
            out[i][dst] = value if isinstance(value, np.ndarray) else _wait(value)
    finally:
        # the others may still read our tile: leave it registered until all are done
        barrier()
        api.unregister_array(key)
    return out
