"""Layout facts: the tiling of a distributed value as text a :class:`Facts` holds, and
the hook through which the distributed layer propagates it over the equations.

A layout fact names the split axes and the tile count, then every rank's box:
``split0/3=0:2x0:4;2:4x0:4;4:5x0:4`` is a 5 x 4 array in row blocks on three ranks
(rank 0 holds rows 0-1); ``whole/2=0:5x0:4;0:5x0:4`` is replicated; a 1-d column
vector (the distributed layer's ``rows`` orientation) ends ``~rows``.  ``None`` is an
unknown layout (a plain value has none).  The text has no ``,{}`` so it sits in the
IR's ``{layout=...}`` attribute and round-trips through :mod:`.text`.

Which layout a primitive's result has is the distributed layer's knowledge (its
``DISTRIBUTION`` rules decide it at run time, from the operands' layouts), and the IR
sits below that layer.  So the rules that propagate layouts are registered from
above (``phylanx/_wiring.py`` names the module, imported on first use) and answer
from the very functions the runtime's rules decide with: the propagated layout is the
one the value will have.  Likewise what an equation will send between the ranks
(:func:`communication`, the ``comm`` parameter the specialised IR prints).
"""
from __future__ import annotations

import importlib
from collections.abc import Callable

from .core import Eqn, Facts

Box = tuple[tuple[int, int], ...]

#: the module that registers the propagation rule (set by ``phylanx/_wiring.py``)
filled_by: str | None = None
#: ``rule(eqn, facts, values) -> Facts | None``: the facts of an equation with an
#: operand of kind ``darray`` (None: unknown)
_rule: list[Callable] = []
#: ``rule(eqn, facts, values) -> (str, int | None) | None``: what that equation's
#: distribution rule sends between the ranks (:data:`COMMUNICATION`) and the bytes
#: (None: unknown)
_comm_rule: list[Callable] = []

#: what an equation's ``comm`` parameter may say: ``none`` (each rank computes its own
#: tile, no message), ``fetch`` (parts of another rank's tile read), ``all_gather``
#: (partial results gathered and combined in rank order: a reduction over the ranks),
#: ``dot_d`` (the general product: fetches, then perhaps an all_gather), ``gather``
#: (a primitive without a rule: the whole of its tiled operands gathered on every rank)
COMMUNICATION = ("none", "fetch", "all_gather", "dot_d", "gather")


def register(rule: Callable, communication: Callable | None = None) -> None:
    """Install the propagation rule and the communication rule (the distributed
    layer's, once)."""
    _rule[:] = [rule]
    if communication is not None:
        _comm_rule[:] = [communication]


def encode(boxes, split_axes, key1d: str | None = None) -> str:
    """The layout fact of tiles ``boxes`` (one per rank) splitting ``split_axes``."""
    head = ("split" + ".".join(map(str, split_axes)) if split_axes else "whole") \
        + f"/{len(boxes)}"
    body = ";".join("x".join(f"{s}:{e}" for s, e in box) for box in boxes)
    return f"{head}={body}" + ("~rows" if key1d == "rows" else "")


def decode(text: str) -> tuple[tuple[Box, ...], str | None] | None:
    """``(boxes, key1d)`` of a layout fact, or None if it gives no boxes."""
    if "=" not in text:
        return None
    body = text.split("=", 1)[1]
    key1d = None
    if body.endswith("~rows"):
        body, key1d = body[:-5], "rows"
    boxes = tuple(tuple(tuple(int(x) for x in span.split(":")) for span in box.split("x"))
                  for box in body.split(";"))
    return boxes, key1d


def summary(text: str | None) -> str | None:
    """The split axes and tile count of a layout fact (``split0/3``)."""
    return None if text is None else text.split("=", 1)[0]


def tiled_facts(eqn: Eqn, facts: list[Facts], values: list) -> Facts | None:
    """The facts of ``eqn``'s value when an operand is a distributed array: the
    registered rule's answer (None when no rule is registered or it does not know)."""
    if not _rule and filled_by is not None:
        importlib.import_module(filled_by)
    return _rule[0](eqn, facts, values) if _rule else None


def communication(eqn: Eqn, facts: list[Facts], values: list
                  ) -> tuple[str, int | None] | None:
    """What ``eqn``'s distribution rule will send between the ranks, one of
    :data:`COMMUNICATION`, and the bytes it moves summed over the ranks (None if not
    known), decided from its operands' layouts before running (None: unknown: the run
    time decides, as without the facts)."""
    if not _comm_rule and filled_by is not None:
        importlib.import_module(filled_by)
    return _comm_rule[0](eqn, facts, values) if _comm_rule else None
