"""Gathered copies standing for NumPy views of tiled arrays, kept equal to their source.

Where NumPy's basic selection is a view and the tiled one is gathered (``y = x[2]`` of
a row-tiled ``x``: one rank's row; ``global_subscripts._read``), the copy
(``values.stands_for_view``) kept the values of the moment it was gathered:
``y = x[2]; x[2, 0] = -1; return y`` gave the old row where NumPy gives the new one
(issue 28).  So every such copy is registered here with the tiled selection it was
gathered from (a tiled array whose tiles are views of ``x``'s tiles), and every store
into a tiled array (``global_subscripts.write``: ``x[k] = v``, ``x[...] = v``,
``x += v``, a view changed in place) ends with :func:`refresh`: one all_gather in which
each rank sends its part of every registered selection, after which each rank rewrites
its live copies in place.  A copy therefore never holds an old value, wherever it is
read afterwards: by a primitive, returned, or by NumPy in Python after the function
returned (a store from Python, ``x[2, 0] = -1``, refreshes it too).

Why at the store and not at the copy's next read: a read of a plain array by a kernel
or by NumPy passes through no hook (a check on every operand would tax every
primitive); a store into a tiled array always passes here.  Why every registered copy
and not only those of the stored array: selections that stay tiled are views of their
source's tiles (``s = x[0:2]; y = s[1]``: a store into ``x`` changes ``y``'s source),
so refreshing all is exact without tracking aliases.

Ranks must send alike, and a copy's life differs between ranks (each collects its
garbage when it does).  So the registry changes only at points every rank reaches in
the same order: a copy is registered by the selection that gathered it (an ordered
operation), and an entry goes only once every rank's copy was collected, which the
ranks learn from the liveness bits sent with each refresh or, every ``_PRUNE_AT``
registrations without a store, in one small exchange of those bits.  A rank whose copy
is gone still sends its part for the others.  An entry holds its source's tiles until
then, as a NumPy view holds its base.

Not covered: a write into a tile that is no store (``local_tile(x)[0] = v``, the
explicitly local view) refreshes nothing.  Cost: nothing while no copy is registered;
with copies registered, every store into a tiled array costs one all_gather of the
registered selections (bytes: their size, received by every rank).
"""
from __future__ import annotations

import threading
import weakref
from typing import Any

import numpy as np

from ..values import unlocked
from . import tiles, tiling
from .lockstep import label_of, operation, plain_operands_of_rule

#: registrations between two exchanges of liveness bits (when no store refreshed)
_PRUNE_AT = 16


class _Entry:
    """One registered copy (weakly) and the tiled selection it stands for."""

    __slots__ = ("source", "copy")

    def __init__(self, source: Any, copy: np.ndarray):
        self.source = source
        self.copy = weakref.ref(copy)


_entries: list[_Entry] = []
_lock = threading.Lock()
_next_prune = [_PRUNE_AT]


def registered() -> int:
    """How many copies are registered (some may be collected on this rank only)."""
    return len(_entries)


def register(copy: np.ndarray, source: Any) -> np.ndarray:
    """Keep ``copy`` (gathered from the tiled ``source``, whose tiles are views of the
    selected array's) equal to ``source`` after every store; collective every
    ``_PRUNE_AT`` registrations (every rank registers alike)."""
    with _lock:
        _entries.append(_Entry(source, copy))
        due = len(_entries) >= _next_prune[0]
    if due:
        _exchange(f"view_copies.prune({len(_entries)})", with_parts=False)
    return copy


def refresh(stored: Any) -> None:
    """After a store into the tiled array ``stored`` (on every rank): every registered
    copy takes its source's current values (collective when a copy is registered; the
    label is built only then: a store with no copy registered pays one test)."""
    if _entries:
        _exchange(label_of("store", (stored,)) + "/views", with_parts=True)


def _exchange(label: str, with_parts: bool) -> None:
    with _lock:
        entries = list(_entries)
    alive_here = np.array([e.copy() is not None for e in entries], bool)
    parts = [np.ascontiguousarray(e.source.local) for e in entries] if with_parts else None
    with plain_operands_of_rule(()), operation(label):  # (not the caller's operands)
        everyone = tiles.all_gather((alive_here, parts), final=True)
    alive = np.logical_or.reduce([bits for bits, _ in everyone])
    if with_parts:
        for i, entry in enumerate(entries):
            copy = entry.copy()
            if copy is not None:
                _fill(copy, entry.source.layout.boxes, [got[i] for _, got in everyone])
    with _lock:
        kept = [e for e, a in zip(entries, alive) if a]
        _entries[:] = kept + _entries[len(entries):]
        _next_prune[0] = max(_PRUNE_AT, 2 * len(_entries))


def _fill(copy: np.ndarray, boxes: tuple, parts: list[np.ndarray]) -> None:
    """Write the gathered tiles into the read-only copy, in place (its NumPy views,
    like the copy, see the source's values)."""
    with unlocked(copy):
        for box, part in zip(boxes, parts):
            if not tiling.is_empty(box):
                copy[tuple(slice(s, e) for s, e in box)] = part
