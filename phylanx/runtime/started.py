"""Collectives started where their operand is ready and waited for where their result is
first read (issue 28 item 2: the start/wait split).

The compiler's overlap plan (``compiler/dependencies.overlap_plan``) says, for a
statement ``define(x, V)`` of a block, the statements that do not read ``x`` before
its first read, the *join*.  With several localities (``comm_order.enabled()``) and a
``V`` whose primitive's distribution rule can end in one collective
(:data:`STARTS`, filled by the distributed layer), ``runtime/overlap.py`` evaluates
the statement in start mode (:func:`startable`): ``V``'s own rule may then start that
collective and give a :class:`Started` instead of waiting for it (the rule asks
:func:`may_start`, true only while the rule of that very node runs, never for a node
beneath it).  The statements up to the join run on the same thread while the collective
is in flight (MPI's progress engine completes it), and the block waits for it just
before the join (:func:`resolve`), storing the value in ``x``'s slot: every read of
``x`` sees a value, never a :class:`Started` (the plan guarantees no statement in
between reads it).

Every rank runs the same plan, so the starts come in program order on every rank, and
the collectives' own agreement checks (labels, numbers, the site) still catch ranks
that diverge; an error of the collective is raised at the wait, located at ``V``
(one this rank alone meets, a timeout or a rank gone, ends the job: the distributed
layer's ``one_rank_errors.end_job_alone``).
Which operand kinds start is the rule's decision from the layouts (the same on every
rank): ``V`` on plain operands gives its value at once, and :func:`resolve` is a no-op.
A timeline being recorded gets a span ``wait <primitive>`` for each wait, so
``phylanx trace`` shows the start (``V``'s node), the collective's span and the wait.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import contextmanager
from time import perf_counter_ns as clock_ns
from typing import Any, Iterator

from ..errors import PhylanxError
from . import hooks

#: primitives whose distribution rule may give a :class:`Started` (distributed layer)
STARTS: set[str] = set()

_here = threading.local()     # .node: the value evaluated in start mode; .now: its rule runs


class Started:
    """A collective in flight and the step that turns its result into the value."""

    __slots__ = ("finish",)

    def __init__(self, finish: Callable[[], Any]) -> None:
        self.finish = finish        # waits for the collective (its timeout), then computes


def may_start_at(node: Any) -> bool:
    """True if ``node``'s primitive may start a collective it is not waited for in."""
    return node.primitive in STARTS


@contextmanager
def startable(node: Any) -> Iterator[None]:
    """While the body runs, ``node``'s own rule may give a :class:`Started`."""
    outer = getattr(_here, "node", None)
    _here.node = node
    try:
        yield
    finally:
        _here.node = outer


def enter_rule(node: Any) -> bool:
    """``node``'s rule begins on this thread (the distributed dispatcher calls it);
    returns the state to give back to :func:`leave_rule`."""
    outer = getattr(_here, "now", False)
    _here.now = getattr(_here, "node", None) is node
    return outer


def leave_rule(outer: bool) -> None:
    _here.now = outer


def set_aside() -> bool:
    """No rule may give a :class:`Started` on this thread until :func:`leave_rule` gets
    the state returned: it may run another task meanwhile (an operation's wait for its
    turn, ``distributed/lockstep.operation``), whose collectives nobody would wait for."""
    outer = getattr(_here, "now", False)
    _here.now = False
    return outer


def may_start() -> bool:
    """True if the rule running now may give a :class:`Started` (module docstring)."""
    return getattr(_here, "now", False)


def starting() -> Any:
    """The node whose rule may give a :class:`Started` now (:func:`may_start`)."""
    return getattr(_here, "node", None)


def resolve(frame: list, statement: Any, value_node: Any) -> None:
    """Wait for a :class:`Started` the statement bound, if it bound one, and store its
    value in the statement's variable; an error is located at ``value_node``."""
    _, owner, slot = statement.variable
    holder = owner(frame)
    pending = holder[slot]
    if type(pending) is not Started:
        return
    recorder = hooks.recorder
    t0 = clock_ns() if recorder is not None else 0
    try:
        holder[slot] = pending.finish()
    except PhylanxError as error:
        raise value_node.locate(error) from None
    except Exception as error:  # noqa: BLE001 - located at the value, as its kernel's
        raise value_node.wrap(error) from error
    finally:
        if recorder is not None:
            recorder.span(f"wait {value_node.primitive}", "wait", t0, clock_ns())


def settle(frame: list, statement: Any, value_node: Any) -> None:
    """A statement before the join failed: the variable still gets its value if the
    collective completes (every rank started it), since a frame that outlives the
    error (a program's globals) must not hold a :class:`Started`; the collective's own
    error, if any, gives way to the one being raised."""
    try:
        resolve(frame, statement, value_node)
    except Exception:  # noqa: BLE001 - the statement's error is the one raised
        pass

