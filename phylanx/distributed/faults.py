"""Faults never hang a job: an uncaught error on one rank ends every rank.

Under MPI, a rank that dies of an exception would leave the others waiting in
a collective forever.  :func:`install` wraps ``sys.excepthook`` and
``threading.excepthook``: the error is printed once, by the failing rank, as
``[rank R] file:line:col: message``, then ``MPI_Abort`` makes the launcher end
every rank with a non-zero status.  (A rank killed by a signal is the launcher's
business: ``mpiexec`` ends the job; the tests check it.)
"""
from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from typing import Any

from ..errors import PhylanxError

_reported = threading.Lock()


def describe(error: BaseException, rank: int) -> str:
    """``[rank R] where: message`` for any exception (located ones keep their excerpt)."""
    if isinstance(error, PhylanxError):
        return f"[rank {rank}] {error}"
    frames = traceback.extract_tb(error.__traceback__)
    where = f"{frames[-1].filename}:{frames[-1].lineno}: " if frames else ""
    return f"[rank {rank}] {where}{type(error).__name__}: {error}"


def report_and_abort(error: BaseException, rank: int, size: int, world: Any = None) -> None:
    """Print the error once and end the whole job (never returns)."""
    if not _reported.acquire(blocking=False):   # a second failing thread: the first reports
        threading.Event().wait(30)
        os._exit(1)
    try:
        sys.stdout.flush()
        if not isinstance(error, PhylanxError):
            stack = "".join(traceback.format_tb(error.__traceback__))
            if stack:
                sys.stderr.write(f"[rank {rank}] Traceback (most recent call last):\n{stack}")
        sys.stderr.write(describe(error, rank) + "\n")
        sys.stderr.flush()
    finally:
        if world is not None and size > 1:
            # the launcher stops forwarding output when it tears the job down: give it a
            # moment to pass on what we just wrote
            time.sleep(0.2)
            world.Abort(1)
        os._exit(1)


def install(rank: int, size: int, world: Any) -> None:
    """Route uncaught exceptions (main thread and others) to :func:`report_and_abort`."""
    previous = sys.excepthook

    def excepthook(kind, error, tb):
        if issubclass(kind, (KeyboardInterrupt, SystemExit)):
            previous(kind, error, tb)
            return
        if error.__traceback__ is None:
            error = error.with_traceback(tb)
        report_and_abort(error, rank, size, world)

    def thread_excepthook(args):
        if args.exc_type is SystemExit:
            return
        report_and_abort(args.exc_value, rank, size, world)

    sys.excepthook = excepthook
    threading.excepthook = thread_excepthook
