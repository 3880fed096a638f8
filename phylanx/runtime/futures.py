"""Futures that can be completed from any thread, and waited on without deadlock.

A :class:`Future` is completed with :meth:`set_result`/:meth:`set_exception`
(by a pool worker, or by a communication progress engine on another thread).
Waiting inside a pool worker never blocks a thread that the awaited work
needs: :meth:`result` first tries to *claim* the task and run it inline, then
helps the executor run other queued tasks while it waits.
"""
from __future__ import annotations

import logging
import operator
import threading
import time
from collections.abc import Callable
from typing import Any

from ..values import Deferred, truth

_PENDING, _RUNNING, _DONE = 0, 1, 2


class FutureTimeoutError(TimeoutError):
    pass


class Future(Deferred):
    """The eventual value of a computation."""

    __slots__ = ("_state", "_value", "_error", "_lock", "_event", "_callbacks", "_task",
                 "_executor")

    def __init__(self) -> None:
        self._state = _PENDING
        self._value: Any = None
        self._error: BaseException | None = None
        self._lock = threading.Lock()
        self._event: threading.Event | None = None
        self._callbacks: list[Callable[[Future], None]] = []
        self._task: Callable[[], Any] | None = None
        self._executor = None

    # -- completion -------------------------------------------------------
    def set_result(self, value: Any) -> None:
        self._finish(value, None)

    def set_exception(self, error: BaseException) -> None:
        self._finish(None, error)

    def _finish(self, value: Any, error: BaseException | None) -> None:
        with self._lock:
            if self._state == _DONE:
                raise RuntimeError("future completed twice")
            self._value, self._error, self._state = value, error, _DONE
            self._task = None
            event, callbacks = self._event, self._callbacks
            self._callbacks = []
        if event is not None:
            event.set()
        for cb in callbacks:
            _run_callback(cb, self)

    def add_done_callback(self, fn: Callable[[Future], None]) -> None:
        """Call ``fn(self)`` when done (now, if already done); its errors are logged,
        never allowed to kill the thread that completed the future."""
        with self._lock:
            if self._state != _DONE:
                self._callbacks.append(fn)
                return
        _run_callback(fn, self)

    # -- task claiming (used by executors) --------------------------------
    def _claim(self) -> Callable[[], Any] | None:
        """Take the task for running; None if someone else already did."""
        with self._lock:
            if self._state != _PENDING or self._task is None:
                return None
            self._state = _RUNNING
            task, self._task = self._task, None
            return task

    def _run_claimed(self, task: Callable[[], Any]) -> None:
        try:
            value = task()
        except BaseException as exc:  # noqa: BLE001 - delivered to the waiter
            self._finish(None, exc)
        else:
            self._finish(value, None)

    # -- waiting ----------------------------------------------------------
    def done(self) -> bool:
        return self._state == _DONE

    def result(self, timeout: float | None = None) -> Any:
        if self._state != _DONE:
            self._wait(timeout)
        if self._error is not None:
            raise self._error
        return self._value

    get = result  # the original's primitive_argument_future.get()

    def exception(self, timeout: float | None = None) -> BaseException | None:
        if self._state != _DONE:
            self._wait(timeout)
        return self._error

    def _wait(self, timeout: float | None) -> None:
        task = self._claim()
        if task is not None:  # nobody started it: run it here, no thread is blocked
            self._run_claimed(task)
            return
        deadline = None if timeout is None else time.monotonic() + timeout
        executor = self._executor
        with self._lock:
            if self._state == _DONE:
                return
            if self._event is None:
                self._event = threading.Event()
            event = self._event
        while not event.is_set():
            # help: run other queued work instead of idling (keeps recursion on a
            # small pool deadlock-free)
            if executor is not None and executor.help_once():
                continue
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise FutureTimeoutError("timed out waiting for a future")
            event.wait(0.001 if remaining is None else min(0.001, remaining))

    # -- used as its value ------------------------------------------------
    # ``async`` values are "resolved when consumed" (§3 of the reference).  Kernels
    # that reject a future are retried with its value (nodes.node_failed); the
    # conversions below make the rest see the value instead of silently using the
    # future object: NumPy (``__array__``, ``__float__``, ``__index__``), truth
    # tests and comparisons, which Python would otherwise answer by identity.
    def __bool__(self) -> bool:
        return truth(self.result())

    def __array__(self, dtype=None, copy=None):
        import numpy as np
        return np.asarray(self.result(), dtype=dtype)

    def __float__(self) -> float:
        return float(self.result())

    def __int__(self) -> int:
        return int(self.result())

    def __index__(self) -> int:
        return operator.index(self.result())

    def __complex__(self) -> complex:
        return complex(self.result())

    def __format__(self, spec: str) -> str:
        return format(self.result(), spec)

    def __eq__(self, other):
        return self.result() == resolve(other)

    def __ne__(self, other):
        return self.result() != resolve(other)

    def __lt__(self, other):
        return self.result() < resolve(other)

    def __le__(self, other):
        return self.result() <= resolve(other)

    def __gt__(self, other):
        return self.result() > resolve(other)

    def __ge__(self, other):
        return self.result() >= resolve(other)

    __hash__ = object.__hash__   # identity, as before (futures sit in queues)

    def __repr__(self) -> str:
        state = ("pending", "running", "done")[self._state]
        return f"<Future {state}>"


def _run_callback(fn: Callable[[Future], None], future: Future) -> None:
    try:
        fn(future)
    except Exception:  # noqa: BLE001 - a callback's bug must not take a worker down
        logging.getLogger("phylanx.runtime").exception("a future's done-callback raised")


def ready(value: Any) -> Future:
    """A future that already holds ``value``."""
    f = Future()
    f._state = _DONE
    f._value = value
    return f


def resolve(value: Any) -> Any:
    """The value itself, or the result of a future."""
    return value.result() if type(value) is Future else value


def resolve_deep(value: Any) -> Any:
    """Like :func:`resolve`, also inside lists, tuples and dictionaries (``list(async(1))``)."""
    t = type(value)
    if t is Future:
        return resolve_deep(value.result())
    if t is list or t is tuple:
        items = [resolve_deep(v) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value      # nothing to resolve: keep the very object (aliasing)
        return items if t is list else tuple(items)
    if t is dict:
        items = {k: resolve_deep(v) for k, v in value.items()}
        return value if all(items[k] is v for k, v in value.items()) else items
    return value


def holds_future(value: Any) -> bool:
    """True if ``value`` is a future or a list/tuple/dict holding one (at any depth)."""
    t = type(value)
    if t is Future:
        return True
    if t is list or t is tuple:
        return any(holds_future(v) for v in value)
    if t is dict:
        return any(holds_future(v) for v in value.values())
    return False
