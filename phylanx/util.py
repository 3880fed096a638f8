"""Helpers of the original ``phylanx.util``: ``prange``, ``phyhelp``, ``phylist``,
``debug_output``, ``serialize``/``unserialize``, and ``hostname()``.

``prange(...)`` is an ordinary ``range`` in plain Python; inside ``@Phylanx``
the loop ``for i in prange(n)`` runs its iterations concurrently.
"""
from __future__ import annotations

import pickle
from typing import Any

from .errors import PhylanxTypeError
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


def hostname() -> str:
    """The host name of the machine running this locality (PhySL ``hostname()``)."""
    from .runtime.locality import here
    return here().hostname()


def serialize(obj: Any) -> bytes:
    """Bytes of a PhySL AST (an expression or a list of them) or of a value."""
    from .language import ast as past
    if isinstance(obj, past.Program):
        obj = list(obj.body)
    return pickle.dumps(obj)


def unserialize(data: bytes | bytearray | list) -> list:
    """The list of AST expressions (or the value) that :func:`serialize` wrote.

    Only ASTs and data are rebuilt (the restricted unpickler of ``file_read``, extended
    by the AST's classes): bytes naming any other global raise PhylanxValueError."""
    from .language import ast as past
    from .safe_unpickle import load_ast_or_data
    obj = load_ast_or_data(bytes(data))   # the bytes may come from elsewhere: never run them
    return [obj] if isinstance(obj, past.Expr) else obj


def unserialize_expr(data: bytes | bytearray | list) -> Any:
    """The single AST expression that :func:`serialize` wrote."""
    obj = unserialize(data)
    if isinstance(obj, list):
        if len(obj) != 1:
            raise PhylanxTypeError(f"unserialize_expr: the data holds {len(obj)} expressions, "
                                   "not one; use unserialize")
        return obj[0]
    return obj


__all__ = ["debug_output", "hostname", "phyhelp", "phyhelpex", "phylist", "prange",
           "serialize", "unserialize", "unserialize_expr"]
