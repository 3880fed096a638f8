"""The progress engine: completes outstanding MPI requests and resumes what waits on them.

Communication is written as *operations*: generator functions that start a
non-blocking MPI call, ``yield`` its request and continue (or return their value)
when the request is complete.  :meth:`ProgressEngine.start` runs such a generator
and returns a phylanx ``Future``; the engine tests all outstanding requests with
``Request.Testsome`` and steps the generators whose request completed.

Who calls the test loop (``poll``)?

* **The thread that waits for an operation's future drives it** (:class:`OperationFuture`,
  :meth:`ProgressEngine.drive`): it tests the requests in a loop (each test releases the
  GIL; every 64 fruitless tests it also gives up the core, ``sched_yield``) for 1 ms,
  then naps between tests on the future's completion event, each nap twice the last up
  to 1 ms (``runtime/backoff.py``), until a test completes something (then it spins
  again).  MPICH advances a non-blocking collective only while it is tested, so a nap
  delays a round of the collective's algorithm by up to that nap; but a small
  collective whose ranks are all there completes within the spin, and a rank that
  waits long for a late one (``mpiexec -n 3`` on 2 cores: the late one computes on the
  core the spinner took) no longer burns a core meanwhile.  While a thread drives, the
  progress thread stands aside (it naps instead of also spinning: two threads spinning
  on one GIL hand it back and forth, each handoff costing more than the 8-byte
  collective itself).  One thread drives at a time; other waiters wait on their own
  future's completion, which the driver's polls deliver.
* **A progress thread** takes over requests that nobody drove for 0.2 ms (a collective
  has several phases, header check, size exchange, data, and another rank may need
  this rank to start the next phase while nobody here waits on the future): it tests
  them with the same back-off (1 ms of tests yielding the GIL, then naps growing to
  1 ms), and naps growing to 2 ms while a waiter drives or briefly idle.  Idle for
  longer (nothing posted for 10 ms) it sleeps on an event that the next posted
  request sets (waking every 50 ms for the deadlines of operations not started yet).
* **A long-wait thread** waits with ``MPI_Wait`` for a request that moves much data
  (yielded as :class:`Long`; one at a time, the others are tested as usual): MPICH
  moves the data at full speed inside ``Wait``, a test loop only once per test.
* Threads waiting for *other* futures poll too (the runtime's progress-source hook,
  ``phylanx.runtime.progress.register``, with :meth:`ProgressEngine.busy`).

An operation may also be started and stepped by its caller while its requests complete
at once, and handed over (:meth:`ProgressEngine.adopt`) when one does not
(``Collectives._express``).

Every operation has a deadline: an operation still running after it fails with a
located error instead of hanging (the request itself is left to MPI).  An operation
can also be abandoned sooner (:meth:`ProgressEngine.abandon`: a rank it waits for has
left the program); either way MPI may still hold its requests, so :attr:`abandoned`
tells the shutdown not to finalize MPI.
"""
from __future__ import annotations

import collections
import contextlib
import queue
import threading
import time
from collections.abc import Callable, Generator
from typing import Any

from ..runtime import backoff
from ..runtime import futures as runtime_futures
from ..runtime.futures import _DONE, Future, FutureTimeoutError
from . import mpi as mpi_module
from . import settings
from .interrupts import cancelled, each, guarded
from .mpi import MPI, mpi_lock

#: an operation yields MPI requests and returns its value
Operation = Generator[Any, None, Any]

_IDLE_SLEEP_MAX = 0.002   # seconds: the longest nap of a briefly idle progress thread
#: nothing posted for this long: the progress thread sleeps until a request is posted
#: (not sooner: in a loop of collectives a wake-up per collective is a GIL handoff each)
_DOZE_AFTER = 0.01        # seconds
#: how long the dozing thread sleeps at most (the deadlines of unstarted operations)
_DOZE_MAX = 0.05          # seconds
#: the thread tests in-flight requests only when no waiter drove them for this long
_DRIVER_GRACE = 0.0002    # seconds
#: gives up the GIL and the core without sleeping (``time.sleep(0)`` sleeps ~60-130 us
#: under load: Linux's timer slack)
_yield = backoff.yield_core


