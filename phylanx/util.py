"""Helpers of the original ``phylanx.util``: ``prange``, ``phyhelp``, ``phylist``,
``debug_output``.

``prange(...)`` is an ordinary ``range`` in plain Python; inside ``@Phylanx``
the loop ``for i in prange(n)`` runs its iterations concurrently.
"""
from __future__ import annotations

from .primitives.core.general import debug_output
from .primitives.registry import all_specs, lookup


class prange:  # noqa: N801 - the original's name
    """``range`` that marks a loop whose iterations may run in parallel."""

    def __init__(self, *args: int):
        self._range = range(*args)

    def __iter__(self):
        return iter(self._range)

    def __len__(self) -> int:
        return len(self._range)

    def __repr__(self) -> str:
        return "p" + repr(self._range)


def phyhelpex(name: str) -> str:
    """The help text of a primitive: its patterns, then its docstring."""
    spec = lookup(name)
    if spec is None:
        raise KeyError(f"no primitive named '{name}'")
    return "\n".join(spec.patterns) + "\n\n" + spec.doc


def phyhelp(name: str) -> None:
    """Print the help of a primitive."""
    print(phyhelpex(name))


def phylist() -> dict[str, list[str]]:
    """Category -> patterns of every primitive in it."""
    out: dict[str, list[str]] = {}
    for spec in all_specs():
        out.setdefault(spec.category, []).extend(spec.patterns)
    return out


__all__ = ["debug_output", "phyhelp", "phyhelpex", "phylist", "prange"]
