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
primitive); a store into a tiled array always passes here.  Which copies: those whose
selection may share the stored array's memory (``storages.py``: its tiles may be views
of the stored array's, ``s = x[0:2]; y = s[1]``, a store into ``x`` changes ``y``'s
source).  A store into any other array cannot change them, and sends nothing for them:
a copy one program returned and a user keeps must not make a later program's stores
into its own tables send a message each (issue 28, dist50: a gathered ``x[:, 1:]`` made
every column store of ``fresh_tables.py``'s table an all_gather).

Ranks must send alike, and a copy's life differs between ranks (each collects its
garbage when it does).  So the registry changes only at points every rank reaches in
the same order: a copy is registered by the selection that gathered it (an ordered
operation), and an entry goes only once every rank's copy was collected, which the
ranks learn from the liveness bits every exchange carries: a refresh's, and the
gather of each new copy's tiles (:func:`gathered_copy`: no message of its own, so
how many copies earlier programs left registered changes no message count).  A rank
whose copy is gone still sends its part for the others.  An entry holds its source's
tiles until then, as a NumPy view holds its base.

Not covered: a write into a tile that is no store (``local_tile(x)[0] = v``, the
explicitly local view) refreshes nothing.  Cost: nothing while no copy of a storage the
stored array's may share is registered; with some, every store into it costs one
all_gather of their selections (bytes: their size, received by every rank).
"""
from __future__ import annotations

import threading
import weakref
from typing import Any

import numpy as np

from ..values import unlocked
from . import tiles, tiling
from .lockstep import label_of, operation, plain_operands_of_rule
from .storages import may_share


class _Entry:
    """One registered copy (weakly) and the tiled selection it stands for."""

    __slots__ = ("source", "copy")

    def __init__(self, source: Any, copy: np.ndarray):
        self.source = source
        self.copy = weakref.ref(copy)


_entries: list[_Entry] = []
_lock = threading.Lock()


def registered() -> int:
    """How many copies are registered (some may be collected on this rank only)."""
    return len(_entries)


def gathered_copy(source: Any) -> np.ndarray:
    """Collective: the whole of the tiled selection ``source`` (its tiles views of the
    selected array's), registered to take that array's values after every store into
    it.  The registered copies' liveness bits travel with the tiles, in the one
    all_gather the gather sends anyway (none with one rank): entries collected on
    every rank go here."""
    entries, alive_here = _liveness()
    if len(source.layout.boxes) == 1:
        everyone = [(alive_here, source.local)]
    elif entries:
        everyone = tiles.all_gather((alive_here, np.ascontiguousarray(source.local)),
                                    final=True)
    else:   # (nothing registered: the gather's own message, as tiles.gather sends it)
        everyone = [(alive_here, t) for t in
                    tiles.all_gather(np.ascontiguousarray(source.local), final=True)]
    copy = tiles.assemble([tile for _, tile in everyone], source.layout)
    _forget_collected(entries, [bits for bits, _ in everyone], added=_Entry(source, copy))
    return copy


def refresh(stored: Any) -> None:
    """After a store into the tiled array ``stored`` (on every rank): every registered
    copy of ``stored``'s storage takes its source's current values (collective when
    there is one; the label is built only then: a store with none pays one test per
    registered copy)."""
    if any(may_share(e.source.storage, stored.storage) for e in _entries):
        _exchange(label_of("store", (stored,)) + "/views", stored.storage)


def _liveness() -> tuple[list[_Entry], np.ndarray]:
    with _lock:
        entries = list(_entries)
    return entries, np.array([e.copy() is not None for e in entries], bool)


def _exchange(label: str, storage: Any) -> None:
    entries, alive_here = _liveness()
    parts = [np.ascontiguousarray(e.source.local) if may_share(e.source.storage, storage)
             else None for e in entries]
    with plain_operands_of_rule(()), operation(label):  # (not the caller's operands)
        everyone = tiles.all_gather((alive_here, parts), final=True)
    for i, entry in enumerate(entries):
        copy = entry.copy()
        if copy is not None and parts[i] is not None:
            _fill(copy, entry.source.layout.boxes, [got[i] for _, got in everyone])
    _forget_collected(entries, [bits for bits, _ in everyone])


def _forget_collected(entries: list[_Entry], bits: list[np.ndarray],
                      added: _Entry | None = None) -> None:
    """Drop the ``entries`` whose copy every rank's ``bits`` say is collected (the
    same on every rank); entries registered meanwhile stay."""
    alive = np.logical_or.reduce(bits) if entries else []
    with _lock:
        kept = [e for e, a in zip(entries, alive) if a]
        _entries[:] = kept + _entries[len(entries):] + ([added] if added else [])


def _fill(copy: np.ndarray, boxes: tuple, parts: list[np.ndarray]) -> None:
    """Write the gathered tiles into the read-only copy, in place (its NumPy views,
    like the copy, see the source's values)."""
    with unlocked(copy):
        for box, part in zip(boxes, parts):
            if not tiling.is_empty(box):
                copy[tuple(slice(s, e) for s, e in box)] = part
