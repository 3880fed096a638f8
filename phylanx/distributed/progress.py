"""The progress engine: completes outstanding MPI requests and resumes what waits on them.

Communication is written as *operations*: generator functions that start a
non-blocking MPI call, ``yield`` its request and continue (or return their value)
when the request is complete.  :meth:`ProgressEngine.start` runs such a generator
and returns a phylanx ``Future``; the engine tests all outstanding requests with
``Request.Testsome`` and steps the generators whose request completed.

Who calls the test loop (``poll``)?  Both, measured with
``mpiexec -n 2 python benchmarks/progress.py`` (2 shared cores, oversubscribed):

* a progress thread that polls, yielding the GIL between polls (``sched_yield``
  while requests are in flight, for up to 5 ms, then 0.2 ms naps; sleeps with
  back-off when idle), and
* waiting threads polling from their wait loop (the runtime's progress-source hook,
  ``phylanx.runtime.progress.register``, with :meth:`ProgressEngine.busy` so that a
  waiter keeps testing in-flight requests instead of sleeping 1 ms).

MPICH advances a non-blocking collective only while it is tested, so a nap between
tests delays every round of the collective's algorithm by that nap.

Waiting threads polling is faster (lower latency: a waiter spins on ``poll`` while
the thread naps with back-off so as not to steal an oversubscribed core); typical
numbers on 2 shared cores: 450-690 us per small all_reduce with waiter polling,
860-2400 us with the thread alone (details in ``docs/distributed.md``).  So both
run: waiters poll through the runtime's progress sources (``progress_polling=wait``,
the default, once the runtime has that hook), and the thread stays, because a
collective has several phases (header check, size exchange, data) and another rank
may need this rank to start the next phase while nobody here waits on the future.

Every operation has a deadline: an operation still running after it fails with a
located error instead of hanging (the request itself is left to MPI).  An operation
can also be abandoned sooner (:meth:`ProgressEngine.abandon`: a rank it waits for has
left the program); either way MPI may still hold its requests, so :attr:`abandoned`
tells the shutdown not to finalize MPI.
"""
from __future__ import annotations

import collections
import os
import threading
import time
from collections.abc import Callable, Generator
from typing import Any

from ..runtime.futures import Future, external
from .interrupts import cancelled, each, guarded
from .mpi import MPI, mpi_lock

#: an operation yields MPI requests and returns its value
Operation = Generator[Any, None, Any]

_IDLE_SLEEP_MAX = 0.002   # seconds: the longest nap of an idle progress thread
_BUSY_SPIN = 0.005        # seconds the thread keeps testing in-flight requests unslept
_BUSY_NAP = 0.0002        # then its nap between tests while requests stay in flight
#: gives up the GIL and the core without sleeping (``time.sleep(0)`` sleeps ~60-130 us
#: under load: Linux's timer slack)
_yield = getattr(os, "sched_yield", lambda: time.sleep(0))


def _register_progress(poll: Callable[[], bool],
                       busy: Callable[[], bool]) -> Callable[[], None]:
    """Have ``poll`` called regularly; returns a function that stops it.

    Uses the runtime's progress-source registry (waiting threads poll it) *and* a
    thread of our own, which keeps multi-phase operations
    moving when nobody on this rank waits (see the module docstring).
    """
    stops: list[Callable[[], None]] = []
    from ..runtime import progress as runtime_progress
    from . import settings
    if settings.get("progress_polling") == "wait":
        runtime_progress.register(poll, busy)
        stops.append(lambda: runtime_progress.unregister(poll))
    stops.append(_start_polling_thread(poll, busy))

    def stop() -> None:
        for s in stops:
            s()
    return stop


def _start_polling_thread(poll: Callable[[], bool],
                          busy: Callable[[], bool]) -> Callable[[], None]:
    stopping = threading.Event()

    def loop() -> None:
        nap = 0.0
        spin_until = None
        while not stopping.is_set():
            # an interrupt from a callback this poll ran is reported, the thread goes on
            if guarded(poll):
                nap, spin_until = 0.0, None
                _yield()               # let the threads we just woke run (GIL)
                continue
            if busy():
                # requests in flight: MPI advances them only while tested, so keep
                # testing (yielding) for a bounded time, then test every BUSY_NAP
                now = time.monotonic()
                if spin_until is None:
                    spin_until = now + _BUSY_SPIN
                if now < spin_until:
                    _yield()
                else:
                    time.sleep(_BUSY_NAP)
                nap = 0.0
                continue
            spin_until = None
            # idle: back off so that an oversubscribed core goes to the other ranks
            nap = min(_IDLE_SLEEP_MAX, nap * 2 or 0.00005)
            time.sleep(nap)

    thread = threading.Thread(target=loop, name="phylanx-mpi-progress", daemon=True)
    thread.start()

    def stop() -> None:
        stopping.set()
        thread.join(timeout=1.0)
    return stop


