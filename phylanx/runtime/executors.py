"""Executors: a synchronous one and a work-helping thread pool behind one interface.

``submit(fn, *args) -> Future``.  The pool keeps one shared FIFO queue; idle
workers take the oldest task.  A thread waiting on a future helps (see
``futures.py`` for which task it may take), so recursive parallel code
(``parallel_block`` fibonacci) completes even on two threads.  A task records
the task that spawned it (``_parent``) and the cancellation scope it belongs
to (``_token``), both taken from the submitting thread.

``phylanx.config`` ``sync_execution`` switches everything to the synchronous
executor, which runs each task when it is submitted.
"""
from __future__ import annotations

import atexit
import collections
import itertools
import os
import threading
import time
from collections.abc import Callable
from time import perf_counter_ns
from typing import Any

from .. import config
from . import blas_threads, cancel, futures, hooks, malloc_reuse
from .cancel import CancelledError, context
from .futures import Future

#: how many of the newest queued tasks a waiter scans for work of the awaited task
HELP_SCAN = 64


class Executor:
    """Interface of executors."""

    num_threads = 1

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        raise NotImplementedError

    def help_once(self) -> bool:
        """Run one queued task on the calling thread; False if there was none."""
        return False

    def shutdown(self, timeout: float = 1.0) -> None:
        pass


class SyncExecutor(Executor):
    """Runs every task immediately on the calling thread (deterministic)."""

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        future = Future()
        future._token = context.token
        future._task = (lambda: fn(*args)) if args else fn
        rec = hooks.recorder
        if rec is not None:   # a timeline is being recorded: note the spawn
            future._spawned = (threading.get_ident(), perf_counter_ns())
        future._state = futures._RUNNING
        task, future._task = future._task, None
        future._run_claimed(task)
        return future


