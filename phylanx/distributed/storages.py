"""Which memory a tiled array's tiles are: the :class:`Storage` every ``DistributedArray``
carries, so that a store into one array refreshes only the gathered copies standing for
views of the same memory (``view_copies.py``; issue 28, dist50: a copy one program left
made every store of a later program, into tables of its own, an all_gather).

Arrays whose tiles may share memory must have the same ``Storage``.  It is decided from
how the program made the array, never from where memory is on this rank alone (an empty
tile shares none: ranks would differ, and one would send where another does not):

* a rule's result has its operand's storage (``DistributedArray.derive``: a slice or a
  transpose is a view), unless the rule allocated every rank's tile (``new_memory``);
* arrays a creation primitive fills (``constant_d``, ``tiled`` ...) have their own;
* ``annotate`` takes the user's array: it has a storage of its own when on every rank
  the ``ndarray`` owning its tile's memory (the tile, or the array it is a view of) is
  held by no live tiled array (:func:`held`: every ``DistributedArray`` made remembers
  it), which the ranks agree on in the exchange ``annotate`` makes anyway
  (:func:`agreed`); else :data:`ANY` (memory another tiled array holds, or a buffer no
  ``ndarray`` owns: which arrays share it, the user's code alone knows);
* :data:`ANY` (also an array constructed by hand): may share memory with every array,
  so a store into it refreshes every copy and a store into any array refreshes its
  copies, as before dist50.  Storages are compared by identity on each rank, so only
  storages made alike on every rank are distinct; ``ANY`` stands for the others.
"""
from __future__ import annotations

import threading
import weakref
from typing import Any

import numpy as np


class Storage:
    """One memory some tiled arrays' tiles are (views of); compared by identity."""

    __slots__ = ("__weakref__", "what")

    def __init__(self, what: str) -> None:
        self.what = what

    def __repr__(self) -> str:
        return f"Storage({self.what})"


#: may share memory with any array (module doc)
ANY = Storage("any memory")

_held: dict[int, weakref.ref] = {}
_lock = threading.Lock()


def may_share(a: Storage, b: Storage) -> bool:
    return a is b or a is ANY or b is ANY


def owner(tile: Any) -> np.ndarray | None:
    """The ``ndarray`` owning ``tile``'s memory (``tile`` itself if it owns it), or None
    when the chain ends in another buffer (``np.frombuffer``, a memory map's)."""
    while isinstance(tile, np.ndarray) and tile.base is not None:
        if not isinstance(tile.base, np.ndarray):
            return None
        tile = tile.base
    return tile if isinstance(tile, np.ndarray) else None


def remember(tile: Any) -> None:
    """A tiled array holds ``tile`` (kept while the array owning its memory lives)."""
    base = owner(tile)
    if base is None:
        return
    key = id(base)
    known = _held.get(key)
    if known is not None and known() is base:
        return
    with _lock:
        _held[key] = weakref.ref(base, lambda _, key=key: _forget(key))


def _forget(key: int) -> None:
    with _lock:
        known = _held.get(key)
        if known is not None and known() is None:
            del _held[key]


def held(tile: Any) -> bool | None:
    """Whether a live tiled array holds ``tile``'s memory; None when no ``ndarray``
    owns it."""
    base = owner(tile)
    if base is None:
        return None
    known = _held.get(id(base))
    return known is not None and known() is base


def agreed(every_rank_held: list, what: str) -> Storage:
    """The storage of an annotated tile from every rank's :func:`held` (the same on every
    rank, module doc)."""
    return Storage(what) if all(h is False for h in every_rank_held) else ANY
