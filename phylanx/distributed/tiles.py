"""Communication of tiled arrays: establishing a layout (``annotate_d``), gathering,
fetching remote blocks, and agreeing on errors so that every rank raises them.

All collectives here use one channel, :data:`CHANNEL`: the distributed primitives
must run in the same order on every rank (SPMD), which the runtime guarantees by
never spawning them concurrently (``runtime/nodes.py``, ordered primitives).  One
channel instead of one per array name keeps the number of MPI communicators
fixed however many arrays a program creates.  Every message is tagged with the
operation it belongs to (``lockstep.py``), so ranks out of step fail instead of
reading each other's data, and an error on one rank ends the operation on all.

**Errors on every rank.**  A problem only one rank can see (its tile does not fit
its annotation, its ``tile_index`` is out of range) must not leave the others
waiting: every operation first computes its problem (or None), the ranks exchange
them with the metadata they exchange anyway, and all raise the same error.  So
must what the ranks declare alike (the global shape, the number of tiles, the
dtype, a checksum of an input said to be the same everywhere): :func:`establish`
compares it (``agreement.disagreement``) and names the ranks that differ.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import distributed as api
from ..errors import PhylanxError, PhylanxValueError
from ..runtime import started
from . import lockstep, tiling
from .agreement import KINDS, agreed, disagreement, pack, value_array
from .errors import PhylanxCollectiveMismatchError
from .lockstep import CHANNEL
from .tiling import Box


def _wait(future, inside: bool = True) -> Any:
    """The value of a collective of this channel.  ``inside``: waited for inside its
    operation, whose end an error may decide (``lockstep.received``); a started one is
    waited for after its operation ended (``all_gathered_then``)."""
    from .collectives import wait
    try:
        return wait(future)
    except PhylanxError as e:
        if inside:
            lockstep.received(e)
        if e.loc is None and e.primitive in KINDS:
            # the collective layer named its own kind: the error belongs to the
            # distributed operation, whose node (or Python caller) names and locates it
            e.primitive = None
        raise


def all_gather(value: Any, final: bool = False) -> list:
    """Every rank's ``value``.  ``final``: the last message of the operation, after
    which the caller only computes on the gathered values (``lockstep.tag``)."""
    mpi = api._mpi()
    if mpi is None:
        return [value]
    return _wait(mpi.collectives.all_gather(value, CHANNEL, tag=lockstep.tag(final)))


def all_gathered_then(value: Any, finish: Callable[[list], Any]) -> Any:
    """``finish(every rank's value)``, the all_gather the current operation's final
    message.  A rule running in start mode (``runtime/started.py``: its node is a
    statement's value, its operation not part of an enclosing one) only starts the
    all_gather and gives a ``Started`` whose wait (its timeout, its errors, as
    :func:`all_gather`'s) the statement's join takes; an error there that is not
    agreed (this rank's alone: a timeout, a rank gone) ends the job, as in
    ``one_rank_errors.guarded``, since the node's evaluation ended well everywhere."""
    mpi = api._mpi()
    if mpi is None or not (started.may_start() and lockstep.outermost()):
        return finish(all_gather(value, final=True))
    node = started.starting()
    future = mpi.collectives.all_gather(value, CHANNEL, tag=lockstep.tag(True))

    def waited() -> Any:
        try:
            parts = _wait(future, inside=False)
        except PhylanxError as error:
            if not getattr(error, "agreed", False):
                # failed on this rank only (the others' evaluations of the node ended
                # well when they started it): the job ends (one_rank_errors.py)
                from .one_rank_errors import end_job_alone
                end_job_alone(node.locate(error))
            raise
        return finish(parts)
    return started.Started(waited)


def all_reduce(value: Any, op: str = "sum") -> Any:
    mpi = api._mpi()
    if mpi is None:
        return value
    return _wait(mpi.collectives.all_reduce(value, op, CHANNEL, tag=lockstep.tag()))


def broadcast(value: Any, root: int) -> Any:
    mpi = api._mpi()
    if mpi is None:
        return value
    return _wait(mpi.collectives.broadcast(value, root, CHANNEL, tag=lockstep.tag()))


def barrier() -> None:
    mpi = api._mpi()
    if mpi is not None:
        _wait(mpi.collectives.barrier(CHANNEL, tag=lockstep.tag()))


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
    raise agreed(PhylanxValueError(f"{what}: on {where}: {bad[0][1]}{more}"))


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

    __slots__ = ("boxes", "shape", "key1d", "_owned", "_split")

    def __init__(self, boxes: list[Box] | tuple[Box, ...], shape: tuple[int, ...],
                 key1d: str | None = None) -> None:
        self.boxes = tuple(tuple((int(s), int(e)) for s, e in b) for b in boxes)
        self.shape = tuple(int(s) for s in shape)
        self.key1d = (key1d or "columns") if len(self.shape) == 1 else None
        self._owned: list[list[Box]] | None = None
        self._split: list[int] | None = None

    @property
    def owned(self) -> list[list[Box]]:
        """Per locality, the disjoint boxes it owns (see ``tiling.owned_cells``)."""
        if self._owned is None:
            self._owned = tiling.owned_cells(list(self.boxes), self.shape)
        return self._owned

    def split_axes(self) -> list[int]:
        # (asked by every product and reduction rule: computed once, boxes and shape
        # never change; a copy, as before, so no caller can change the cached one)
        if self._split is None:
            self._split = tiling.split_axes(list(self.boxes), self.shape)
        return list(self._split)

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
              what: str, claim: tuple[int, int] | None = None,
              declared: dict[str, Any] | None = None, final: bool = False,
              same_overlaps: bool = False, extra: Any = None,
              extras: list | None = None) -> Layout:
    """Collective: exchange every rank's tile box and build the layout, with the
    checks of reference §4.2 (one span per dimension, spans match the tile's extent,
    one vector orientation, union from 0 without gaps).  ``claim`` is the
    ``list("locality", id, n)`` the rank was given, if any.  ``declared``: what
    every rank must have alike (``shape``, the global shape the tiles must make up,
    the number of tiles, a checksum ...), compared in the same exchange; the
    tiles' dtype must agree too.  Every error is raised on every rank alike.
    ``final``: the caller's operation ends with this (``all_gather``).  ``what`` names
    the array by ``declared["name"]``, if declared, as the lowest rank has it: ranks
    naming it differently raise the same text.  ``same_overlaps``: tiles each rank
    made itself (``annotate_d``) must hold the same values where they overlap
    (:func:`_check_overlaps`).  ``extra``: a fact of this rank's sent along, every
    rank's then appended to ``extras`` in rank order."""
    rank, count = api.find_here(), api.num_localities()
    if problem is None:
        problem = _local_problem(local, box, claim, rank, count)
    dtype = None if local is None else np.asarray(local).dtype.str
    meta = (problem, box, key1d, None if local is None else np.ndim(local), dtype,
            declared or {}, extra)
    # with ``same_overlaps`` the overlaps' digests follow (known once the boxes are in):
    # this message is then not the operation's last (lockstep.py: nothing after it)
    gathered = all_gather(meta, final and not same_overlaps) if count > 1 else [meta]
    mine, lowest = meta[5].get("name"), gathered[0][5].get("name")
    if mine is not None and what == f"array {mine!r}":
        what = f"array {lowest!r}"
    raise_agreed([m[0] for m in gathered], what)
    declared = gathered[0][5]
    differ = [disagreement([m[5].get(k) for m in gathered], k) for k in declared] + \
        [disagreement([np.dtype(m[4]).name for m in gathered], "the tiles' dtype", str)]
    differ = [d for d in differ if d is not None]
    if differ:
        raise agreed(PhylanxCollectiveMismatchError(
            f"{what}: the ranks disagree: " + "; ".join(differ)))
    boxes = [m[1] for m in gathered]
    if len({len(b) for b in boxes}) != 1:
        dims = ", ".join(f"locality {r}: {len(b)}-d" for r, b in enumerate(boxes))
        raise agreed(PhylanxValueError(f"{what}: the tiles differ in their number of "
                                       f"dimensions ({dims})"))
    keys = [m[2] for m in gathered]
    if len(boxes[0]) == 1 and len(set(keys)) != 1:
        raise agreed(PhylanxValueError(
            f"{what}: a vector must be annotated with the same key on every locality, got "
            + ", ".join(f"{k!r} on locality {r}" for r, k in enumerate(keys))))
    try:
        shape = tiling.check_layout(boxes)
    except PhylanxValueError as e:
        raise agreed(PhylanxValueError(f"{what}: {e.message}")) from None
    if "shape" in declared and shape != tuple(declared["shape"]):
        raise agreed(PhylanxValueError(
            f"{what}: the tiles make up shape {shape}, not the {tuple(declared['shape'])} "
            "asked for; boxes " + ", ".join(f"locality {r}: {list(b)}"
                                            for r, b in enumerate(boxes))))
    layout = Layout(boxes, shape, keys[0])
    if extras is not None:
        extras.extend(m[6] for m in gathered)
    if same_overlaps and count > 1:
        _check_overlaps(local, layout, what, final)
    return layout


def _check_overlaps(local: Any, layout: Layout, what: str, final: bool) -> None:
    """Every two tiles that overlap hold the same values there, else the same located
    error on every rank, naming the localities and the cells.  Each rank sends a
    digest of its tile's part in each overlap it takes part in (:func:`_overlap_digest`:
    values NumPy's ``array_equal`` calls equal digest alike), one exchange more, and only for a
    layout with overlaps (every rank knows it from the boxes just exchanged, so all
    of them send it or none).  Before, each rank computed with its own values: a
    reduction counted the owner's, a gather showed one rank's, silently.  ``final``:
    this exchange is the operation's last message (:func:`establish` then sent its
    own as not the last); without overlaps nothing is sent here and the operation
    ends with its end message (``lockstep``), the one exchange more it costs."""
    boxes, rank = layout.boxes, api.find_here()
    overlaps = [(r, q, cut) for r in range(len(boxes)) for q in range(r + 1, len(boxes))
                if (cut := tiling.intersect(boxes[r], boxes[q])) is not None]
    if not overlaps:
        return
    mine = [_overlap_digest(np.asarray(local)[tiling.to_local(cut, boxes[rank])])
            if rank in (r, q) else None for r, q, cut in overlaps]
    sums = all_gather(mine, final)
    differ = [f"localities {r} and {q} at {list(cut)}" for i, (r, q, cut) in
              enumerate(overlaps) if sums[r][i] != sums[q][i]]
    if differ:
        raise agreed(PhylanxCollectiveMismatchError(
            f"{what}: overlapping tiles hold different values (each cell must have one "
            "value): " + "; ".join(differ)))


def _overlap_digest(part: np.ndarray) -> bytes:
    """A digest of the values of ``part`` (the ranks agreed on its dtype's name and its
    shape): of its bytes in native order with one NaN for every NaN and ``0.0`` for
    ``-0.0``, since the values, not their byte order, a NaN's sign and payload (``0/0``
    gives ``-nan`` on x86, ``np.nan`` is ``+nan``) or a zero's sign, must be alike
    (NumPy's ``array_equal(a, b, equal_nan=True)``: ``-0.0 == 0.0``).  Cryptographic,
    not ``agreement.checksum``: adler32 misses differences as small as bytes ``+1, -2,
    +1`` (its two sums unchanged), and a difference missed here is computed with
    silently."""
    if part.dtype.hasobject:
        return hashlib.blake2b(pack(part), digest_size=16).digest()
    flat = np.ascontiguousarray(part, dtype=part.dtype.newbyteorder("=")).reshape(-1)
    flat = value_array(flat).reshape(-1)     # (a long double by value, not its padding)
    if flat.dtype.kind == "c":
        flat = flat.view(flat.real.dtype)     # (its real and imaginary parts apart)
    if flat.dtype.kind == "f":
        flat = np.where(np.isnan(flat), np.nan, np.where(flat == 0, 0.0, flat)) \
            .astype(flat.dtype, copy=False)
    return hashlib.blake2b(flat.view(np.uint8), digest_size=16).digest()


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
def gather(local: np.ndarray, layout: Layout, final: bool = False) -> np.ndarray:
    """Collective: the whole array on every rank (``final``: see :func:`all_gather`)."""
    tiles = all_gather(np.ascontiguousarray(local), final) if len(layout.boxes) > 1 \
        else [local]
    return assemble(tiles, layout)


def assemble(tiles: list[np.ndarray], layout: Layout) -> np.ndarray:
    """The whole array from every rank's tile (an empty box: nothing to place)."""
    dtype = np.result_type(*[t.dtype for t in tiles]) if tiles else np.float64
    out = np.zeros(layout.shape, dtype)
    for box, tile in zip(layout.boxes, tiles):
        if not tiling.is_empty(box):
            out[tuple(slice(s, e) for s, e in box)] = tile
    return out


def fetch(local: np.ndarray, layout: Layout, wanted: list[Box]) -> list[np.ndarray]:
    """Collective: the global ``wanted`` boxes of the array (``local`` is this rank's
    tile), each assembled from the cells their owners hold (remote reads)."""
    rank, count = api.find_here(), api.num_localities()
    dtype = local.dtype
    if count == 1:
        return [local[tiling.to_local(b, layout.boxes[0])].copy() for b in wanted]
    # named after the operation and message, the same on every rank in step (a local
    # counter would drift apart on a rank that failed before getting here)
    key = "phylanx_tiles/" + lockstep.next_name()
    api.register_array(key, local, unchanged=True)     # (until the last barrier)
    try:
        # every rank has registered its tile (a tagged exchange: a rank that failed
        # before arriving here ends the operation for all, see lockstep.py)
        barrier()
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
                        pieces.append((i, dst, api.get_remote(owner, key, src, where=None)))
        out = [np.zeros(tiling.box_shape(b), dtype) for b in wanted]
        for i, dst, value in pieces:
            out[i][dst] = value if isinstance(value, np.ndarray) else _wait(value)
        # the others may still read our tile: leave it registered until all are done
        # (a rank that failed meanwhile meets this in its end message)
        barrier()
    finally:
        api.unregister_array(key)
    return out
