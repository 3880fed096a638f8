"""``MPILocality``: the ``Locality`` interface when every MPI rank is a locality.

Created at first use (``bootstrap.py``) in a process a launcher started.  It owns
the progress engine (completes non-blocking MPI calls), the collectives (one
communicator per collective name) and the active-message service (remote calls
and array reads).  At exit it announces it is leaving and waits for the others
(``shutdown_timeout``), so a late request to it fails fast instead of hanging.
"""
from __future__ import annotations

import atexit
import operator
import socket
from collections.abc import Callable
from typing import Any

import numpy as np

from ..runtime import blas_threads, malloc_reuse
from ..runtime.futures import Future, external, failed, ready
from ..runtime.locality import Locality
from ..source import SourceLoc
from . import faults, settings
from .active_messages import Service
from .by_name import ByName
from .collectives import Collectives
from .interrupts import cancelled
from .mpi import MPI
from .progress import ProgressEngine

#: Python callables understood as reduction ops
_CALLABLE_OPS: dict[Any, str] = {
    operator.add: "sum", np.add: "sum", operator.mul: "prod",
    np.multiply: "prod", min: "min", max: "max", np.minimum: "min", np.maximum: "max",
    np.logical_and: "land", np.logical_or: "lor", np.logical_xor: "lxor",
}


