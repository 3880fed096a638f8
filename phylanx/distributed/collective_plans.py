"""Plans: the fixed parts of a small checked collective called again alike.

A program calls the same collective over and over (a loop's ``all_reduce`` of a norm, a
training step's broadcast): the same kind, name, op, root, dtype and shape each time.
A plan, made once per such (channel, kind, op, root, dtype, shape), holds what the
general operation (``collectives.py``, ``_reduce_op`` and friends) works out anew on
every call: the cached header, the channel's slot buffers and persistent header
exchange, the byte range the data goes to, the typed views of the slots the result is
read from and the reduction's ufunc.  ``Collectives._express_plan`` then runs a call
as: write the data into the slot, ``Start``, ``Test``, one comparison of the
exchanged header bytes, the result from the typed views.  No generator, no dict or
tuple key built per call.

A plan only takes the path where nothing can differ from the general operation's: the
exchange completed within the express polls and every rank's header is the bytes the
plan expects (every rank sent this very header; for a broadcast, the headers the last
exchange found agreeing).  Anything else (a late rank, a disagreement, a header that
differs) goes on in the general operation, resumed right after the exchange the plan
started (``begun``): the same checks, the same located errors, on every rank.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import agreement as ag


class Plan:
    """What every plan holds: its key's fields, the header and the channel's buffers."""

    __slots__ = ("kind", "op", "root", "dtype", "shape", "header", "buffers", "end", "key")

    def __init__(self, kind: str, op: str | None, root: int | None, dtype: Any,
                 shape: tuple, header: np.ndarray, buffers: Any, end: int) -> None:
        self.kind, self.op, self.root, self.dtype, self.shape = kind, op, root, dtype, shape
        self.header, self.buffers = header, buffers
        #: where this rank's data ends in its slot (0: it sends none)
        self.end = end
        #: the calls this plan runs: (kind, op, root, dtype, shape, plan key) of the
        #: array passed, or (kind, root, plan key) of a broadcast this rank is not the
        #: root of (its value is not looked at); the plan key is that of the compiled
        #: node calling it by name (``agreement.PLAN_KEY``, 0: none); set by
        #: ``Collectives._plan_for``, compared by ``_express_plan``
        self.key: tuple = ()

    def result(self, raw: bytes, value: Any) -> Any:
        """The collective's result from the exchanged header bytes ``raw`` and the
        slots, or :data:`MISS` when ``raw`` is not what this plan expects."""
        raise NotImplementedError


#: a plan's result when the exchange went another way than the plan expects
MISS = object()


class ReducePlan(Plan):
    """A small checked all_reduce whose op MPI would apply to the array as it is: every
    rank's array arrives in the slots; reduced here, in rank order (as the general
    operation does: every rank gets the same bits)."""

    __slots__ = ("ufunc", "parts", "rows", "two", "zero_d")

    def __init__(self, ufunc: np.ufunc, typed: tuple, **fields: Any) -> None:
        super().__init__(**fields)
        self.ufunc = ufunc
        self.parts, self.rows = typed     # (ranks, *shape) view of the slots, its rows
        self.two = len(self.rows) == 2
        self.zero_d = len(self.shape) == 0

    def result(self, raw: bytes, value: Any) -> Any:
        if raw != self.buffers.expected:
            return MISS
        rows = self.rows
        result = self.ufunc(rows[0], rows[1]) if self.two \
            else self.ufunc.reduce(self.parts, axis=0, dtype=self.dtype)
        # (a ufunc of 0-d arrays gives a scalar: the general operation returns a 0-d array)
        return np.asarray(result) if self.zero_d else result


class GatherPlan(Plan):
    """A small all_gather of arrays: every rank's array arrives in the slots; the
    result is the rows of one copy of their typed view."""

    __slots__ = ("stacked",)

    def __init__(self, typed: tuple, **fields: Any) -> None:
        super().__init__(**fields)
        self.stacked = typed[0]

    def result(self, raw: bytes, value: Any) -> Any:
        if raw != self.buffers.expected:
            return MISS
        stacked = self.stacked.copy()
        if not self.shape:
            return [stacked[k, ...] for k in range(len(stacked))]   # (0-d arrays)
        return list(stacked)


class BroadcastPlan(Plan):
    """A small checked broadcast.  The root's header and the others' differ, so the
    exchange is expected to return the headers the last one found agreeing
    (``_Buffers.agreed``): then the root's array is the one its agreed header
    describes, inline in its slot."""

    __slots__ = ("is_root", "agreed", "row")

    def __init__(self, is_root: bool, **fields: Any) -> None:
        super().__init__(**fields)
        self.is_root = is_root
        self.agreed: Any = None     # the agreed headers ``row`` was decided for
        #: the root's array as they describe it, a view of its slot (None: it did not
        #: come inline with them)
        self.row: np.ndarray | None = None

    def result(self, raw: bytes, value: Any) -> Any:
        buffers = self.buffers
        if self.is_root:
            if raw == buffers.expected or raw == buffers.agreed_raw:
                return value
            return MISS
        if raw != buffers.agreed_raw:
            return MISS
        if self.agreed is not buffers.agreed:
            sent = buffers.agreed[self.root]
            self.agreed = buffers.agreed
            inline = bool(sent[4] == ag.ARRAY and sent[7] <= buffers.slots.shape[1])
            self.row = buffers.agreed_row(self.root) if inline else None
        row = self.row
        if row is None:
            return MISS
        result = row.copy()
        return result[()] if result.ndim == 0 else result
