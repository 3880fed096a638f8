"""Which subtrees cannot communicate: later siblings need not wait for them.

``runtime/comm_order.py`` lets a thunk of a ``fork_join`` communicate only after the
thunks before it in program order have ended, since any of them might communicate.
One that provably cannot is waited for by nobody, so a collective after it starts
while it computes.  A subtree cannot communicate when every primitive in it is pure
by the registry's word (``compiler.dependencies.primitive_is_pure``: no side effects,
not higher-order, not a jump, not an ordered (communicating) primitive), it defines no
function, and every variable it reads is bound, when it is forked, to a plain value (a
NumPy array of a non-object dtype, a NumPy or Python number, a string, None): then no
operand is a tiled array, so no rule and no gather fallback runs.  Anything else
(a list, which may hold a tiled array; a future; a function value; a variable of
unknown place) counts as may-communicate.  The static part (which variables a
subtree reads, or None) is cached per node outside the plan (a weak dictionary: the
plan stays immutable).
"""
from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from ..compiler.dependencies import primitive_is_pure
from ..runtime import comm_order

_PLAIN = (int, float, bool, complex, str, type(None), np.generic)
_INTERNAL = frozenset(("literal", "access-variable", "array"))
_reads: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_UNSEEN = object()


def _variables(node: Any) -> tuple | None:
    """The variable reads of ``node``'s subtree, or None if it may communicate
    whatever its variables hold."""
    reads = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.is_const:
            continue
        p = n.primitive
        if p == "access-variable":
            if n.variable is None:
                return None
            reads.append(n.variable)
        elif p not in _INTERNAL and not primitive_is_pure(p):
            return None
        stack.extend(n.children)
    return tuple(reads)


def cannot_communicate(node: Any, frame: list) -> bool:
    """True if evaluating ``node`` in ``frame`` now cannot communicate (module doc)."""
    reads = _reads.get(node, _UNSEEN)
    if reads is _UNSEEN:
        reads = _reads[node] = _variables(node)
    if reads is None:
        return False
    for _, owner, slot in reads:
        try:
            value = owner(frame)[slot]
        except (IndexError, TypeError):
            return False
        if type(value) is np.ndarray:
            if value.dtype == object:
                return False
        elif not isinstance(value, _PLAIN):
            return False
    return True


comm_order.register_silent(cannot_communicate)