#: how long a driving waiter tests before it counts as blocked (a spare worker of the pool
#: then stands in for it): a small collective completes within this, and entering the
#: pool's blocked state costs a lock round of its own
_DRIVE_BEFORE_BLOCKING = 0.0002   # seconds
#: a driving waiter gives up the core (``sched_yield``) once per this many fruitless
#: tests (as MPICH's own progress loop does): yielding after every test costs a trip
#: to the back of the run queue per test on a loaded machine (ms), never yielding would
#: starve another rank sharing the core (``mpiexec -n 4`` on 2 cores).  Each test
#: releases the GIL, so the other threads of this rank run meanwhile.
_POLLS_PER_YIELD = 64
#: how many polls a waiter makes on the shortest path before the general one (which
#: reads the clock, yields the core and counts as blocked in the pool): about what an
#: 8-byte collective takes when its ranks are all there (2 ranks: 4-10 polls)
_QUICK_POLLS = 32
#: a waiter whose request is with the long-wait thread looks at its deadline this often
_LONG_WAIT_CHECK = 0.05   # seconds (the completion itself wakes it at once)
#: a waiter that is not the driver waits this long on its future between tries to
#: take over (the driver's polls complete its future meanwhile and wake it at once)
_FOLLOWER_WAIT = 0.0005


class OperationFuture(Future):
    """The future of an engine operation: the thread that waits for it drives the engine
    (:meth:`ProgressEngine.drive`) instead of sleeping between polls."""

    __slots__ = ("_engine", "_running")

    def __init__(self, engine: ProgressEngine) -> None:
        super().__init__()
        self._engine = engine
        self._running: _Running | None = None     # its operation (set by track)
        self._external = True    # completed by MPI: its waiter runs no queued task

    def _wait(self, timeout: float | None, helping: bool = True) -> None:
        if settings.get("progress_polling") == "wait":
            if not self._engine._quick_drive(self):
                self._engine.drive(self, timeout)
        else:       # 'thread': the progress thread alone tests requests
            super()._wait(timeout, helping)

    def completion_event(self) -> threading.Event:
        """An event set once the future is done (already set if it is)."""
        with self._lock:
            if self._event is None:
                self._event = threading.Event()
                if self._state == runtime_futures._DONE:
                    self._event.set()
            return self._event


def _register_progress(engine: ProgressEngine) -> Callable[[], None]:
    """Have ``engine.poll`` called regularly; returns a function that stops it.

    Uses the runtime's progress-source registry (waiting threads poll it) *and* a
    thread of our own, which keeps multi-phase operations
    moving when nobody on this rank waits (see the module docstring).
    """
    stops: list[Callable[[], None]] = []
    from ..runtime import progress as runtime_progress
    if settings.get("progress_polling") == "wait":
        runtime_progress.register(engine.poll, engine.busy)
        stops.append(lambda: runtime_progress.unregister(engine.poll))
    stops.append(_start_polling_thread(engine))

    def stop() -> None:
        for s in stops:
            s()
    return stop


def _start_polling_thread(engine: ProgressEngine) -> Callable[[], None]:
    stopping = threading.Event()

    def loop() -> None:
        nap = 0.0
        pacing = backoff.Backoff()   # of its tests of requests nobody drives
        undriven_since = None   # since when requests are in flight with nobody driving
        posts, posted_at = -1, 0.0   # the engine's post count last seen, and when
        while not stopping.is_set():
            busy = engine.busy()
            if engine.driven() or not busy:
                # a waiter drives the engine, or nothing is in flight: back off (an
                # oversubscribed core goes to the other ranks).  Not woken by an event
                # when a drive ends: a wake-up per collective is a GIL handoff per
                # collective, which costs more than an 8-byte collective.
                undriven_since = None
                pacing.reset()
                # the deadlines: of operations not started yet, and while a waiter
                # drives, of one it may be stuck in (a driver that waits again in a
                # done-callback its poll ran can be inside ``MPI_Wait``, the driver's
                # lock held: it polls no more, and only an abandon ends that wait)
                guarded(engine.check_deadlines)
                if not busy:
                    now = time.monotonic()
                    if engine.posts != posts:
                        posts, posted_at = engine.posts, now
                    elif now - posted_at >= _DOZE_AFTER:
                        engine.doze(_DOZE_MAX)
                        nap = 0.0
                        continue
                nap = min(_IDLE_SLEEP_MAX, nap * 2 or 0.00005)
                time.sleep(nap)
                continue
            now = time.monotonic()
            if undriven_since is None or now < undriven_since + _DRIVER_GRACE:
                # the thread that started them usually waits for them right away, and
                # drives: take over only when nobody did for a while.  (The back-off
                # is not reset here: in a loop of collectives, each one passes through
                # this state between its start and its wait.)
                undriven_since = undriven_since or now
                time.sleep(_DRIVER_GRACE)
                continue
            nap = 0.0
            # an interrupt from a callback this poll ran is reported, the thread goes on
            if guarded(engine.poll):
                pacing.reset()
                _yield()               # let the threads we just woke run (GIL)
                continue
            # requests in flight: MPI advances them only while tested, so keep testing
            # (yielding) for a bounded time, then nap between tests (growing naps)
            pause = pacing.pause(now)
            if pause == 0.0:
                _yield()
            else:
                time.sleep(pause)

    thread = threading.Thread(target=loop, name="phylanx-mpi-progress", daemon=True)
    thread.start()

    def stop() -> None:
        stopping.set()
        engine.wake()               # (if it dozes)
        thread.join(timeout=1.0)
    return stop


