"""Cancellation: tokens that stop a group of tasks together, and Ctrl-C.

Every ``fork_join`` (and every top-level evaluation) opens a :class:`Token`;
the tasks it spawns, and the part it runs itself, run with that token as the
thread's *current token*.  Tokens nest (a fork inside a task links to the
task's token), so cancelling one stops everything below it.

Checking must cost nothing when nobody cancels: loops and task starts first
read ``PENDING[0]`` (a list item, one subscript), which is non-zero only while
some token is cancelled and its work may still run; only then does
:func:`check` look at the thread's token chain and raise
:class:`CancelledError` — at the next loop iteration, task start or fork of a
branch whose group failed.

A ``KeyboardInterrupt`` is never stored in a future: whoever sees it calls
:func:`interrupt` (cancel every open token, drop every queued task) and lets it
propagate, so Ctrl-C stops all threads within one loop iteration.  A long
NumPy kernel cannot be stopped in the middle; it is the unit of cancellation.
"""
from __future__ import annotations

import threading
from collections.abc import Callable

from ..errors import PhylanxRuntimeError

#: non-zero while a cancelled token is open: the one test on hot paths
PENDING = [0]

_lock = threading.Lock()
_live: set[Token] = set()                   # open tokens (for interrupt)
_on_interrupt: list[Callable[[], None]] = []  # the executor's queue drain


class CancelledError(PhylanxRuntimeError):
    """Work that was stopped because its group failed or the process was interrupted."""

    def __init__(self, message: str = "cancelled", cause: BaseException | None = None):
        super().__init__(message, None, None)
        self.cause = cause


class Token:
    """A cancellation scope; ``orphans`` collects ``async`` futures spawned in it;
    ``state`` holds per-evaluation values (``runtime/evaluation.py``)."""

    __slots__ = ("parent", "error", "orphans", "closed", "state")

    def __init__(self, parent: Token | None = None) -> None:
        self.parent = parent
        self.error: BaseException | None = None
        self.orphans: list | None = None
        self.closed = False      # close_token ran: PENDING no longer counts this token
        # values of the evaluation this scope belongs to (runtime/evaluation.py)
        self.state: dict | None = None

    def cancel(self, reason: BaseException) -> bool:
        """Cancel this scope (and all below it); False if it already was.

        A closed scope records the reason but does not raise ``PENDING``: its
        ``close_token`` has run and would never lower it again (a late task failing
        after its group was joined left every hot path checking for ever).
        """
        with _lock:
            if self.error is not None:
                return False
            self.error = reason
            if not self.closed:
                PENDING[0] += 1
        return True

    def reason(self) -> BaseException | None:
        """Why this token (or one above it) was cancelled; None if it was not."""
        token = self
        while token is not None:
            if token.error is not None:
                return token.error
            token = token.parent
        return None


class _Context(threading.local):
    token: Token | None = None     # the scope the thread works for
    task = None                    # the Future whose task the thread runs (None: not a task)


context = _Context()


def current() -> Token | None:
    return context.token


def open_token(parent: Token | None) -> Token:
    token = Token(parent)
    _live.add(token)
    return token


def close_token(token: Token) -> None:
    """The scope's work is over: it no longer needs to be cancellable."""
    _live.discard(token)
    # under the lock, so that a cancel racing with the close counts exactly once
    with _lock:
        if token.closed:
            return
        token.closed = True
        if token.error is not None:
            PENDING[0] -= 1


def check() -> None:
    """Raise :class:`CancelledError` if the thread's current token was cancelled.

    Call it only when ``PENDING[0]`` is set (the cheap test callers make first).
    """
    token = context.token
    if token is not None:
        reason = token.reason()
        if reason is not None:
            raise CancelledError(_describe(reason), reason)


def _describe(reason: BaseException) -> str:
    if isinstance(reason, KeyboardInterrupt):
        return "cancelled: interrupted (KeyboardInterrupt)"
    if isinstance(reason, CancelledError):
        return str(reason)
    return "cancelled: another branch failed"


def interrupt(reason: BaseException | None = None) -> None:
    """Ctrl-C: cancel every open scope and drop every queued task (idempotent enough:
    a second call cancels what opened since)."""
    reason = reason if reason is not None else KeyboardInterrupt()
    for token in list(_live):
        token.cancel(reason)
    for drain in _on_interrupt:
        drain()


def on_interrupt(fn: Callable[[], None]) -> None:
    """Run ``fn()`` on :func:`interrupt` (the executor drops its queue)."""
    _on_interrupt.append(fn)