class PoolExecutor(Executor):
    """A fixed pool of daemon threads with one FIFO queue and help-while-waiting.

    ``deque.append``/``popleft`` are atomic, so submitting takes no lock; the
    condition variable is only touched to wake an idle worker.  A worker that
    misses a wake-up (it counted itself idle just after a submitter looked)
    wakes on its own within ``_IDLE_WAIT`` seconds, and nothing waits on it
    meanwhile: a waiter runs unstarted tasks itself.
    """

    _IDLE_WAIT = 0.01
    #: a spare thread nobody needs any more waits this long for a new need, then ends
    SPARE_LINGER = 0.5
    #: a spare's idle wait (workers: ``_IDLE_WAIT``): work for it wakes it, and a hundred
    #: spares waking every 10 ms took the cores from the work
    _SPARE_WAIT = 0.1

    def __init__(self, num_threads: int):
        self.num_threads = max(1, num_threads)
        self._queue: collections.deque[Future] = collections.deque()
        self._cv = threading.Condition(threading.Lock())
        self._idle = 0
        self._stop = False
        self._blocked = 0     # threads in a wait that runs no tasks (``blocking``)
        self._spares = 0      # spare workers alive (they stand in for blocked threads)
        self._spares_active = 0   # of which working now (never more than ``_blocked``)
        self._threads = [
            threading.Thread(target=self._worker, name=f"phylanx-worker-{i}", daemon=True)
            for i in range(self.num_threads)
        ]
        for t in self._threads:
            t.start()

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        if self._stop:
            raise RuntimeError("executor is shut down")
        future = Future()
        future._task = (lambda: fn(*args)) if args else fn
        future._executor = self
        ctx = context
        future._parent = ctx.task
        future._token = ctx.token
        rec = hooks.recorder
        if rec is not None:   # a timeline is being recorded: note the spawn
            future._spawned = (threading.get_ident(), perf_counter_ns())
        self._queue.append(future)
        if self._idle:
            with self._cv:
                self._cv.notify()
        elif self._blocked:           # every worker busy and some blocked: a spare
            with self._cv:
                self._need_spare()
                self._cv.notify_all()
        return future

    def _pop(self) -> Future | None:
        try:
            return self._queue.popleft()
        except IndexError:
            return None

    def help_once(self) -> bool:
        """Run the oldest queued task here (what an idle worker would do)."""
        while True:
            future = self._pop()
            if future is None:
                return False
            task = future._claim()
            if task is not None:
                future._run_claimed(task)
                return True

    def help_for(self, awaited: Future) -> bool:
        """Run one queued task on behalf of a thread waiting for ``awaited``.

        A task (``awaited._executor`` set) is waited for by running tasks it spawned,
        directly or not, newest first: they are what it waits for, so running them
        cannot delay it.  A bare future may be completed by any queued task: the
        oldest is run.
        """
        if awaited._executor is None:
            return self.help_once()
        claimed = None
        try:
            for future in itertools.islice(reversed(self._queue), HELP_SCAN):
                if future._state != futures._PENDING:
                    continue
                parent = future._parent
                while parent is not None and parent is not awaited:
                    parent = parent._parent
                if parent is None:
                    continue
                task = future._claim()
                if task is not None:
                    claimed = (future, task)
                    break
        except RuntimeError:   # the deque changed while scanning: try again later
            pass
        # run outside the try: only the scan's "deque mutated" error may be ignored
        # (PhylanxErrors are RuntimeErrors too)
        if claimed is not None:
            claimed[0]._run_claimed(claimed[1])
            return True
        return False

    def drain(self, reason: str = "cancelled: interrupted") -> int:
        """Fail every queued task with CancelledError (Ctrl-C, shutdown); how many."""
        n = 0
        while True:
            future = self._pop()
            if future is None:
                return n
            if future._claim() is not None:
                future._finish(None, CancelledError(reason))
                n += 1

    def blocking(self) -> _Blocking:
        """Context of a wait that runs no other task (a collective: a task it ran could
        need a value this thread computes further up its stack, and wait for itself).
        While it lasts, queued work that no idle worker takes is run by a spare thread
        (started on demand, parked when not needed, ended after ``SPARE_LINGER``), so
        the next ``async`` collectives and the rest of a backward pass still run on as
        many threads as before."""
        return _Blocking(self)

    def _block(self, delta: int) -> None:
        with self._cv:
            self._blocked += delta
            if delta > 0:
                self._need_spare()
            self._cv.notify_all()     # parked spares: the need changed

    def _need_spare(self) -> None:
        """With ``_cv`` held: if work is queued that no idle worker will take while a
        thread is blocked, wake a parked spare or start one."""
        if not self._queue or self._idle or self._stop \
                or self._spares_active >= self._blocked:
            return
        if self._spares > self._spares_active:
            return                    # a parked spare takes it (notify_all follows)
        self._spares += 1
        spare = threading.Thread(target=self._worker, args=(True,), daemon=True,
                                 name=f"phylanx-spare-{self._spares}")
        try:
            spare.start()
        except RuntimeError:          # no more threads: the queued work waits its turn
            self._spares -= 1
            return
        self._threads = [t for t in self._threads if t.is_alive()] + [spare]

    def _worker(self, spare: bool = False) -> None:
        parked_since = None
        active = False      # a spare counts as a worker only while a thread is blocked
        while True:
            if spare and not (active and self._spares_active <= self._blocked):
                with self._cv:
                    if active and self._spares_active > self._blocked:
                        active = False
                        self._spares_active -= 1
                    if not active and self._spares_active < self._blocked:
                        active = True
                        self._spares_active += 1
                    if not active:   # not needed now: park (not counted idle)
                        now = time.monotonic()
                        parked_since = parked_since or now
                        if self._stop or now - parked_since > self.SPARE_LINGER:
                            self._spares -= 1
                            return
                        self._cv.wait(self._SPARE_WAIT)
                        continue
            parked_since = None
            future = self._pop()
            if future is None:
                with self._cv:
                    if self._stop:
                        return
                    if not self._queue:
                        self._idle += 1
                        self._cv.wait(self._SPARE_WAIT if spare else self._IDLE_WAIT)
                        self._idle -= 1
                continue
            task = future._claim()
            if task is not None:
                future._run_claimed(task)

    def shutdown(self, timeout: float = 1.0) -> None:
        """Stop: queued tasks are cancelled, running ones finish (they stop at their next
        check if their scope was cancelled); all threads are joined within one
        overall ``timeout`` (daemon threads still running after it are left behind)."""
        deadline = time.monotonic() + timeout
        with self._cv:
            self._stop = True
            self._cv.notify_all()
        self.drain("cancelled: the executor shut down")
        for t in self._threads:
            if t is not threading.current_thread():
                t.join(timeout=max(0.0, deadline - time.monotonic()))


class _Blocking:
    __slots__ = ("pool",)

    def __init__(self, pool: PoolExecutor) -> None:
        self.pool = pool

    def __enter__(self) -> None:
        self.pool._block(1)

    def __exit__(self, *exc: object) -> None:
        self.pool._block(-1)


_lock = threading.Lock()
_pool: PoolExecutor | None = None
_sync = SyncExecutor()


def default_threads() -> int:
    n = int(config.get("threads"))
    return n if n > 0 else (os.cpu_count() or 1)


def get_executor() -> Executor:
    """The executor evaluation uses now (sync when ``sync_execution`` is set)."""
    global _pool
    if config.get("sync_execution"):
        return _sync
    pool = _pool
    if pool is None:
        with _lock:
            if _pool is None:
                _pool = PoolExecutor(default_threads())
                futures._helper = _pool.help_for
                futures._blocking = _pool.blocking
                blas_threads.configure()
                malloc_reuse.apply()
            pool = _pool
    return pool


def set_threads(num_threads: int) -> None:
    """Replace the pool by one with ``num_threads`` workers."""
    global _pool
    with _lock:
        old, _pool = _pool, None
        futures._helper = futures._blocking = None
        config.set("threads", num_threads)
    if old is not None:
        old.shutdown()


def _drain_on_interrupt() -> None:
    pool = _pool
    if pool is not None:
        pool.drain()


cancel.on_interrupt(_drain_on_interrupt)


@atexit.register
def _shutdown() -> None:
    if _pool is not None:
        _pool.shutdown(timeout=1.0)
