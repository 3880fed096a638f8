"""Executors: a synchronous one and a work-helping thread pool behind one interface.

``submit(fn, *args) -> Future``.  The pool keeps one shared queue; a worker (or
any thread) waiting on a future runs queued tasks itself, so recursive
parallel code (``parallel_block`` fibonacci) completes even on two threads.
``phylanx.config`` ``sync_execution`` switches everything to the synchronous
executor, which runs each task when it is submitted.
"""
from __future__ import annotations

import atexit
import collections
import os
import threading
from collections.abc import Callable
from typing import Any

from .. import config
from .futures import Future


class Executor:
    """Interface of executors."""

    num_threads = 1

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        raise NotImplementedError

    def help_once(self) -> bool:
        """Run one queued task on the calling thread; False if there was none."""
        return False

    def shutdown(self) -> None:
        pass


class SyncExecutor(Executor):
    """Runs every task immediately on the calling thread (deterministic)."""

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        future = Future()
        try:
            future.set_result(fn(*args))
        except BaseException as exc:  # noqa: BLE001 - delivered to the waiter
            future.set_exception(exc)
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

    def __init__(self, num_threads: int):
        self.num_threads = max(1, num_threads)
        self._queue: collections.deque[Future] = collections.deque()
        self._cv = threading.Condition(threading.Lock())
        self._idle = 0
        self._stop = False
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
        self._queue.append(future)
        if self._idle:
            with self._cv:
                self._cv.notify()
        return future

    def _pop(self, newest: bool = False) -> Future | None:
        try:
            return self._queue.pop() if newest else self._queue.popleft()
        except IndexError:
            return None

    def help_once(self) -> bool:
        # A waiter takes the newest task: the most recently spawned work is the
        # smallest and most likely what it is waiting for (as in work stealing).
        future = self._pop(newest=True)
        if future is None:
            return False
        task = future._claim()
        if task is not None:
            future._run_claimed(task)
        return True

    def _worker(self) -> None:
        while True:
            future = self._pop()
            if future is None:
                with self._cv:
                    if self._stop:
                        return
                    if not self._queue:
                        self._idle += 1
                        self._cv.wait(self._IDLE_WAIT)
                        self._idle -= 1
                continue
            task = future._claim()
            if task is not None:
                future._run_claimed(task)

    def shutdown(self) -> None:
        with self._cv:
            self._stop = True
            self._cv.notify_all()
        for t in self._threads:
            if t is not threading.current_thread():
                t.join(timeout=5)


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
            pool = _pool
    return pool


def set_threads(num_threads: int) -> None:
    """Replace the pool by one with ``num_threads`` workers."""
    global _pool
    with _lock:
        old, _pool = _pool, None
        config.set("threads", num_threads)
    if old is not None:
        old.shutdown()


@atexit.register
def _shutdown() -> None:
    if _pool is not None:
        _pool.shutdown()
