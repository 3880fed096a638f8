"""Overlapping independent statements of a ``block``.

The compiler (``compiler/dependencies.py``) finds statements ``define(x, V)`` /
``store(x, V)`` whose value ``V`` is pure and whose variable is not used by the
next few statements, and says where the value is needed first (the *join*).
:func:`sequence` builds the block's closure: while the policy has not marked
``V`` asynchronous, statements simply run in order; once it has, the statement
is spawned and the statements up to its join run meanwhile, both under one
``fork_join`` — the same rule for errors and cancellation as everywhere.

With several localities, a statement whose value may end in a collective
(``started.may_start_at``: a tiled ``x.T @ r``, a sum over the split axis) runs in
start mode instead of waiting for the policy (even if the policy would spawn it,
unless it provably sends nothing now: ``comm_order.silent``):
the collective is started on this thread, the statements up to the join run while it
is in flight, and it is waited for just before the join (``started.py``).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from . import comm_order, started
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
                              _build(stmts, forks, i + 1, join),
                              stmts[i] if started.may_start_at(value) else None))
                i = join
                continue
        steps.append((stmts[i].choice, None, None, None))
        i += 1
    steps = tuple(steps)

    def run(frame):
        result = None
        # (side-table entries: the statement's, and its value's, which the policy times)
        for stmt, value, rest, starts in steps:
            if value is None:
                result = stmt.call(frame)
            elif starts is not None and comm_order.enabled() and (
                    value.eval_direct != 0 or _may_communicate(value.node, frame)):
                # start its collective here, run the statements up to the join while it
                # is in flight, wait for it before the join (started.py)
                with started.startable(value.node):
                    stmt.call(frame)
                try:
                    result = rest(frame)
                except BaseException:
                    started.settle(frame, starts, value.node)
                    raise
                started.resolve(frame, starts, value.node)
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


def _may_communicate(node: Node, frame: list) -> bool:
    """False if evaluating ``node`` now provably sends nothing (``comm_order.silent``):
    a statement that may communicate runs in start mode even if the policy would spawn
    it (its collective needs no thread while in flight); one that cannot is spawned."""
    quiet = comm_order.silent((node, ), frame)
    return not (quiet and quiet[0])