class MPILocality(Locality):
    """This rank, as a locality."""

    @classmethod
    def start(cls) -> MPILocality:
        locality = cls()
        if locality.size > 1:
            blas_threads.one_per_rank()    # the node's ranks share its cores
        # a rank's collectives return fresh arrays each step, as iterative programs do:
        # glibc's default unmaps a freed 1 MiB result and the next one pays a page fault
        # per 4 KiB (a 1 MiB all_reduce called from Python: ~1,000 us against ~200 us
        # with the setting, raw MPI ~170 us); a @Phylanx call applies it at its first
        # evaluation, collectives called from Python never started one
        malloc_reuse.apply()
        faults.install(locality.rank, locality.size, locality.world)
        atexit.register(locality.shutdown)
        return locality

    def __init__(self) -> None:
        mpi = MPI()
        self.world = mpi.COMM_WORLD
        self.rank, self.size = self.world.Get_rank(), self.world.Get_size()
        self._host = socket.gethostname()
        # every rank creates its locality at import: the one collective here tells each
        # the processes of the ranks on its host, whose liveness its service checks, and
        # checks that the ranks agree on what shapes their messages (settings.PROTOCOL)
        import os
        everyone = self.world.allgather((self._host, os.getpid(), _protocol(mpi))) \
            if self.size > 1 else []
        if everyone:
            settings.agree_at_start([protocol for _, _, protocol in everyone])
        # a collective failing while its waiter is inside MPI_Wait (progress._wait_here)
        # ends the job with its located error
        self.engine = ProgressEngine(on_stuck=lambda error: faults.report_and_abort(
            error, self.rank, self.size, self.world))
        self.collectives = Collectives(self.world, self.engine)
        self.service = Service(self.world.Dup())
        self.service.on_left = self.collectives.peer_left
        self.service.on_busy = self.collectives.peer_busy
        if self.size > 1:       # (a compile tells the peers: kernels/compiling.py)
            from ..runtime import hooks
            # a compile's own bound (its host-lock wait) plus a collective timeout's
            # worth of compiling
            hooks.local_work = lambda seconds: self.service.busy(
                seconds + float(settings.get("collective_timeout")))
        self.service.watch({r: pid for r, (host, pid, _) in enumerate(everyone)
                            if host == self._host and r != self.rank},
                           lambda: self.engine.outstanding() > 0)
        self._closed = False

    # -- the Locality interface --------------------------------------------------
    def id(self) -> int:
        return self.rank

    def count(self) -> int:
        return self.size

    def hostname(self) -> str:
        return self._host

    def all_gather(self, value: Any, name: str | None = None,
                   where: SourceLoc | None = None) -> Future:
        return self.collectives.all_gather(value, name, where)

    def all_reduce(self, value: Any, op: Any = "sum", name: str | None = None,
                   where: SourceLoc | None = None, check: bool | None = None) -> Future:
        if callable(op):
            if op not in _CALLABLE_OPS:
                return self._custom_reduce(value, op, name, where)
            op = _CALLABLE_OPS[op]
        return self.collectives.all_reduce(value, op, name, where, check=check)

    def _custom_reduce(self, value: Any, op: Callable[[Any, Any], Any], name, where,
                       root: int | None = None) -> Future:
        """Reduction with an arbitrary function: gather everything (to ``root``, or to
        every rank when None), fold in rank order; the function's error is located."""
        if root is None:
            gathered = self.collectives.all_gather(value, name, where)
        else:
            gathered = self.collectives.gather(value, root, name, where)
        result = external()

        def fold(f: Future) -> None:
            try:
                values = f.result()             # None: reduce, not the root
                acc = None if values is None else _fold(op, values, where)
            except Exception as e:  # noqa: BLE001 - delivered to the waiter
                result.set_exception(e)
            except BaseException as e:
                # an interrupt in the fold is never stored (interrupts.py): the waiter
                # gets a CancelledError carrying it, and it goes on in this thread
                result.set_exception(cancelled(e))
                raise
            else:
                result.set_result(acc)
        gathered.add_done_callback(fold)
        return result

    def broadcast(self, value: Any, root: int = 0, name: str | None = None,
                  where: SourceLoc | None = None, check: bool | None = None) -> Future:
        return self.collectives.broadcast(value, root, name, where, check=check)

    def gather(self, value: Any, root: int = 0, name: str | None = None,
               where: SourceLoc | None = None) -> Future:
        return self.collectives.gather(value, root, name, where)

    def scatter(self, value: Any, root: int = 0, name: str | None = None,
                where: SourceLoc | None = None) -> Future:
        return self.collectives.scatter(value, root, name, where)

    def reduce(self, value: Any, op: Any = "sum", root: int = 0, name: str | None = None,
               where: SourceLoc | None = None) -> Future:
        if callable(op):
            if op not in _CALLABLE_OPS:
                return self._custom_reduce(value, op, name, where, root)
            op = _CALLABLE_OPS[op]
        return self.collectives.reduce(value, op, root, name, where)

    def barrier(self, name: str | None = None, where: SourceLoc | None = None) -> Future:
        return self.collectives.barrier(name, where)

    def run_on(self, locality: int, fn: Callable[..., Any], *args: Any,
               where: SourceLoc | None = None) -> Future:
        self._check_locality(locality, "run_on", where)
        what = f"run_on({locality}, {getattr(fn, '__name__', None) or getattr(fn, 'name', '?')})"
        if locality == self.rank:     # the same errors as a remote call would give
            try:
                if isinstance(fn, ByName):
                    fn = self.service._lookup(fn.name)
                return ready(fn(*args))
            except Exception as e:  # noqa: BLE001 - delivered to the waiter
                from .errors import PhylanxRemoteError
                return failed(PhylanxRemoteError(
                    f"{what} failed on locality {locality}: {type(e).__name__}: {e}", where))
        try:
            payload = _pickle_call(fn, args)
        except Exception as e:
            from .errors import PhylanxRemoteError
            return failed(PhylanxRemoteError(f"{what}: cannot send the call: {e}", where))
        return self.service.request(locality, what, payload, where)

    def get_remote(self, locality: int, name: str, index: Any = None,
                   where: SourceLoc | None = None, wait: bool = False) -> Future:
        self._check_locality(locality, "get_remote", where)
        what = f"get_remote({locality}, {name!r})"
        if locality == self.rank:
            try:
                return ready(self.service._read_array(name, index))
            except KeyError as e:
                from .errors import PhylanxRemoteError
                return failed(PhylanxRemoteError(f"{what}: {e.args[0]}", where))
        return self.service.request(locality, what, (name, index, wait), where)

    def _check_locality(self, locality: int, what: str, where: SourceLoc | None) -> None:
        if not 0 <= locality < self.size:
            from .errors import PhylanxRemoteError
            raise PhylanxRemoteError(
                f"locality {locality} does not exist ({self.size} localities)", where, what)

    # -- shutdown ------------------------------------------------------------------
    def shutdown(self) -> None:
        """At exit: tell the others we leave, with our exit status, and wait for them
        (``shutdown_timeout``).  A rank failing with a non-zero status waits only
        ``failed_exit_grace`` (the others report it meanwhile), then ends the job."""
        if self._closed:
            return
        self._closed = True
        from ..runtime import hooks
        hooks.local_work = None     # (no compile tells the peers once this rank leaves)
        import sys
        status = faults.exit_status()
        timeout = float(settings.get("shutdown_timeout"))
        if status != 0:
            timeout = min(timeout, float(settings.get("failed_exit_grace")))
        missing = self.service.leave(timeout, status, self.collectives.started())
        if missing and status != 0:
            told = "an unknown status (a 'raise SystemExit(...)')" \
                if status == faults.UNKNOWN_STATUS else f"status {status}"
            print(f"[rank {self.rank}] this rank exited with {told} while ranks "
                  f"{sorted(missing)} ran on: ending the job", file=sys.stderr)
            faults.end_job(self.world, self.size, faults.job_status(status))
        if missing:
            print(f"[rank {self.rank}] warning: ranks {sorted(missing)} had not finished "
                  "when this one gave up waiting for them (shutdown_timeout)",
                  file=sys.stderr)
        self.engine.stop()
        if self.collectives.close():
            self.engine.abandoned = True
        if self.engine.abandoned:
            # a collective that timed out or was abandoned may still be pending inside MPI
            # (a communicator being created, a request never matched): MPI_Finalize
            # would hang or crash
            print(f"[rank {self.rank}] a collective failed unfinished earlier (timed out, "
                  "or a rank left), so MPI cannot be finalized cleanly: aborting the job",
                  file=sys.stderr)
            faults.end_job(self.world, self.size, faults.job_status(status))


