"""Which subtrees cannot communicate: later siblings need not wait for them.

``runtime/comm_order.py`` lets a thunk of a ``fork_join`` communicate only after the
thunks before it in program order have ended, since any of them might communicate.
One that provably cannot is waited for by nobody, so a collective after it starts
while it computes.  The compiled plan says which subtrees are local work: once per
compile, ``compiler/dependencies.mark_local_work`` puts in the scheduler's side table
(``node.choice.local_reads``) the variables a subtree reads when every primitive in it
is pure by the registry's word (no side effects, not higher-order, not a jump, not an
ordered (communicating) primitive) and it defines no function, else None; a node the
compiler did not mark counts as may-communicate.  What the plan cannot know before the
run (it is not specialised by signature) is checked when the subtree is forked: every
variable it reads bound to a plain value (a NumPy array of a non-object dtype, a NumPy
or Python number, a string, None), so no operand is a tiled array and no rule and no
gather fallback runs.  Anything else (a list, which may hold a tiled array; a future;
a function value; a variable of unknown place) counts as may-communicate.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..runtime import comm_order

_PLAIN = (int, float, bool, complex, str, type(None), np.generic)


def cannot_communicate(node: Any, frame: list) -> bool:
    """True if evaluating ``node`` in ``frame`` now cannot communicate (module doc)."""
    reads = node.choice.local_reads
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
