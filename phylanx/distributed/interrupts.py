"""Interrupts met by the MPI threads: no future left pending, no thread dying silently.

A ``KeyboardInterrupt``, ``SystemExit`` or other ``BaseException`` that is not an
``Exception`` can reach the communication machinery from user code it runs: a
reduction function (``mpi_locality._custom_reduce``), a ``then`` continuation or
done-callback of a collective's or remote call's future (run by the thread that
completes it: the progress thread, the service thread or a waiter).  The rules, the
runtime's (``runtime/futures.py``, ``runtime/cancel.py``):

* an interrupt is never stored in a future: the future whose work it stopped fails with
  :class:`~phylanx.runtime.cancel.CancelledError` (carrying it as ``cause``), so its
  waiter has a way out, and a ``KeyboardInterrupt`` cancels every open scope;
* the interrupt propagates in the thread that met it, after every completion that thread
  owed others (:func:`each`): completing one future must not leave the next pending;
* a machinery thread (``phylanx-mpi-progress``, ``phylanx-mpi-service``) does not die
  of it: it prints where it came from (:func:`report`) and goes on serving, since every
  rank's waits depend on it.  ``Exception``\\ s keep their path: uncaught, they end the
  job with a located message (``faults.py``).
"""
from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Callable, Iterable
from typing import Any

from ..runtime.cancel import CancelledError, _describe, interrupt


def cancelled(exc: BaseException) -> CancelledError:
    """The error a future fails with when ``exc`` (an interrupt) stopped its work; a
    ``KeyboardInterrupt`` also cancels every open scope, as Ctrl-C does."""
    if isinstance(exc, KeyboardInterrupt):
        interrupt(exc)
    return CancelledError(_describe(exc) if isinstance(exc, KeyboardInterrupt)
                          else f"cancelled: {type(exc).__name__} raised", exc)


def each(fn: Callable[[Any], Any], items: Iterable[Any]) -> None:
    """``fn(item)`` for every item, even when one raises an interrupt (a done-callback
    of the future it completes); the first interrupt is raised after all of them.
    (An ``Exception`` still stops the loop: nothing here raises one by design.)"""
    first: BaseException | None = None
    for item in items:
        try:
            fn(item)
        except Exception:
            raise
        except BaseException as exc:
            if first is None:
                first = exc
    if first is not None:
        raise first


def report(exc: BaseException, rank: int | None = None) -> None:
    """One located line on stderr: this machinery thread met ``exc`` and goes on."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f"{frames[-1].filename}:{frames[-1].lineno}: " if frames else ""
    who = f"[rank {rank}] " if rank is not None else ""
    sys.stderr.write(f"{who}{where}{type(exc).__name__}: {exc} (raised in the "
                     f"{threading.current_thread().name} thread, which goes on)\n")
    sys.stderr.flush()


def guarded(step: Callable[..., Any], *args: Any, rank: int | None = None) -> Any:
    """``step(*args)``; an interrupt it raises is reported (:func:`report`) instead of
    ending the machinery thread that runs it (None is returned then)."""
    try:
        return step(*args)
    except Exception:
        raise
    except BaseException as exc:
        report(exc, rank)
        return None