def _protocol(mpi: Any) -> tuple:
    """This rank's protocol settings, and the facts of its MPI library that shape the
    collectives' messages as they do (``Collectives``: communicators created by name,
    persistent header exchanges), which a launch mixing libraries could make differ."""
    from .mpi import can_create_named_communicators
    named = can_create_named_communicators()
    return settings.protocol_values(
        named_communicators=named,
        persistent_collectives=named and hasattr(mpi.Intracomm, "Allgather_init"))


def _fold(op: Callable[[Any, Any], Any], values: list, where: SourceLoc | None) -> Any:
    """``op`` folded over ``values`` in rank order; its error is located."""
    acc = values[0]
    for v in values[1:]:
        try:
            acc = op(acc, v)
        except Exception as e:
            from .errors import PhylanxDistributedError
            label = getattr(op, "__name__", repr(op))
            raise PhylanxDistributedError(
                f"reduction function {label} failed: {type(e).__name__}: {e}", where) from e
    return acc


def _pickle_call(fn: Callable[..., Any], args: tuple) -> bytes:
    """The call as bytes: the function itself if it pickles, else its name (SPMD: the
    other rank has it too, e.g. a ``@Phylanx`` or PhySL function defined by the script)."""
    import pickle
    try:
        return pickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, AttributeError, TypeError):
        name = getattr(fn, "__name__", None) or getattr(fn, "name", None)
        if not isinstance(name, str):
            raise
        return pickle.dumps((ByName(name), args), protocol=pickle.HIGHEST_PROTOCOL)
