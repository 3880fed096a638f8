"""Communication in program order while independent work runs concurrently.

With several localities every rank must start its collectives in the same order, but
which subtree a rank spawns is its own measured choice (``policy.py``).  So instead of
keeping every node in program order (which let nothing overlap), the order of
*communication* is kept: when :func:`enable` was called (the distributed layer does,
with more than one locality), :func:`ordered` wraps the thunks of every ``fork_join``
so that thunk ``i`` may begin communicating (:func:`my_turn`, called by every
communicating operation before it starts) only once thunks ``0 .. i-1`` have finished,
and once its parent may.  Everything a thunk does before its first communication runs
freely, beside the others; a collective started by an earlier thunk is in flight while
later thunks compute.  The order of communication is therefore the order a sequential
run gives (depth first, operands and statements left to right): the same on every
rank, whatever each spawned.  Ranks that still diverge (a branch taken on one rank
only) meet the lockstep check of the operations' labels and numbers: a located error on
every rank (``distributed/lockstep.py``).

A thunk that provably cannot communicate (no ordered primitive, no call of a function
value, every variable it reads bound to a plain value when it is forked: the
distributed layer's :func:`register_silent` check) is waited for by nobody: a
collective after it in program order starts while it computes.

A thunk after one that failed never communicates: it raises ``CancelledError`` at its
turn, whenever that comes (the group's cancellation could reach it on one rank and not
on another).  A thread that, deep in an earlier sibling, claims a later one's task
(helping the pool while it waits for a bare future) hands it to another thread: its
turn would wait for the work beneath it.  Nothing hangs: a thunk waiting for its turn
runs an earlier sibling's task itself if no worker has started it, stops when its group
is cancelled, and fails after twice the ``collective_timeout`` (the earlier sibling's
own collective fails first).
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from .cancel import CancelledError, check
from .executors import get_executor
from .futures import _PENDING, Forward

_on = [False]
class _ThreadState(threading.local):
    #: the markers this thread's work must wait for (none outside concurrent thunks)
    waits: tuple = ()


_here = _ThreadState()
#: the per-thread state :func:`my_turn` reads: a caller on a hot path (every collective)
#: calls it only when ``turn_state.waits`` holds markers (a thread outside concurrent
#: thunks, the common case, has none: nothing to wait for; a class attribute, so that
#: reading it is no ``getattr`` call)
turn_state = _here


class Marker:
    """The end of one thunk of a fork: set when it returns or fails."""

    __slots__ = ("event", "future", "failed", "thread")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.future = None          # its task, if spawned (run here if nobody has)
        self.thread: int | None = None      # the thread running it, once started
        self.failed: BaseException | None = None    # what it raised, once it has


#: seconds a collective may wait (the distributed layer's ``collective_timeout``)
_timeout: list[Callable[[], float]] = [lambda: 60.0]


def enable(on: bool = True, timeout: Callable[[], float] | None = None) -> None:
    """Order communication among concurrent thunks (several localities); ``timeout``
    reads the seconds a collective may wait."""
    _on[0] = on
    if timeout is not None:
        _timeout[0] = timeout


def enabled() -> bool:
    return _on[0]


#: ``check(node, frame) -> bool``: True if evaluating ``node`` in ``frame`` cannot
#: communicate (registered by the distributed layer: ``distributed/local_work.py``)
_silent: list[Callable[[Any, list], bool]] = []


def register_silent(check: Callable[[Any, list], bool]) -> None:
    _silent[:] = [check]


def silent(nodes: Sequence[Any], frame: list) -> list[bool] | None:
    """Per node, True if evaluating it in ``frame`` cannot communicate: later siblings
    need not wait for it (None: nothing registered, or no ordering)."""
    if not (_on[0] and _silent):
        return None
    check = _silent[0]
    return [check(node, frame) for node in nodes]


def ordered(thunks: Sequence[Callable[[], Any]], quiet: Sequence[bool] | None = None
            ) -> tuple[list, list[Marker]]:
    """``thunks`` wrapped so that each waits for its predecessors before communicating,
    and their markers (``fork_join`` gives the spawned ones their futures).  A thunk
    marked ``quiet`` cannot communicate (:func:`silent`): nobody waits for it."""
    base = _here.waits
    markers = [Marker() for _ in thunks]
    for marker, q in zip(markers, quiet or ()):
        if q:
            marker.event.set()

    def wrapped(i: int, thunk: Callable[[], Any]) -> Callable[[], Any]:
        waits = base + tuple(markers[:i])

        def run() -> Any:
            me = threading.get_ident()
            if any(m.thread == me and not m.event.is_set() for m in waits):
                # a helper deep in an earlier sibling claimed it (waiting for a bare
                # future it runs the oldest task): its turn would wait for the work
                # beneath it on this very thread.  Run it on another thread instead.
                return Forward(get_executor().submit(run))
            markers[i].thread = me
            saved = _here.waits
            _here.waits = waits
            try:
                return thunk()
            except BaseException as exc:
                if not (quiet and quiet[i]):    # (nobody waits for a quiet one)
                    markers[i].failed = exc     # before the event: waiters read it after
                raise
            finally:
                _here.waits = saved
                markers[i].event.set()
        return run
    return [wrapped(i, t) for i, t in enumerate(thunks)], markers


def unordered(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` run outside any order (an ``async`` body, as before this module): whichever
    thread claims its task (one waiting for its value, deep in an ordered thunk) must not
    make it wait for that thunk's predecessors, which may be waiting for this value."""
    def run(*args: Any) -> Any:
        saved = _here.waits
        _here.waits = ()
        try:
            return fn(*args)
        finally:
            _here.waits = saved
    return run


def my_turn() -> None:
    """Wait until all the work before this thread's in program order has finished (called
    by an operation before it communicates); immediate outside concurrent thunks."""
    waits = _here.waits
    if not waits:
        return
    limit = 2 * float(_timeout[0]()) + 1.0
    deadline = time.monotonic() + limit
    for marker in waits:
        while not marker.event.is_set():
            future = marker.future
            if future is not None and future._state == _PENDING:
                task = future._claim()
                if task is not None:
                    future._run_claimed(task)      # nobody started it: run it here
                    continue
            left = deadline - time.monotonic()
            if left <= 0:
                from ..errors import PhylanxRuntimeError
                raise PhylanxRuntimeError(
                    f"communication waited {limit:.0f} s for the work before it in "
                    "program order to finish")
            marker.event.wait(min(left, 0.05))
            check()                 # a failed sibling cancelled the group: stop
        if marker.failed is not None:
            # never communicate after a failed predecessor, however late this comes: a
            # rank where the group's cancellation came first would not (out of step)
            raise CancelledError(f"cancelled: {marker.failed!r} before it in program "
                                 "order", marker.failed)
    _here.waits = ()                # (all earlier work is done: no need to look again)
