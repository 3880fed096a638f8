"""Functions named across localities: :class:`ByName` and the one lookup rule.

A function that does not pickle (a ``@Phylanx`` function, a PhySL function) travels by
name; every rank resolves the name the same way: the table filled by
``register_function``, then the script's ``__main__`` (SPMD: every rank ran it).
Kept apart from ``active_messages`` so the single-process path needs no MPI import.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


class ByName:
    """A function sent by its name (it does not pickle, but every rank defines it)."""

    def __init__(self, name: str) -> None:
        self.name = name


def find_function(table: dict[str, Callable[..., Any]], name: str,
                  rank: int) -> Callable[..., Any]:
    """The function called ``name`` on this rank; KeyError saying how to register it."""
    if name in table:
        return table[name]
    main = sys.modules.get("__main__")
    if main is not None and callable(getattr(main, name, None)):
        return getattr(main, name)
    raise KeyError(f"no function named {name!r} on locality {rank} "
                   "(register it with phylanx.distributed.register_function)")
