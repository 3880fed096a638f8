"""The one place that imports mpi4py: thread level, the MPI lock, communicators.

We ask for ``MPI_THREAD_MULTIPLE`` (callers, the progress thread and the service
thread all call MPI).  If the library gives less, every MPI call of phylanx goes
through :data:`lock` (see :func:`mpi_lock`), which is then a real lock; with
``MULTIPLE`` it is a no-op.  The ``mpich`` wheel gives ``MULTIPLE``.
"""
from __future__ import annotations

import contextlib
import threading
from typing import Any

from .errors import PhylanxDistributedError

_MPI: Any = None
_lock: Any = contextlib.nullcontext()
_init_lock = threading.Lock()
thread_multiple = True


def MPI() -> Any:  # noqa: N802 - it returns the mpi4py.MPI module
    """The ``mpi4py.MPI`` module, initialised once with the thread level we need."""
    global _MPI, _lock, thread_multiple
    if _MPI is not None:
        return _MPI
    with _init_lock:
        if _MPI is None:
            try:
                import mpi4py
            except ImportError as e:
                raise PhylanxDistributedError(
                    "this process was started by an MPI launcher but mpi4py is not "
                    "installed: pip install 'phylanx[mpi]' (or set PHYLANX_MPI=0)") from e
            mpi4py.rc.thread_level = "multiple"
            from mpi4py import MPI as module
            thread_multiple = module.Query_thread() >= module.THREAD_MULTIPLE
            if not thread_multiple:
                _lock = threading.RLock()
            _MPI = module
    return _MPI


def mpi_lock():
    """Context manager around MPI calls: a lock unless the library is thread-multiple."""
    return _lock


def comm_world() -> Any:
    return MPI().COMM_WORLD


def can_create_named_communicators() -> bool:
    """MPI-4's ``Comm_create_from_group`` lets ranks create communicators by a string
    tag in any order (concurrent creations are told apart by the tag)."""
    module = MPI()
    return thread_multiple and hasattr(module.Intracomm, "Create_from_group") \
        and module.Get_version() >= (4, 0)