class _Running:
    """One operation in flight: its generator, its future and its deadline."""

    __slots__ = ("operation", "future", "deadline", "due", "describe", "on_finish", "finished",
                 "tag", "abandoned", "long_wait", "wait_here", "in_wait", "locate")

    def __init__(self, operation: Operation, future: Future, deadline: float,
                 describe: Callable[[], BaseException], on_finish, tag: Any = None,
                 locate: Callable[[Exception, Any], Exception] | None = None):
        self.operation = operation
        #: ``locate(error, tag)`` turns an error the operation raised into the one its
        #: future gets (located at the caller's line): a function, not a generator wrapped
        #: around the operation, which would cost a frame per step of every collective
        self.locate = locate
        self.future = future
        self.deadline = deadline
        self.due = deadline     # its deadline had no peer been busy (peer_busy)
        self.describe = describe
        self.on_finish = on_finish
        self.finished = False
        self.abandoned = False  # failed while its MPI requests may still be pending
        self.long_wait = False  # its request is with the long-wait thread (Long)
        #: its request, every rank's part started (``Long.arrived``): its waiter may take
        #: it from the engine and ``Wait`` for it (:meth:`ProgressEngine._wait_here`)
        self.wait_here: Any = None
        self.in_wait = False    # its waiter is inside that request's Wait (uninterruptible)
        self.tag = tag          # what the caller wants to know about it later


def _late(until: float | None, deadline: float | None) -> bool:
    """True once ``until`` has passed; raises once ``deadline`` has."""
    if until is None:
        return False
    now = time.monotonic()
    if deadline is not None and now >= deadline:
        raise FutureTimeoutError("timed out waiting for a collective")
    return now >= until


class Long:
    """What an operation yields instead of a request that moves much data: the engine
    hands it to its long-wait thread, which waits for it with ``MPI_Wait`` (the GIL
    released), if that thread is free.  MPICH progresses a collective inside ``Wait``
    at full speed; a test loop in Python pokes it once per test, and a 1 MiB
    ``Iallreduce`` tested in a loop took 1.6x the time of one waited for (2 ranks,
    ``Iallreduce``+``Test`` loop 8.3-8.5 ms, ``Wait`` 5.0-5.3 ms, blocking ``Allreduce``
    5.0-5.3 ms, ``Wait`` in another thread 5.6-6.0 ms; loaded machine)."""

    __slots__ = ("request", "arrived")

    def __init__(self, request: Any, arrived: bool = False) -> None:
        self.request = request
        #: every rank started this request already (the operation proved it): it cannot
        #: wait for a rank that never comes, so the waiting thread may ``Wait`` for it
        #: itself (:meth:`ProgressEngine.drive`) instead of handing it over
        self.arrived = arrived


#: bytes from which a collective's data request is waited for with MPI_Wait (Long)
LONG_BYTES = 1 << 18


def data_request(request: Any, nbytes: int, arrived: bool = False) -> Any:
    """``request`` as an operation yields it: as :class:`Long` if it moves at least
    :data:`LONG_BYTES` (``arrived``: see :attr:`Long.arrived`)."""
    return Long(request, arrived) if nbytes >= LONG_BYTES else request


