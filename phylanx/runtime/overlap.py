"""Overlapping independent statements of a ``block``.

The compiler (``compiler/dependencies.py``) finds statements ``define(x, V)`` /
``store(x, V)`` whose value ``V`` is pure and whose variable is not used by the
next few statements, and says where the value is needed first (the *join*).
:func:`sequence` builds the block's closure: while the policy has not marked
``V`` asynchronous, statements simply run in order; once it has, the statement
is spawned and the statements up to its join run meanwhile, both under one
``fork_join`` — the same rule for errors and cancellation as everywhere.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from . import comm_order
from .choices import timed_task
from .forkjoin import fork_join
from .nodes import Node
from .policy import watch

_SPAWN_FIRST = (True, False)


def sequence(stmts: Sequence[Node], forks: dict[int, tuple[Node, int]]) -> Callable[[list], Any]:
    """The closure running ``stmts`` in order, value of the last.

    ``forks[i] = (V, j)``: statement ``i`` may run concurrently with statements
    ``i+1 .. j-1`` once ``V`` (the value it computes) is marked asynchronous.
    """
    for value, _ in forks.values():
        if value.choice.eval_direct == -1 and not value.choice.watched:
            watch(value)
    return _build(tuple(stmts), forks, 0, len(stmts))


def _build(stmts, forks, lo: int, hi: int) -> Callable[[list], Any]:
    steps: list[tuple] = []
    i = lo
    while i < hi:
        fork = forks.get(i)
        if fork is not None and i < hi - 1:
            value, join = fork
            join = min(join, hi)
            if join > i + 1:
                steps.append((stmts[i].choice, value.choice,
                              _build(stmts, forks, i + 1, join)))
                i = join
                continue
        steps.append((stmts[i].choice, None, None))
        i += 1
    steps = tuple(steps)

    def run(frame):
        result = None
        # (side-table entries: the statement's, and its value's, which the policy times)
        for stmt, value, rest in steps:
            if value is None:
                result = stmt.call(frame)
            elif value.eval_direct == 0:
                # (the statements up to the join assign nothing the value reads)
                quiet = comm_order.silent((value.node, ), frame)
                result = fork_join((timed_task(value, frame, stmt), partial(rest, frame)),
                                   _SPAWN_FIRST, quiet=quiet and (quiet[0], False))[1]
            else:
                stmt.call(frame)
                result = rest(frame)
        return result
    return run
