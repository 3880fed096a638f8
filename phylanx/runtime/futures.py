"""Futures that can be completed from any thread, composed, cancelled, and waited on
without deadlock.

A :class:`Future` is completed with :meth:`~Future.set_result`/:meth:`~Future.set_exception`
(or the ``try_`` forms, which report instead of raising when it is already done)
by a pool worker, a progress engine (MPI) or any thread.  Futures compose:
:meth:`~Future.then`, :func:`when_all`, :func:`dataflow`; a future not yet
started can be :meth:`~Future.cancel`-led.

Waiting never blocks a thread the awaited work needs.  :meth:`~Future.result`
first *claims* the future's task and runs it inline if nobody started it;
otherwise, until it is done, it polls the registered progress sources
(``progress.py``) and helps the process's pool (``executors.py``) run queued
tasks.  A helper never takes a task that could delay the awaited one by more
than that one's own work: waiting on a *task*, it runs only tasks spawned
(transitively) by that task, which the task has to wait for anyway; waiting
on a *bare* future (completed by someone else: a queued task, a progress
source), whose completer it cannot know, it runs the oldest queued task, as an
idle worker would — that is what lets a future completed by queued work
finish even when every worker is busy.  A wait for an *external* future (completed by
MPI or another locality: :func:`external`), or one asked not to help
(``result(helping=False)``: a collective's), runs no task: a task it ran could need a
value this thread computes further up its stack and wait for itself; a spare worker of
the pool stands in instead.  A task may return a :class:`Forward` of another future: it
completes as that one does, its thread free meanwhile.  When nothing was done it sleeps 1 ms,
unless a progress source is busy (requests in flight): then it keeps polling,
yielding the core, for up to ``SPIN_SECONDS`` and naps after, each nap twice the last
up to 1 ms (``backoff.py``: a wait of seconds must not take a core another rank needs).
"""
from __future__ import annotations

import logging
import operator
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from ..values import Deferred, array_protocol
from . import backoff, hooks, progress
from .cancel import PENDING, CancelledError, _describe, check, context, interrupt

_PENDING, _RUNNING, _DONE = 0, 1, 2

#: ``help(awaited) -> bool``: run one queued task on behalf of a waiter (set by the pool)
_helper: Callable[[Future], bool] | None = None
#: ``blocking()``: context of a wait that runs no task, a spare worker standing in for
#: the waiting thread (``PoolExecutor.blocking``, set by the pool)
_blocking: Callable[[], Any] | None = None
#: held by the one non-helping waiter that polls the progress sources; the others sleep
#: on their future's event (a hundred threads blocked in collectives, each polling MPI
#: in a loop, took the cores from the work)
_poller = threading.Lock()
#: how long a non-helping waiter that does not poll sleeps between looks (seconds): its
#: future's completion wakes it at once, and the progress thread polls meanwhile
BLOCKED_NAP_SECONDS = 0.02


#: how long a waiter polls without sleeping while a progress source is busy (seconds);
#: bounded so that oversubscribed ranks (``mpiexec -n 4`` on 2 cores) still share a core:
#: then it naps between polls, growing naps up to ``backoff.MAX_NAP_SECONDS``
SPIN_SECONDS = backoff.SPIN_SECONDS
_yield = backoff.yield_core


class FutureTimeoutError(TimeoutError):
    pass


