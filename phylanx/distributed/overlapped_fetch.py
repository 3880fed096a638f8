"""Fetching remote blocks while the local part computes (issue 28 item 5).

``tiles.fetch`` hands back the wanted boxes once every remote piece has arrived, so a
product or a convolution needing remote tiles sits idle while they travel.
:func:`fetching` (collective, like ``tiles.fetch``) starts every remote read at once
and hands out the pieces of the wanted boxes: first :attr:`Arrivals.local`, the
pieces this rank owns, to compute on while the others travel, then the remote ones
as they arrive (:meth:`Arrivals.arrived`: the first done first, the way ``Waitany``
would).  The caller's arithmetic decides what it computes per piece; it must give
the same answer, to rounding, as on the assembled boxes.

The pieces are the parts of the wanted boxes that each owner's cells hold
(``Layout.owned``: an element of overlapping tiles is read from its owner, as
``tiles.fetch`` does).  A rank failing in its local work leaves its tile readable
until the operation's outcome is agreed (``lockstep.after_operation``): the others
then meet its error, not a read of a tile that went away.

**Seeing the overlap.**  While a timeline is recorded (``phylanx trace``), the
caller's computation on the local pieces is a span ``local work`` (category
``overlap``, :func:`local_work`) and each wait for a remote piece a span ``wait for
remote pieces``: the local work lies inside the remote reads' spans when the two
overlap.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from time import perf_counter_ns as clock
from typing import Any, NamedTuple

import numpy as np

from .. import distributed as api
from ..runtime import hooks
from ..runtime.futures import Future, external
from . import lockstep, tiles, tiling
from .tiles import Layout, _wait
from .tiling import Box


class Piece(NamedTuple):
    """Part of wanted box ``wanted``: the global ``box`` and its values; ``index``:
    its place among all the pieces of the fetch (:attr:`Arrivals.parts`)."""
    index: int
    wanted: int
    box: Box
    value: np.ndarray


class Arrivals:
    """The pieces of one fetch: :attr:`local` at once, the remote ones as they come."""

    def __init__(self, parts: list[tuple[int, Box]], local: dict[int, np.ndarray],
                 remote: dict[int, Future]) -> None:
        #: (wanted box, global box) of every piece, local or remote, in a fixed order
        #: (the wanted boxes', then the owners'): the same on every run
        self.parts = parts
        self.local = [Piece(i, *parts[i], value) for i, value in local.items()]
        self._remote = dict(remote)

    def arrived(self) -> Iterator[Piece]:
        """The remote pieces, each as soon as it is here (those done together in the
        order of :attr:`parts`); a failed read raises its located error."""
        while self._remote:
            done = [i for i, future in self._remote.items() if future.done()]
            if not done:
                with _recorded("wait for remote pieces"):
                    _wait(_first_done(list(self._remote.values())))
                done = [i for i, future in self._remote.items() if future.done()]
            for i in sorted(done):
                future = self._remote.pop(i)
                yield Piece(i, *self.parts[i], _wait(future))

    def assembled(self, wanted: list[Box], dtype: Any) -> list[np.ndarray]:
        """The wanted boxes whole: the local pieces and every remote one (waited for)."""
        out = [np.zeros(tiling.box_shape(b), dtype) for b in wanted]
        for piece in [*self.local, *self.arrived()]:
            out[piece.wanted][tiling.to_local(piece.box, wanted[piece.wanted])] = piece.value
        return out


class OrderedSum:
    """Adds the pieces' contributions (computed as the pieces come) into ``out``, all
    zeros at first, so that the sum does not depend on the order they arrived in:
    written straight into their regions when no two regions meet, else added in the
    order of :attr:`Arrivals.parts` (one computed early waits for its turn): the same
    bits on every run."""

    def __init__(self, out: np.ndarray, regions: dict[int, Box]) -> None:
        self.out = out
        self._where = {i: tuple(slice(s, e) for s, e in box) for i, box in regions.items()}
        boxes = list(regions.values())
        self._disjoint = all(tiling.intersect(p, q) is None
                             for j, p in enumerate(boxes) for q in boxes[j + 1:])
        self._order = sorted(regions)
        self._held: dict[int, np.ndarray] = {}

    def add_product(self, index: int, left: np.ndarray, right: np.ndarray) -> None:
        """Add ``numpy.dot(left, right)`` (matrices) at ``index``'s region: computed
        straight into it when no two regions meet (a product buffer copied in would
        write the result's bytes twice), else as :meth:`add`."""
        where = self._where[index]
        if self._disjoint and left.ndim == 2 and right.ndim == 2 \
                and self.out[where].ndim == 2:
            np.matmul(left, right, out=self.out[where])
            return
        self.add(index, np.dot(left, right))

    def add(self, index: int, value: Any) -> None:
        if self._disjoint:      # its region's only contribution (``out`` starts at 0)
            self.out[self._where[index]] = value
            return
        self._held[index] = value
        while self._order and self._order[0] in self._held:
            first = self._order.pop(0)
            self.out[self._where[first]] += self._held.pop(first)


def _first_done(futures: list[Future]) -> Future:
    """A future done as soon as one of ``futures`` is (its value: None)."""
    first = external()
    for future in futures:
        future.add_done_callback(lambda _: first.try_set_result(None))
    return first


@contextmanager
def fetching(local: np.ndarray, layout: Layout, wanted: list[Box]) -> Iterator[Arrivals]:
    """Collective: the pieces of the global ``wanted`` boxes of the array whose tile
    here is ``local``; every remote read is started before the body runs.  The body
    takes the pieces; those it leaves are waited for at its end (every rank keeps its
    tile readable until all are done, as ``tiles.fetch``)."""
    rank, count = api.find_here(), api.num_localities()
    if count == 1:
        parts = [(i, b) for i, b in enumerate(wanted) if not tiling.is_empty(b)]
        yield Arrivals(parts, {j: local[tiling.to_local(b, layout.boxes[0])]
                               for j, (_, b) in enumerate(parts)}, {})
        return
    # named alike on every rank in step (see tiles.fetch)
    key = "phylanx_tiles/" + lockstep.next_name()
    api.register_array(key, local, unchanged=True)     # (until the last barrier)
    try:
        tiles.barrier()     # every rank's tile is readable
        parts: list[tuple[int, Box]] = []
        mine: dict[int, np.ndarray] = {}
        remote: dict[int, Future] = {}
        for i, box in enumerate(wanted):
            for owner, cells in enumerate(layout.owned):
                for cell in cells:
                    part = tiling.intersect(box, cell)
                    if part is None:
                        continue
                    src = tiling.to_local(part, layout.boxes[owner])
                    if owner == rank:
                        mine[len(parts)] = local[src]
                    else:
                        remote[len(parts)] = api.get_remote(owner, key, src, where=None)
                    parts.append((i, part))
        arrivals = Arrivals(parts, mine, remote)
        yield arrivals
        for _ in arrivals.arrived():    # what the body left: read (errors surface) ...
            pass
        tiles.barrier()     # ... before the others may unregister what we read
    except BaseException:
        # the others may still be reading our tile (this rank failed in its local
        # work, say): it stays readable until the error is agreed, so that they meet
        # this error, not a read of a tile that went away
        lockstep.after_operation(lambda: api.unregister_array(key))
        raise
    api.unregister_array(key)


@contextmanager
def local_work(what: str = "local work") -> Iterator[None]:
    """Mark the body as the computation on the local pieces (a timeline span)."""
    with _recorded(what):
        yield


@contextmanager
def _recorded(name: str) -> Iterator[None]:
    recorder = hooks.recorder
    if recorder is None:
        yield
        return
    t0 = clock()
    try:
        yield
    finally:
        recorder.span(name, "overlap", t0, clock())