class _Running:
    """One operation in flight: its generator, its future and its deadline."""

    __slots__ = ("operation", "future", "deadline", "describe", "on_finish", "finished", "tag")

    def __init__(self, operation: Operation, future: Future, deadline: float,
                 describe: Callable[[], BaseException], on_finish, tag: Any = None):
        self.operation = operation
        self.future = future
        self.deadline = deadline
        self.describe = describe
        self.on_finish = on_finish
        self.finished = False
        self.tag = tag          # what the caller wants to know about it later


class ProgressEngine:
    """Tests outstanding requests and steps the operations waiting on them."""

    def __init__(self) -> None:
        self._incoming: collections.deque[tuple[Any, _Running]] = collections.deque()
        self._requests: list[Any] = []
        self._waiting: list[_Running] = []
        self._running: set[_Running] = set()
        self._poll_lock = threading.Lock()   # one poller at a time; others skip
        self._finish_lock = threading.Lock()
        self._next_deadline_check = 0.0
        self.abandoned = False     # an operation failed with its MPI requests pending
        self._stop = _register_progress(self.poll, self.busy)

    def track(self, timeout: float, on_timeout: Callable[[], BaseException],
              on_finish: Callable[[_Running], None] | None = None,
              tag: Any = None) -> _Running:
        """A future for an operation to be started later with :meth:`run`; its deadline
        (``timeout`` seconds, then the error ``on_timeout()``) counts from now.
        ``on_finish(running)`` is called once it is done, either way."""
        running = _Running(None, external(), time.monotonic() + timeout, on_timeout, on_finish,
                           tag)
        with self._finish_lock:
            self._running.add(running)
        return running

    def run(self, running: _Running, operation: Operation) -> None:
        """Drive ``operation`` to completion; its value (or error) goes to the future."""
        running.operation = operation
        self._step(running)

    def start(self, operation: Operation, timeout: float,
              on_timeout: Callable[[], BaseException]) -> Future:
        running = self.track(timeout, on_timeout)
        self.run(running, operation)
        return running.future

    def _step(self, running: _Running) -> None:
        """Advance the generator to its next request (or its end)."""
        if running.finished:        # timed out meanwhile: leave it
            return
        try:
            with mpi_lock():
                request = running.operation.send(None)
        except StopIteration as stop:
            self._finish(running, stop.value, None)
        except Exception as exc:  # noqa: BLE001 - delivered to the waiter
            self._finish(running, None, exc)
        except BaseException as exc:
            # never stored (interrupts.py): the waiter gets a CancelledError carrying it
            self._finish(running, None, cancelled(exc))
            raise
        else:
            self._incoming.append((request, running))

    def _finish(self, running: _Running, value: Any, error: BaseException | None) -> None:
        with self._finish_lock:
            if running.finished:
                return
            running.finished = True
            self._running.discard(running)
        try:
            if error is None:
                running.future.set_result(value)
            else:
                running.future.set_exception(error)
        finally:    # also when a done-callback of the future raised an interrupt
            if running.on_finish is not None:
                running.on_finish(running)

    def poll(self) -> bool:
        """Test the outstanding requests once; True if something progressed."""
        if not self._poll_lock.acquire(blocking=False):
            return False
        try:
            while self._incoming:
                request, running = self._incoming.popleft()
                self._requests.append(request)
                self._waiting.append(running)
            self._check_deadlines()
            if not self._requests:
                return False
            with mpi_lock():
                done = MPI().Request.Testsome(self._requests)
            if not done:
                return False
            finished = set(done)
            resumed = [self._waiting[i] for i in sorted(finished)]
            self._requests = [r for i, r in enumerate(self._requests) if i not in finished]
            self._waiting = [w for i, w in enumerate(self._waiting) if i not in finished]
        finally:
            self._poll_lock.release()
        # every resumed operation is stepped, even if an earlier one raised an interrupt
        each(lambda running: running.finished or self._step(running), resumed)
        return True

    def _check_deadlines(self) -> None:
        now = time.monotonic()
        if now < self._next_deadline_check:
            return
        self._next_deadline_check = now + 0.05
        with self._finish_lock:
            late = [r for r in self._running if r.deadline < now and not r.finished]
        each(lambda running: self.abandon(running, running.describe()), late)

    def abandon(self, running: _Running, error: BaseException) -> None:
        """Fail ``running`` with ``error`` now, whatever its requests are doing."""
        self.abandoned = True       # MPI may still be inside that collective
        self._finish(running, None, error)

    def busy(self) -> bool:
        """Requests in flight: testing them again may complete them."""
        return bool(self._requests or self._incoming)

    def outstanding(self) -> int:
        return len(self._running)

    def stop(self) -> None:
        self._stop()
