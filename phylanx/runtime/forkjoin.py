"""Structured concurrency: ``fork_join``, ``spawn`` (``async``) and evaluation scopes.

Every place that runs work concurrently goes through here: ``parallel_block``,
``parallel_map``, the operands and statements the evaluation policy marks
asynchronous (``nodes.py``), and ``async``.

``fork_join(thunks, spawn)`` spawns the thunks marked in ``spawn`` (default: all
but the last) *first*, runs the others on the calling thread, then joins:
unstarted tasks are claimed and run here, running ones are waited for while
helping.  The rule lives in this one place: **wait for every task, then raise
the first error** — no task of the group may still run (and change shared
state) once the caller sees the error.  The group has a cancellation token
(``cancel.py``): the first failure cancels it, so queued siblings do not start
and running ones stop at their next loop iteration, task or fork.

``evaluate(fn, *args)`` is the outermost scope of one evaluation (a program
run, a function called from Python).  ``async`` futures are registered with it;
when the evaluation ends it waits for them, and an error nobody read is
raised then.  A failure cancels whatever the evaluation still has running.

``KeyboardInterrupt`` is never stored: the scope that sees it cancels every open
scope and queued task (``cancel.interrupt``), waits at most ``INTERRUPT_GRACE``
seconds for running tasks to reach a check, and re-raises it.
"""
from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from . import blas_threads, comm_order, malloc_reuse
from .cancel import (
    PENDING,
    CancelledError,
    check,
    close_token,
    context,
    interrupt,
    open_token,
)
from .choices import tick
from .executors import get_executor
from .futures import _PENDING, Future

_CORES = os.cpu_count() or 1

#: seconds a scope that saw Ctrl-C waits for its tasks to stop before re-raising
INTERRUPT_GRACE = 0.5

_log = logging.getLogger("phylanx.runtime")


def fork_join(thunks: Sequence[Callable[[], Any]], spawn: Sequence[bool] | None = None,
              share_blas: bool = False, quiet: Sequence[bool] | None = None) -> list:
    """Run ``thunks`` concurrently and return their results in order.

    ``spawn[i]`` says whether thunk ``i`` becomes a task (default: all but the last,
    which the caller runs itself).  ``share_blas``: the thunks are like pieces of one
    job (tiles, groups, ``parallel_map``), so BLAS shares the cores among them while
    they run (blas_threads.py says when that pays).  ``quiet[i]``: thunk ``i`` cannot
    communicate (``comm_order.silent``).  Errors: see the module docstring.
    """
    n = len(thunks)
    results: list[Any] = [None] * n
    if n == 0:
        return results
    markers = None
    if comm_order.enabled():
        # several localities: thunk i communicates only after thunks 0 .. i-1 ended
        thunks, markers = comm_order.ordered(thunks, quiet)
    ctx = context
    outer = ctx.token
    group = open_token(outer)
    ctx.token = group               # tasks submitted below, and inline work, belong to it
    spawned: list[tuple[int, Future]] = []
    interrupted: BaseException | None = None
    shared = blas_threads.share(min(n if spawn is None else sum(map(bool, spawn)) + 1,
                                    _CORES)) if share_blas else 0
    try:
        try:
            submit = get_executor().submit
            last = n - 1
            if spawn is None:
                spawned = [(i, submit(thunks[i])) for i in range(last)]
                inline = (last,)
            else:
                spawned = [(i, submit(thunks[i])) for i in range(n) if spawn[i]]
                inline = [i for i in range(n) if not spawn[i]]
            if markers is not None:
                for i, future in spawned:
                    markers[i].future = future
            for i in inline:
                if PENDING[0]:
                    check()
                results[i] = thunks[i]()
        except KeyboardInterrupt as exc:
            interrupted = exc
            interrupt(exc)
        except BaseException as exc:  # noqa: BLE001 - re-raised after the join
            group.cancel(exc)        # no effect if a task failed first: its error wins
        try:
            _join(spawned, results, group, INTERRUPT_GRACE if interrupted else None)
        except KeyboardInterrupt as exc:
            interrupted = exc
            interrupt(exc)
            _join(spawned, results, group, INTERRUPT_GRACE)
    finally:
        ctx.token = outer
        close_token(group)
        blas_threads.unshare(shared)
    if interrupted is not None:
        raise interrupted
    if group.error is not None:
        raise group.error
    return results