class Future(Deferred):
    """The eventual value of a computation."""

    # _spawned: (thread, time) of the spawn, set only while a timeline is recorded
    # (executors.py); never initialised, so recording off costs nothing here.
    # _source: the future a :func:`forwarded` one completes with, set only there
    __slots__ = ("_state", "_value", "_error", "_lock", "_event", "_callbacks", "_task",
                 "_executor", "_parent", "_token", "_retrieved", "_spawned", "_external",
                 "_source")

    def __init__(self) -> None:
        self._state = _PENDING
        self._value: Any = None
        self._error: BaseException | None = None
        self._lock = threading.Lock()
        self._event: threading.Event | None = None
        self._callbacks: list[Callable[[Future], None]] = []
        self._task: Callable[[], Any] | None = None
        self._executor = None          # set for tasks: the pool that runs them
        self._parent: Future | None = None   # the task that spawned this one
        self._token = None             # cancellation scope the task runs in
        self._retrieved = False        # someone looked at the outcome
        # completed by another process (MPI): waiting for it runs no task (see external)
        self._external = False

    # -- completion -------------------------------------------------------
    def set_result(self, value: Any) -> None:
        if not self._finish(value, None):
            raise RuntimeError("future completed twice")

    def set_exception(self, error: BaseException) -> None:
        if not self._finish(None, error):
            raise RuntimeError("future completed twice")

    def try_set_result(self, value: Any) -> bool:
        """Complete with ``value`` unless already done; True if this call completed it."""
        return self._finish(value, None)

    def try_set_exception(self, error: BaseException) -> bool:
        """Fail with ``error`` unless already done; True if this call completed it."""
        return self._finish(None, error)

    def _finish(self, value: Any, error: BaseException | None) -> bool:
        with self._lock:
            if self._state == _DONE:
                return False
            self._value, self._error, self._state = value, error, _DONE
            self._task = None
            event, callbacks = self._event, self._callbacks
            self._callbacks = []
        if event is not None:
            event.set()
        interrupted = None
        for cb in callbacks:
            try:
                _run_callback(cb, self)
            except BaseException as exc:   # an interrupt (``then``): after the others
                interrupted = interrupted or exc
        if interrupted is not None:
            raise interrupted   # every callback ran: none of their futures stays pending
        return True

    def cancel(self) -> bool:
        """Fail with :class:`CancelledError` if not started yet; False if running or done."""
        with self._lock:
            if self._state != _PENDING:
                return False
            self._task = None
        return self._finish(None, CancelledError("cancelled before it started"))

    def add_done_callback(self, fn: Callable[[Future], None]) -> None:
        """Call ``fn(self)`` when done (now, if already done); its errors are logged,
        never allowed to kill the thread that completed the future."""
        with self._lock:
            if self._state != _DONE:
                self._callbacks.append(fn)
                return
        _run_callback(fn, self)

    def then(self, fn: Callable[[Future], Any]) -> Future:
        """A future of ``fn(self)``, called once this one is done (HPX ``then``).

        ``fn`` runs on the thread that completes this future (or at once if it is
        done): keep it short, or spawn inside it.  Its exception fails the result; a
        ``KeyboardInterrupt``/``SystemExit`` fails it with :class:`CancelledError` and
        propagates in that thread (see :meth:`_interrupted`).
        """
        out = Future()

        def cont(done: Future) -> None:
            try:
                value = fn(done)
            except Exception as exc:  # noqa: BLE001 - delivered through ``out``
                out.try_set_exception(exc)
            except BaseException as exc:
                out._interrupted(exc)   # else ``out`` stayed pending for ever
                raise
            else:
                out.try_set_result(value)
        self.add_done_callback(cont)
        return out

    # -- task claiming (used by executors) --------------------------------
    def _claim(self) -> Callable[[], Any] | None:
        """Take the task for running; None if someone else already did."""
        if self._state != _PENDING:
            return None
        with self._lock:
            if self._state != _PENDING or self._task is None:
                return None
            self._state = _RUNNING
            task, self._task = self._task, None
            return task

    def _run_claimed(self, task: Callable[[], Any]) -> None:
        """Run a claimed task as this thread's current task, in its cancellation scope.

        A ``KeyboardInterrupt`` (or ``SystemExit``) is never stored: see
        :meth:`_interrupted`.
        """
        ctx = context
        prev_task, prev_token = ctx.task, ctx.token
        ctx.task, ctx.token = self, self._token
        rec = hooks.recorder             # a timeline is being recorded: time the task
        t0 = time.perf_counter_ns() if rec is not None else 0
        try:
            if PENDING[0]:
                check()      # a task of a failed or interrupted group does not start
            value = task()
        except Exception as exc:  # noqa: BLE001 - delivered to the waiter
            self._fail(exc)
        except BaseException as exc:
            self._interrupted(exc)
            raise
        else:
            if type(value) is Forward:
                value.future.add_done_callback(lambda done: self._forwarded(done, value))
            else:
                self._finish(value, None)
        finally:
            ctx.task, ctx.token = prev_task, prev_token
            if rec is not None:
                rec.ran(self, task, t0)

    def _interrupted(self, exc: BaseException) -> None:
        """Complete after ``exc`` (``KeyboardInterrupt``, ``SystemExit``...) stopped the
        work computing this future; the caller then re-raises ``exc``.

        Unlike ``concurrent.futures`` (whose ``_WorkItem.run`` stores any
        ``BaseException`` in the future and swallows it), an interrupt is never stored:
        the future fails with :class:`CancelledError` so nobody waits for ever, every
        open scope is cancelled on Ctrl-C, and the interrupt propagates in the thread
        that met it (cancel.py).
        """
        self._finish(None, CancelledError(_describe(exc), exc))
        if isinstance(exc, KeyboardInterrupt):
            interrupt(exc)

    def _fail(self, exc: Exception) -> None:
        token = self._token
        if token is not None and token.error is None and type(exc) is not CancelledError:
            token.cancel(exc)   # the first failure stops the task's group
        self._finish(None, exc)

    def _forwarded(self, done: Future, forward: Forward) -> None:
        """Complete this task as ``forward.future`` completed (see :class:`Forward`)."""
        error = done._error
        if error is None:
            self._finish(done._value, None)
            return
        if forward.on_error is not None and isinstance(error, Exception):
            try:
                error = forward.on_error(error)
            except Exception as exc:  # noqa: BLE001 - a broken converter still fails us
                error = exc
        if isinstance(error, Exception):
            self._fail(error)
        else:
            self._finish(None, error)

    # -- waiting ----------------------------------------------------------
    def done(self) -> bool:
        return self._state == _DONE

    def result(self, timeout: float | None = None, helping: bool = True) -> Any:
        """The value (or the exception raised); ``helping=False``: run no queued task
        while waiting, a spare worker standing in for this thread (as for an
        :func:`external` future)."""
        if self._state != _DONE:
            self._wait(timeout, helping)
        self._retrieved = True
        if self._error is not None:
            try:
                raise self._error
            finally:
                # this frame, in the error's traceback, would hold the future, which holds
                # the error: a cycle, kept (with the failed operation's frames and arrays)
                # until the cyclic GC ran (as concurrent.futures does)
                self = None
        return self._value

    get = result  # the original's primitive_argument_future.get()

    def exception(self, timeout: float | None = None) -> BaseException | None:
        if self._state != _DONE:
            self._wait(timeout)
        self._retrieved = True
        return self._error

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until done (helping meanwhile); False on timeout instead of raising."""
        try:
            if self._state != _DONE:
                self._wait(timeout)
        except FutureTimeoutError:
            return False
        return True

    def _wait(self, timeout: float | None, helping: bool = True) -> None:
        task = self._claim()
        if task is not None:  # nobody started it: run it here, no thread is blocked
            self._run_claimed(task)
            if self._state == _DONE:
                return       # (else the task forwarded its outcome: wait for that)
        source = getattr(self, "_source", None)
        if source is not None and source._external and source._state != _DONE:
            # waited for as its source is: an MPI operation's future drives the engine
            # itself, ``MPI_Wait`` for a request every rank started (``progress.py``),
            # where a generic poll loop tests it between naps (the data-parallel step's
            # gradients: 1-2 MB each, moved at a test per poll).  External sources only:
            # their wait runs no queued task, as this one's would not
            source._wait(timeout, helping)
            if self._state == _DONE:
                return       # (else a callback on another thread completes it now)
        block = _blocking if self._external or not helping else None
        if block is not None:
            with block():
                self._poll(timeout, False)
        else:
            self._poll(timeout, helping and not self._external)

    def _poll(self, timeout: float | None, helping: bool) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            if self._state == _DONE:
                return
            if self._event is None:
                self._event = threading.Event()
            event = self._event
        pacing = None       # (a Backoff once a busy source made this wait spin)
        while not event.is_set():
            polling = helping or _poller.acquire(False)
            try:
                # drive external completions, then help the pool, then sleep briefly
                if polling and progress._sources and progress.poll():
                    if pacing is not None:
                        pacing.reset()   # (the next phase: spin first again, as drive does)
                    continue
                helper = _helper if helping else None
                if helper is not None and helper(self):
                    continue
                now = time.monotonic()
                remaining = None if deadline is None else deadline - now
                if remaining is not None and remaining <= 0:
                    raise FutureTimeoutError("timed out waiting for a future")
                nap = 0.001 if polling else BLOCKED_NAP_SECONDS
                if polling and progress._busy and progress.busy():
                    # MPI advances a request only while it is tested: a 1 ms nap per
                    # test costs a millisecond per message round.  Spin (yielding the
                    # GIL and the core) for a bounded time, then nap, briefly at first.
                    if pacing is None:
                        pacing = backoff.Backoff(SPIN_SECONDS)
                    nap = pacing.pause(now)
                    if nap == 0.0:
                        _yield()
                        continue
            finally:
                if polling and not helping:
                    _poller.release()
            event.wait(nap if remaining is None else min(nap, remaining))

    # -- used as its value ------------------------------------------------
    # ``async`` values are "resolved when consumed" (§3 of the reference).  Numeric
    # conversions (``__array__``, ``__float__``, ``__index__``...) are explicit
    # requests for the value and wait for it.  Truth tests and comparisons do not
    # wait (a hidden wait inside ``==`` or ``if f:`` in runtime code could hang): they
    # raise TypeError.  Kernels never see a future: the node's closure waits for it
    # first (nodes.dispatch_operands), and ``values.truth`` resolves.
    def __bool__(self) -> bool:
        raise TypeError("the truth value of a future is its value's: resolve it first")

    def _no_compare(self, other):
        raise TypeError("a future cannot be compared before it is resolved")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _no_compare
    __hash__ = object.__hash__   # identity (futures sit in queues and sets)

    def __array__(self, dtype=None, copy=None):
        # np.array(f) gets an array of its own: other readers share the future's value
        return array_protocol(self.result(), dtype, copy)

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

    def __repr__(self) -> str:
        state = ("pending", "running", "done")[self._state]
        return f"<Future {state}>"


class Forward:
    """What a task returns to say "my future completes when ``future`` does", with its
    value or error (HPX's implicit unwrapping of a task returning a future).

    The task's thread is free at once: ``async(all_reduce(x))`` starts the collective
    and returns, and MPI's progress completes the ``async`` value.  Nothing on any
    thread's stack then stands between the collective and its consumers, so consumers
    waiting for it can never wait for themselves.  ``on_error(exc)`` turns the
    awaited future's exception into the one the task fails with (to locate it).
    """

    __slots__ = ("future", "on_error")

    def __init__(self, future: Future,
                 on_error: Callable[[Exception], BaseException] | None = None) -> None:
        self.future, self.on_error = future, on_error


def forwarded(forward: Forward) -> Future:
    """A future completing as ``forward.future`` does (errors through
    ``forward.on_error``), without a task: what :class:`Forward` does for a task, for a
    collective started on the calling thread.  External: waiting for it runs no task."""
    future = Future()
    future._external = True
    future._token = context.token     # its failure stops the scope, as a task's does
    future._source = forward.future
    forward.future.add_done_callback(lambda done: future._forwarded(done, forward))
    return future


def _run_callback(fn: Callable[[Future], None], future: Future) -> None:
    try:
        fn(future)
    except Exception:  # noqa: BLE001 - a callback's bug must not take a worker down
        logging.getLogger("phylanx.runtime").exception("a future's done-callback raised")


def external() -> Future:
    """A future that another process completes (an MPI operation, a remote call): a
    thread waiting for it runs no queued task meanwhile (one could need a value this
    thread computes further up its stack, and wait for itself: an ``async`` collective
    needed by two statements), a spare worker standing in for it."""
    f = Future()
    f._external = True
    return f


def ready(value: Any) -> Future:
    """A future that already holds ``value``."""
    f = Future.__new__(Future)      # (no __init__: see _settled)
    f._state, f._value, f._error, f._lock, f._event = _DONE, value, None, _SETTLED_LOCK, None
    f._callbacks, f._task, f._executor, f._parent, f._token = [], None, None, None, None
    f._retrieved = f._external = False
    return f


def failed(error: BaseException) -> Future:
    """A future that already holds the exception ``error``."""
    return _settled(None, error)


#: the lock of every future created done: nothing about it changes any more, so what
#: its lock guards (a completion, a callback added) finds it done at once; one shared
#: (reentrant: a thread may hold it for one such future and take it for another)
#: instead of a lock allocated per future, on the path of every express collective
_SETTLED_LOCK = threading.RLock()


def _settled(value: Any, error: BaseException | None) -> Future:
    f = Future.__new__(Future)
    f._state, f._value, f._error, f._lock, f._event = _DONE, value, error, _SETTLED_LOCK, None
    f._callbacks, f._task, f._executor, f._parent, f._token = [], None, None, None, None
    f._retrieved = f._external = False
    return f


def when_all(futures: Iterable[Future]) -> Future:
    """A future of the list of ``futures``, done when every one of them is (HPX ``when_all``).

    It never fails: inspect the futures it holds.
    """
    items = list(futures)
    out = Future()
    if not items:
        out.set_result(items)
        return out
    left = [len(items)]
    lock = threading.Lock()

    def one_done(_: Future) -> None:
        with lock:
            left[0] -= 1
            last = left[0] == 0
        if last:
            out.try_set_result(items)
    for f in items:
        f.add_done_callback(one_done)
    return out


def dataflow(fn: Callable[..., Any], *args: Any) -> Future:
    """A future of ``fn(*values)``, called once every future among ``args`` is done.

    Arguments that are not futures are passed as they are; the first failed
    argument (in order) fails the result and ``fn`` is not called.  ``fn`` runs on
    the thread that completes the last argument.
    """
    futures = [a for a in args if type(a) is Future]

    def call(_: Future) -> Any:
        for f in futures:
            if f._error is not None:
                f._retrieved = True
                raise f._error
        return fn(*[a._value if type(a) is Future else a for a in args])
    return when_all(futures).then(call)


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


def waited(value: Any) -> Any:
    """The value of ``value`` if it is a future (waited for; a future's value may be a
    future again: ``async(async(1))``, a function returning ``async``), else ``value``.
    Containers never hold futures (:func:`gathered`): nothing inside is looked at."""
    while type(value) is Future:
        value = value.result()
    return value


def gathered(items: list) -> Any:
    """``items`` if none of them is a future, else a future of the list of their values,
    done when every one of them is: a container never holds a future (the runtime
    dispatches operands by kind, ``nodes.py``, and tests only the top level).  What a
    builder (``list``) or a higher-order primitive collecting results returns.

    The first failed item (in order) fails it; it is external if an item is (waiting for
    it then runs no task, as waiting for that item would not)."""
    futures = [v for v in items if type(v) is Future]
    if not futures:
        return items
    out = Future()
    out._external = any(f._external for f in futures)
    left = [len(futures)]
    lock = threading.Lock()

    def one_done(_: Future) -> None:
        with lock:
            left[0] -= 1
            if left[0]:
                return
        for f in futures:
            if f._error is not None:
                f._retrieved = True
                out.try_set_exception(f._error)
                return
        values = [v._value if type(v) is Future else v for v in items]
        # an item's value may be a future again (``async(async(1))``): its list too
        nested = gathered(values)
        if type(nested) is Future:
            nested.add_done_callback(
                lambda done: out.try_set_exception(done._error) if done._error is not None
                else out.try_set_result(done._value))
        else:
            out.try_set_result(values)
    for f in futures:
        f.add_done_callback(one_done)
    return out


def all_done(value: Any) -> bool:
    """True if every future in ``value`` (a future, or lists/tuples/dicts holding them
    at any depth) is done; a value without futures is."""
    t = type(value)
    if t is Future:
        return value.done()
    if t is list or t is tuple:
        return all(all_done(v) for v in value)
    if t is dict:
        return all(all_done(v) for v in value.values())
    return True


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