class ProgressEngine:
    """Tests outstanding requests and steps the operations waiting on them."""

    def __init__(self, on_stuck: Callable[[BaseException], None] | None = None) -> None:
        #: ``on_stuck(error)`` ends the job with ``error`` (it never returns): for an
        #: operation that fails while its waiter is inside ``MPI_Wait``, which nothing
        #: interrupts (:meth:`_wait_here`; without it no waiter waits that way)
        self._on_stuck = on_stuck
        self._incoming: collections.deque[tuple[Any, _Running]] = collections.deque()
        self._requests: list[Any] = []
        self._waiting: list[_Running] = []
        self._running: set[_Running] = set()
        self._poll_lock = threading.Lock()   # one poller at a time; others skip
        self._finish_lock = threading.Lock()
        self._next_deadline_check = 0.0
        #: the ranks in a long local step -> until when their peers wait (peer_busy)
        self._busy: dict[int, float] = {}
        self.abandoned = False     # an operation failed with its MPI requests pending
        self._driver = threading.Lock()       # held by the waiter that drives (drive)
        self._driver_owner: int | None = None  # that waiter's thread
        self._long_lock = threading.Lock()
        self._long_busy = False               # the long-wait thread holds a request
        self._long_queue: queue.SimpleQueue = queue.SimpleQueue()
        self._long_thread: threading.Thread | None = None
        #: requests posted so far, and the event that wakes the dozing progress thread
        #: (set only while it dozes: ``_dozing``)
        self.posts = 0
        self._posted = threading.Event()
        self._dozing = False
        self._stop = _register_progress(self)

    def track(self, timeout: float, on_timeout: Callable[[], BaseException],
              on_finish: Callable[[_Running], None] | None = None,
              tag: Any = None,
              locate: Callable[[Exception, Any], Exception] | None = None) -> _Running:
        """A future for an operation to be started later with :meth:`run`; its deadline
        (``timeout`` seconds, then the error ``on_timeout()``) counts from now.
        ``on_finish(running)`` is called once it is done, either way; ``locate(error, tag)``
        gives the error the future gets for one the operation raised."""
        running = _Running(None, OperationFuture(self), time.monotonic() + timeout,
                           on_timeout, on_finish, tag, locate)
        running.future._running = running
        with self._finish_lock:
            if self._busy:
                running.deadline = max(running.deadline, *self._busy.values())
            self._running.add(running)
        return running

    def peer_busy(self, rank: int, seconds: float, timeout: float) -> None:
        """Another rank started a long local step of up to ``seconds`` (a kernel's
        compile), or ended it (0): every operation waits for it, up to ``timeout`` past
        the step's bound; once it ended, up to ``timeout`` from then (or its own deadline,
        if later).  Bounded: a rank that never ends its step is late at the bound."""
        now = time.monotonic()
        with self._finish_lock:
            if seconds > 0:
                until = self._busy[rank] = now + seconds + timeout
                for running in self._running:
                    running.deadline = max(running.deadline, until)
                return
            self._busy.pop(rank, None)
            floor = max([now + timeout, *self._busy.values()])
            for running in self._running:
                running.deadline = min(running.deadline, max(running.due, floor))

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
            if mpi_module.thread_multiple:     # (no lock needed: skip the context manager)
                request = running.operation.send(None)
            else:
                with mpi_lock():
                    request = running.operation.send(None)
        except StopIteration as stop:
            self._finish(running, stop.value, None)
        except Exception as exc:  # noqa: BLE001 - delivered to the waiter
            self._fail(running, exc)
        except BaseException as exc:
            # never stored (interrupts.py): the waiter gets a CancelledError carrying it
            self._finish(running, None, cancelled(exc))
            raise
        else:
            self._post(running, request)

    def _post(self, running: _Running, request: Any) -> None:
        """Have ``request`` (which ``running``'s operation yielded) tested, or waited
        for (:class:`Long`), and the operation stepped once it completes."""
        if type(request) is Long:
            if request.arrived and mpi_module.thread_multiple \
                    and self._on_stuck is not None:
                # tested as usual until its waiter takes it (nobody may wait yet)
                running.wait_here = request = request.request
            elif self._wait_long(request.request, running):
                return
            else:
                request = request.request   # (the long-wait thread is busy: test it)
        self._incoming.append((request, running))
        self.posts += 1
        if self._dozing:            # (after the append: see doze)
            self._posted.set()

    def adopt(self, running: _Running, operation: Operation, request: Any) -> None:
        """Take over ``operation``, which its caller started and stepped itself up to
        ``request`` (still in flight: see ``Collectives._express``); its value (or error)
        goes to ``running``'s future."""
        running.operation = operation
        self._post(running, request)

    def wake(self) -> None:
        """End the progress thread's doze now (it is stopping)."""
        self._posted.set()

    def doze(self, longest: float) -> None:
        """The progress thread, idle: sleep until a request is posted, ``longest`` at
        most.  (The flag is raised before the last look at the queue and a poster looks
        at it after appending: one of the two sees the other.)"""
        self._posted.clear()
        self._dozing = True
        try:
            if not self.busy():
                self._posted.wait(longest)
        finally:
            self._dozing = False

    # -- requests waited for with MPI_Wait --------------------------------------------
    def _wait_long(self, request: Any, running: _Running) -> bool:
        """Hand ``request`` to the long-wait thread if it is free (and MPI lets threads
        call it concurrently); False: the caller has it tested as usual.  A free thread
        only: a request queued behind one that never completes (a rank that never
        came) would not even be tested."""
        if not mpi_module.thread_multiple:
            return False
        with self._long_lock:
            if self._long_busy:
                return False
            self._long_busy = True
            running.long_wait = True
            if self._long_thread is None:
                self._long_thread = threading.Thread(
                    target=self._long_waits, name="phylanx-mpi-wait", daemon=True)
                self._long_thread.start()
        self._long_queue.put((request, running))
        return True

    def _long_waits(self) -> None:
        """The long-wait thread: ``MPI_Wait`` for each request handed to it, then step
        its operation.  (A request whose peers never come keeps it waiting: the
        operation fails by its deadline meanwhile, later requests are tested as usual,
        and MPI is not finalized at exit: ``abandoned``.)"""
        while True:
            item = self._long_queue.get()
            if item is None:
                return
            request, running = item
            error = None
            try:
                request.Wait()
            except Exception as exc:  # noqa: BLE001 - delivered to the waiter
                error = exc
            with self._long_lock:
                self._long_busy = False
            running.long_wait = False
            if error is not None:
                self._fail(running, error)
            else:
                # an interrupt from a callback this step ran is reported, the thread goes on
                guarded(self._step, running)

    def _fail(self, running: _Running, error: Exception) -> None:
        """``running`` failed with ``error`` (from its operation or its MPI request)."""
        locate = running.locate
        tb = error.__traceback__
        while tb is not None and tb.tb_frame.f_globals is globals():
            tb = tb.tb_next
        # (the engine's frames that caught it, first in its traceback, hold ``running``,
        # which holds the future the error goes to: a cycle that kept a failed
        # collective's error, frames and arrays until the cyclic GC ran; the operation's
        # own frames, where it was raised, stay)
        error = error.with_traceback(tb)
        self._finish(running, None, error if locate is None else locate(error, running.tag))

    def _finish(self, running: _Running, value: Any, error: BaseException | None) -> None:
        with self._finish_lock:
            if running.finished:
                return
            running.finished = True
            self._running.discard(running)
        future = running.future
        try:
            # (the future's own completion: only this call completes it, ``finished``)
            future._finish(value, error)
        finally:    # also when a done-callback of the future raised an interrupt
            # the future and its operation referred to each other: a cycle, so the value
            # (a 1 MiB result) lived until the cyclic GC ran, and every large collective
            # got fresh pages from the OS (mmap, page faults: 2-4x MPI's own start of a
            # 1 MiB all_reduce, one rank) while tens of MiB of results waited for the GC.
            # A done future's waiters no longer need its operation (they test done first)
            future._running = None
            if running.on_finish is not None:
                running.on_finish(running)

    def poll(self) -> bool | None:
        """Test the outstanding requests once; True if something progressed (None:
        another thread is polling right now)."""
        if not self._poll_lock.acquire(blocking=False):
            return None
        try:
            while self._incoming:
                request, running = self._incoming.popleft()
                self._requests.append(request)
                self._waiting.append(running)
            if time.monotonic() >= self._next_deadline_check:   # (a call saved per poll)
                self.check_deadlines()
            if self.abandoned and self._requests:
                # the requests of operations that failed meanwhile are no longer tested
                # here: a collective may take one up (``Collectives._settle``: its channel
                # buffers' request), and two threads must not test one request
                live = [i for i, w in enumerate(self._waiting) if not w.finished]
                if len(live) < len(self._waiting):
                    self._requests = [self._requests[i] for i in live]
                    self._waiting = [self._waiting[i] for i in live]
            requests = self._requests
            if not requests:
                return False
            if len(requests) == 1:      # the common case, a few Python calls cheaper
                if mpi_module.thread_multiple:
                    if not requests[0].Test():
                        return False
                else:
                    with mpi_lock():
                        if not requests[0].Test():
                            return False
                resumed = self._waiting
                self._requests, self._waiting = [], []
            else:
                with mpi_lock():
                    done = MPI().Request.Testsome(requests)
                if not done:
                    return False
                finished = set(done)
                resumed = [self._waiting[i] for i in sorted(finished)]
                self._requests = [r for i, r in enumerate(requests) if i not in finished]
                self._waiting = [w for i, w in enumerate(self._waiting) if i not in finished]
        finally:
            self._poll_lock.release()
        if len(resumed) == 1:
            if not resumed[0].finished:
                self._step(resumed[0])
            return True
        # every resumed operation is stepped, even if an earlier one raised an interrupt
        each(lambda running: running.finished or self._step(running), resumed)
        return True

    def check_deadlines(self) -> None:
        """Fail the operations past their deadline (every 50 ms at most)."""
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
        running.abandoned = True
        self._fail(running, error)
        with self._finish_lock:
            stuck = running.in_wait
        if stuck:
            # its waiter is inside MPI_Wait, which nothing interrupts (a peer stopped,
            # or died under a launcher that does not end the job): the waiter would
            # never see this error, so it ends the job (``_wait_here``)
            self._on_stuck(error)

    def end_job(self, error: BaseException) -> None:
        """``error`` left other ranks inside a collective this rank can no longer take
        part in (a data request it could not start after its header went out): end the
        job with it, located (``on_stuck``); without ``on_stuck`` (no job to end: a
        test's engine) it is raised."""
        self.abandoned = True       # (MPI cannot be finalized with the others stuck)
        if self._on_stuck is not None:
            self._on_stuck(error)
        raise error

    # -- waiting -------------------------------------------------------------------
    def drive(self, future: Future, timeout: float | None) -> None:
        """Wait for ``future`` (of one of our operations) by testing the requests in a
        loop, yielding the core between tests, napping between them once the wait is
        long (``runtime/backoff.py``, the module doc): it returns when the
        future is done (its operation completed, failed, passed its deadline or was
        abandoned: every wait has a way out) or raises ``FutureTimeoutError`` after
        ``timeout`` seconds.  A wait longer than a small collective's counts as blocked
        in the pool (a spare worker stands in, as for any external future).
        (:meth:`_quick_drive` first: its waiter calls it.)"""
        deadline = None if timeout is None else time.monotonic() + timeout
        self._drive(future, time.monotonic() + _DRIVE_BEFORE_BLOCKING, deadline)
        if future.done():
            return
        block = runtime_futures._blocking    # (set while a thread pool exists)
        with block() if block is not None else contextlib.nullcontext():
            self._drive(future, deadline, deadline)

    def _quick_drive(self, future: Future) -> bool:
        """The common case of :meth:`drive`, on the shortest path: nobody else drives,
        the request is tested here and completes within :data:`_QUICK_POLLS` polls (a
        small collective whose ranks are all there).  True if ``future`` is done; False:
        the caller waits the general way (deadlines, long waits, other drivers), having
        lost only these polls.  (Each poll releases the GIL in ``Test``; the deadlines
        are checked by ``poll`` itself.)"""
        if not self._driver.acquire(blocking=False):
            return future.done()
        self._driver_owner = threading.get_ident()
        try:
            running = future._running
            for _ in range(_QUICK_POLLS):
                if future._state == _DONE:
                    return True
                if running is not None and (running.long_wait or running.wait_here is not None):
                    return False
                self.poll()
            return future._state == _DONE
        finally:
            self._driver_owner = None
            self._driver.release()

    def _drive(self, future: Future, until: float | None, deadline: float | None) -> None:
        """Drive (or follow the driver) until ``future`` is done or ``until`` passes;
        past ``deadline`` a FutureTimeoutError."""
        event = None
        running = getattr(future, "_running", None)
        while not future.done():
            if running is not None and running.wait_here is not None \
                    and self._wait_here(running):
                continue
            if running is not None and running.long_wait:
                # its request is with the long-wait thread (in MPI_Wait, which progresses
                # it at full speed): wait for the completion, leaving the engine to
                # other drivers and the progress thread meanwhile
                if event is None:
                    event = future.completion_event()
                if event.wait(_LONG_WAIT_CHECK) or _late(until, deadline):
                    return
                continue
            # (the driver itself may wait again, in a done-callback its poll ran: it
            # drives on, as the lock is not reentrant and the progress thread stands aside)
            nested = self._driver_owner == threading.get_ident()
            if nested or self._driver.acquire(blocking=False):
                self._driver_owner = threading.get_ident()
                try:
                    idle = 0
                    pacing = backoff.Backoff()
                    napping = False     # (past the spin: one test per nap)
                    while not future.done():
                        if running is not None and (running.long_wait
                                                    or running.wait_here is not None):
                            break
                        if self.poll():
                            pacing.reset()      # (the next phase: spin first again)
                            napping = False
                            continue
                        if _late(until, deadline):
                            return
                        idle += 1
                        if not napping and idle % _POLLS_PER_YIELD:
                            continue
                        pause = pacing.pause()
                        if pause == 0.0:
                            _yield()
                        else:
                            napping = True
                            # a long wait (a late rank): nap instead of taking the core,
                            # woken at once by a completion another thread delivers
                            if event is None:
                                event = future.completion_event()
                            event.wait(pause)
                finally:
                    if not nested:
                        self._driver_owner = None
                        self._driver.release()
                continue
            # another waiter drives (and completes our future too): wait for the
            # completion, trying to take over now and then (the driver may leave)
            if event is None:
                event = future.completion_event()
            if event.wait(_FOLLOWER_WAIT) or _late(until, deadline):
                return

    def _wait_here(self, running: _Running) -> bool:
        """Take ``running``'s request out of the engine and ``MPI_Wait`` for it on this
        thread, then step its operation; False if a poll completed it meanwhile.

        Only for a request every rank has started (``Long.arrived``): MPI completes it
        unless a process dies or stops.  ``mpiexec`` ends the job when one dies; otherwise
        the operation's deadline (or the liveness check) abandons it meanwhile, and as
        ``Wait`` cannot be interrupted, the engine's ``on_stuck`` reports that error and
        ends the job (:meth:`abandon`).  MPICH moves the data
        at full speed inside ``Wait`` (a 1 MiB all-reduce in a ``Test`` loop took 2-4x
        as long, handed to the long-wait thread 1.5-2.5x: a thread wake-up, loaded
        machine, ``docs/distributed.md``).  The driver's lock is not held meanwhile:
        other requests are tested by the progress thread and other waiters."""
        request = running.wait_here
        with self._poll_lock:       # (a poll in progress finishes first)
            if running.wait_here is not request:
                return False
            running.wait_here = None
            for index, (queued, _) in enumerate(self._incoming):
                if queued is request:
                    del self._incoming[index]
                    break
            else:
                # (by identity: completed requests compare equal, as MPI_REQUEST_NULL)
                index = next((i for i, r in enumerate(self._requests) if r is request), None)
                if index is None:       # completed by a poll (which stepped the operation)
                    return False
                del self._requests[index], self._waiting[index]
        with self._finish_lock:
            if running.finished:    # abandoned meanwhile: its request is left to MPI
                return True
            running.in_wait = True
        error = None
        try:
            request.Wait()
        except Exception as exc:  # noqa: BLE001 - delivered to the waiter
            error = exc
        finally:
            with self._finish_lock:
                running.in_wait = False
        if error is not None:
            self._fail(running, error)
        else:
            self._step(running)
        return True

    def driven(self) -> bool:
        """A waiting thread drives the engine now."""
        return self._driver.locked()

    def busy(self) -> bool:
        """Requests in flight: testing them again may complete them."""
        return bool(self._requests or self._incoming)

    def outstanding(self) -> int:
        return len(self._running)

    def stop(self) -> None:
        self._stop()
        if self._long_thread is not None:
            self._long_queue.put(None)     # (a thread stuck in MPI_Wait is a daemon)