def _join(spawned: list[tuple[int, Future]], results: list, group, grace: float | None) -> None:
    # unstarted tasks run here, newest first (workers take the oldest): nobody idles
    for _, future in reversed(spawned):
        if future._state == _PENDING:
            task = future._claim()
            if task is not None:
                future._run_claimed(task)
    deadline = None if grace is None else time.monotonic() + grace
    for i, future in spawned:
        if deadline is None:
            future.wait()
        elif not future.wait(max(0.0, deadline - time.monotonic())):
            return                   # interrupted: do not wait for stragglers any longer
        future._retrieved = True
        err = future._error
        if err is None:
            results[i] = future._value
        elif group.error is None:
            group.cancel(err)        # (tasks cancel their group themselves; this is for
                                     # errors raised before the task could, e.g. cancelled)


def spawn(fn: Callable[..., Any], *args: Any) -> Future:
    """Run ``fn(*args)`` as a task whose future may never be read (``async``).

    The future joins the enclosing evaluation scope: the scope waits for it and
    raises its error if nobody read it.  Outside any scope, its error is logged.
    """
    if comm_order.enabled():
        fn = comm_order.unordered(fn)      # (not ordered: see comm_order.unordered)
    return adopt(get_executor().submit(fn, *args))


def adopt(future: Future) -> Future:
    """``future``, joined to the enclosing evaluation scope as :func:`spawn`'s are (the
    scope waits for it and raises its error if nobody read it; outside any scope its
    error is logged): for an ``async`` value made without a task."""
    token = context.token
    while token is not None and token.parent is not None:
        token = token.parent
    if token is not None and token.orphans is not None:
        token.orphans.append(future)
    else:
        future.add_done_callback(_log_unread)
    return future


def _log_unread(future: Future) -> None:
    if future._error is not None and not future._retrieved:
        _log.error("an async task failed outside of any evaluation: %s", future._error)


def evaluate(fn: Callable[..., Any], *args: Any) -> Any:
    """Run ``fn(*args)`` as one evaluation (see the module docstring).

    Nested calls (PhySL -> Python -> PhySL on the same thread) belong to the
    outer evaluation and run directly.
    """
    ctx = context
    if ctx.token is not None:
        return fn(*args)
    # here, not only when the task pool starts: a straight-line program (a loss and its
    # gradient) never starts the pool, and its every call paid a page fault per 4 KiB of
    # its temporaries (about 600 per call of benchmarks/grad_mlp.py's MLP)
    malloc_reuse.apply()       # once: later calls return what the first decided
    tick()     # the side table times again the decisions that are due
    root = open_token(None)
    root.orphans = []
    ctx.token = root
    try:
        try:
            value = fn(*args)
        except KeyboardInterrupt as exc:
            interrupt(exc)
            _settle(root, INTERRUPT_GRACE)
            raise
        except BaseException as exc:
            root.cancel(exc)   # stop the asyncs still running; they are not needed
            try:
                _settle(root, None)
            except KeyboardInterrupt:
                interrupt()
                raise
            first = _first(root, exc)
            if first is exc:
                raise
            raise first from None
        try:
            _settle(root, None)
        except KeyboardInterrupt as exc:
            interrupt(exc)
            _settle(root, INTERRUPT_GRACE)
            raise
        if root.error is not None:
            raise root.error   # an async failed and nobody read its error
        return value
    finally:
        ctx.token = None
        close_token(root)


def _first(root, caught: BaseException) -> BaseException:
    """The error to report: the first real failure, not the cancellation it caused."""
    if isinstance(caught, CancelledError) and root.error is not None \
            and not isinstance(root.error, CancelledError):
        return root.error
    return caught


def _settle(root, grace: float | None) -> None:
    """Wait for the evaluation's ``async`` tasks; an unread failure cancels the rest."""
    deadline = None if grace is None else time.monotonic() + grace
    orphans = root.orphans
    i = 0
    while i < len(orphans):      # the list may grow while we wait (async in async)
        future = orphans[i]
        i += 1
        if deadline is None:
            future.wait()
        elif not future.wait(max(0.0, deadline - time.monotonic())):
            return
        err = future._error
        if err is not None and not future._retrieved and root.error is None:
            root.cancel(err)
    orphans.clear()
