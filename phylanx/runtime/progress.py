"""Progress sources: things a waiting thread polls so that external futures complete.

A future completed from outside the thread pool (an MPI request, a remote
call, a timer) needs somebody to drive it.  A *progress source* is a function
``poll() -> bool`` that does a bounded amount of such work (``MPI.Request.Testsome``,
reading a socket) and says whether it completed anything.  Every thread that
waits on a future calls :func:`poll` between its attempts to help the pool,
so a rank whose workers all wait on communication still makes progress::

    from phylanx.runtime import progress

    def poll_mpi() -> bool:
        return engine.test_some()      # completes the futures of finished requests

    progress.register(poll_mpi)

Sources must be cheap, non-blocking and thread-safe (several waiters may poll
at once); an exception a source raises is logged and the source is removed,
so one broken source cannot hang or crash every waiter.

A source may also say that it has work *in flight* (``register(poll, busy=...)``):
MPI advances a non-blocking collective only while it is tested, so a waiter whose
poll completed nothing keeps polling (yielding the GIL and the core, for a bounded
time: ``futures.Future._wait``) instead of sleeping while :func:`busy` is true.
"""
from __future__ import annotations

import logging
from collections.abc import Callable

_sources: tuple[Callable[[], bool], ...] = ()   # replaced, never mutated: lock-free reads
_busy: dict[Callable[[], bool], Callable[[], bool]] = {}   # poll -> its busy() query


def register(poll: Callable[[], bool], busy: Callable[[], bool] | None = None) -> None:
    """Poll ``poll()`` whenever a thread waits on a future (idempotent); ``busy()``,
    if given, says whether the source has work in flight that polling advances."""
    global _sources
    if busy is not None:
        _busy[poll] = busy
    if poll not in _sources:
        _sources = _sources + (poll,)


def unregister(poll: Callable[[], bool]) -> None:
    """Stop polling ``poll`` (no error if it was not registered)."""
    global _sources
    _sources = tuple(s for s in _sources if s is not poll)
    _busy.pop(poll, None)


def sources() -> tuple[Callable[[], bool], ...]:
    return _sources


def busy() -> bool:
    """True if some source has work in flight (polling it again may complete it)."""
    for query in tuple(_busy.values()):
        try:
            if query():
                return True
        except Exception:  # noqa: BLE001 - a broken query only stops the spinning
            logging.getLogger("phylanx.runtime").exception("busy query %r raised", query)
            _busy.pop(next((p for p, q in tuple(_busy.items()) if q is query), None), None)
    return False


def poll() -> bool:
    """Poll every source once; True if any made progress."""
    progressed = False
    for source in _sources:
        try:
            if source():
                progressed = True
        except Exception:  # noqa: BLE001 - a broken source must not hang every waiter
            logging.getLogger("phylanx.runtime").exception(
                "progress source %r raised; it is unregistered", source)
            unregister(source)
    return progressed
