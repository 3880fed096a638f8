"""Active messages: run a function on another locality, fetch part of a remote array.

Each rank has a service thread probing a communicator of its own (a duplicate of
``COMM_WORLD``) for three kinds of message:

* ``REQUEST`` (request id, what, payload): run a function (in a thread of its own,
  so the service keeps answering) or read a registered array; answered with
* ``REPLY`` (request id, ok, value or error text), which completes the future of the
  request with that id, and
* ``LEAVING`` (exit status, collectives started per name): the sender's program
  finished; ``on_left`` (the collectives) fails at once what this rank waits for in
  vain.  The sender keeps serving requests until every other rank has finished too
  (a barrier-like handshake), or ``shutdown_timeout`` passed, then says
* ``GONE`` (the same): the sender stopped serving.  Requests to it fail at once, and
  requests still waiting for it fail, instead of hanging.
* ``BUSY`` (seconds): the sender starts a long local step (a kernel's compile) that
  may last up to that long, or (0) ended it; ``on_busy`` (the collectives) lets the
  collectives waiting for it wait that long (:meth:`Service.busy`).

The service thread probes without blocking, napping at most 2 ms when idle, so these
messages are seen within milliseconds whatever the program does meanwhile.  A rank
that dies without leaving (a signal, ``os._exit``) sends nothing: the launcher usually
ends the job then, and in case it does not, the service thread checks, every
:data:`_LIVENESS_PERIOD` while something waits (:meth:`Service.watch`), that the
processes of the other ranks on this host still run; a dead one counts as left, with
no exit status.

**Array reads travel as raw bytes.**  The answer to a read of a registered NumPy
array (``get_remote``: ``dot_d`` and ``conv1d_d`` fetch tiles this way) is a small
pickled ``REPLY`` carrying a :class:`RawArray` (shape and dtype), then the array's
bytes themselves on a communicator of their own (``data_comm``, never probed), tagged
with the request id; the requester receives them straight into a new array.  A
pickled reply would copy a tile three more times (a pickling check, the pickle, the
unpickling), on the service threads that share the cores with the computation; an
array of Python objects still travels pickled.

Functions travel pickled; one that does not pickle (a ``@Phylanx`` function, a
PhySL function) travels by name and is looked up on the other rank in the table of
:meth:`Service.register_function`, then in ``__main__`` (SPMD: every rank ran the
same script).  Sends are non-blocking, so two ranks answering each other's large
requests cannot deadlock.  A request gets no answer after ``remote_timeout``: it fails.
"""
from __future__ import annotations

import contextlib
import functools
import itertools
import os
import pickle
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np

from ..runtime import hooks
from ..runtime.futures import Future, external, resolve_deep
from ..source import SourceLoc
from . import settings
from .by_name import ByName, find_function
from .errors import PhylanxRemoteError
from .interrupts import each, guarded
from .mpi import MPI, mpi_lock

REQUEST, REPLY, LEAVING, GONE, BUSY = 11, 12, 13, 14, 15
_LIVENESS_PERIOD = 0.5  # seconds between checks that the other ranks' processes run
_NAME_WAIT = 5.0      # seconds a rank waits for a function name to be defined (SPMD lag)


class RawArray(NamedTuple):
    """What a ``REPLY`` carries for an array whose bytes follow on ``data_comm``."""
    shape: tuple
    dtype: np.dtype


def _travels_raw(value: Any) -> bool:
    """Whether an answer travels as raw bytes: a plain NumPy array without Python
    objects (which only pickling can carry), C-contiguous (as a read's copy is)."""
    return type(value) is np.ndarray and not value.dtype.hasobject \
        and value.flags.c_contiguous


def _as_bytes(array: np.ndarray) -> np.ndarray:
    """The bytes of a C-contiguous ``array`` (a view: MPI reads or writes them)."""
    return array.reshape(-1).view(np.uint8)


class Service:
    """The active-message endpoint of one rank."""

    def __init__(self, comm: Any) -> None:
        self.comm = comm
        #: the raw bytes of array replies (collective: every rank creates its service)
        self.data_comm = comm.Dup()
        self._tag_bound = int(comm.Get_attr(MPI().TAG_UB))
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.functions: dict[str, Callable[..., Any]] = {}
        self.arrays: dict[str, Any] = {}
        #: the registered arrays their owner does not change while registered
        self._unchanged: set[str] = set()
        self.left: set[int] = set()     # ranks whose program finished (still serving)
        self.gone: set[int] = set()     # ranks that stopped serving
        #: called (rank, exit status, collectives started per name) when a rank leaves
        self.on_left: Callable[[int, int, dict[str, int]], None] | None = None
        #: called (rank, seconds) when a rank starts (seconds > 0) or ends a long step
        self.on_busy: Callable[[int, float], None] | None = None
        self._leaving = False           # this rank's program finished
        self._pids: dict[int, int] = {}           # rank -> pid, the other ranks on this host
        self._waiting: Callable[[], bool] = lambda: False
        self._pending: dict[int, tuple[Future, float, int, str, SourceLoc | None]] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._registered = threading.Condition()   # signalled by register_array
        self._new_sends: deque = deque()
        self._sends: list[Any] = []
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="phylanx-mpi-service",
                                        daemon=True)
        self._thread.start()

    # -- asking ------------------------------------------------------------------
    def request(self, target: int, what: str, payload: Any, where: SourceLoc | None) -> Future:
        """Send a request to ``target``; the future gets its answer."""
        future = external()
        with self._lock:
            if target in self.gone:
                future.set_exception(self._gone(target, what, where))
                return future
            request_id = next(self._ids)
            deadline = time.monotonic() + float(settings.get("remote_timeout"))
            self._pending[request_id] = (future, deadline, target, what, where)
        recorder = hooks.recorder      # a timeline is being recorded: one span per request
        if recorder is not None:
            recorder.remote_request(target, request_id, what, future)
        self._send((request_id, what, payload), target, REQUEST)
        return future

    @contextlib.contextmanager
    def busy(self, seconds: float) -> Iterator[None]:
        """Held around a long local step (at most ``seconds``): every other rank still
        serving is told at its start and its end (``BUSY``)."""
        self._tell_busy(seconds)
        try:
            yield
        finally:
            self._tell_busy(0.0)

    def _tell_busy(self, seconds: float) -> None:
        with self._lock:
            targets = [t for t in range(self.size) if t != self.rank and t not in self.gone]
        for target in targets:
            self._send(float(seconds), target, BUSY)

    def _gone(self, target: int, what: str, where: SourceLoc | None) -> PhylanxRemoteError:
        return PhylanxRemoteError(
            f"{what}: locality {target} has finished and stopped serving requests", where)

    def _send(self, message: Any, target: int, tag: int) -> None:
        with mpi_lock():
            request = self.comm.isend(message, dest=target, tag=tag)
        self._new_sends.append(request)

    def _send_raw(self, array: np.ndarray, target: int, request_id: int) -> None:
        """Answer ``request_id`` with ``array``: its :class:`RawArray` header, then its
        bytes on ``data_comm`` (the requester receives them once it read the header;
        the request keeps ``array`` alive until they left)."""
        header = (request_id, True, RawArray(array.shape, array.dtype))
        data = [_as_bytes(array), MPI().BYTE]   # (before the header: nothing fails between)
        with mpi_lock():
            first = self.comm.isend(header, dest=target, tag=REPLY)
            data = self.data_comm.Isend(data, target, self._data_tag(request_id))
        self._new_sends.extend((first, data))

    # -- the service loop ---------------------------------------------------------
    def _loop(self) -> None:
        status = MPI().Status()
        nap, next_check, next_liveness = 0.0, 0.0, 0.0
        while not self._stopping.is_set():
            with mpi_lock():
                message = self.comm.improbe(MPI().ANY_SOURCE, MPI().ANY_TAG, status)
                data = message.recv() if message is not None else None
            worked = message is not None
            # an interrupt raised by a callback of a future completed here (a ``then``
            # continuation) is reported, and the service goes on (interrupts.py)
            if worked:
                guarded(self._dispatch, status.Get_source(), status.Get_tag(), data,
                        rank=self.rank)
            worked |= self._complete_sends()
            now = time.monotonic()
            if now >= next_check:
                next_check = now + 0.05
                guarded(self._expire, now, rank=self.rank)
            if now >= next_liveness:
                next_liveness = now + _LIVENESS_PERIOD
                if self._pids and self._waiting():
                    guarded(self._check_liveness, rank=self.rank)
            if worked:
                nap = 0.0
                time.sleep(0)
            else:
                nap = min(0.002, nap * 2 or 0.00005)
                time.sleep(nap)

    def _complete_sends(self) -> bool:
        while self._new_sends:
            self._sends.append(self._new_sends.popleft())
        if not self._sends:
            return False
        with mpi_lock():
            done = MPI().Request.Testsome(self._sends)
        if not done:
            return False
        finished = set(done)
        self._sends = [r for i, r in enumerate(self._sends) if i not in finished]
        return True

    def _expire(self, now: float) -> None:
        with self._lock:
            late = [(i, p) for i, p in self._pending.items() if p[1] < now]
            for i, _ in late:
                del self._pending[i]
        timeout = settings.get("remote_timeout")

        def expired(entry: tuple) -> None:
            future, _, target, what, where = entry[1]
            future.set_exception(PhylanxRemoteError(
                f"{what}: locality {target} did not answer within {timeout:g} s", where))
        each(expired, late)     # every one fails, even if a done-callback raises

    def _dispatch(self, source: int, tag: int, data: Any) -> None:
        if tag == REPLY:
            request_id, ok, value = data
            if ok and type(value) is RawArray:
                value = self._receive_raw(source, request_id, value)
            with self._lock:
                entry = self._pending.pop(request_id, None)
            if entry is None:
                return          # it timed out already
            future, _, target, what, where = entry
            if ok:
                future.set_result(value)
            else:
                future.set_exception(PhylanxRemoteError(
                    f"{what} failed on locality {target}: {value}", where))
        elif tag == REQUEST:
            request_id, what, payload = data
            if what.startswith("get_remote"):
                name, index, wait = payload
                ready = name in self.arrays or not wait
                compute = functools.partial(self._read_array, name, index, wait=not ready,
                                            to_send=True)
                # not registered yet (SPMD lag): wait for it off the service thread
                thread_name = None if ready else "phylanx-mpi-read"
            else:
                compute = functools.partial(self._run, payload)
                thread_name = "phylanx-mpi-remote-call"
            recorder = hooks.recorder
            if recorder is not None:
                compute = recorder.remote_execution(source, request_id, what, compute)
            answer = functools.partial(self._answer, source, request_id, compute)
            if thread_name is None:
                answer()
            else:
                threading.Thread(target=guarded, args=(answer,), kwargs={"rank": self.rank},
                                 daemon=True, name=thread_name).start()
        elif tag == BUSY:
            if self.on_busy is not None:
                self.on_busy(source, data)
        elif tag in (LEAVING, GONE):
            status, started = data
            self._departed(source, status, started, gone=tag == GONE)

    def _departed(self, rank: int, status: int | None, started: dict[str, int],
                  gone: bool) -> None:
        """``rank`` left (its program ended with exit ``status``, None: it died), and
        stopped serving if ``gone``."""
        with self._lock:
            first = rank not in self.left
            self.left.add(rank)
            failed = []
            if gone:
                self.gone.add(rank)
                failed = [(i, p) for i, p in self._pending.items() if p[2] == rank]
                for i, _ in failed:
                    del self._pending[i]

        def gone(entry: tuple) -> None:
            future, _, target, what, where = entry[1]
            future.set_exception(self._gone(target, what, where))
        try:
            each(gone, failed)  # every one fails, even if a done-callback raises
        finally:    # the collectives learn it too, even after an interrupt
            if first and self.on_left is not None:
                self.on_left(rank, status, started)

    # -- liveness -----------------------------------------------------------------
    def watch(self, pids: dict[int, int], waiting: Callable[[], bool]) -> None:
        """Check that the processes ``pids`` (rank -> pid, on this host) run, while
        ``waiting()`` (something waits for the other ranks)."""
        self._pids, self._waiting = dict(pids), waiting

    def _check_liveness(self) -> None:
        for rank, pid in list(self._pids.items()):
            if rank not in self.left and not _alive(pid):
                del self._pids[rank]
                self._departed(rank, None, {}, gone=True)

    def _data_tag(self, request_id: int) -> int:
        return request_id % (self._tag_bound + 1)

    def _receive_raw(self, source: int, request_id: int, header: RawArray) -> np.ndarray:
        """The array whose bytes ``source`` sends right after the ``header``, received
        into a new array (``Recv``: MPI moves them at full speed inside it)."""
        array = np.empty(header.shape, header.dtype)
        with mpi_lock():
            self.data_comm.Recv([_as_bytes(array), MPI().BYTE], source,
                                self._data_tag(request_id))
        return array

    def _answer(self, source: int, request_id: int, compute: Callable[[], Any]) -> None:
        try:
            value = compute()
            if _travels_raw(value):
                self._send_raw(value, source, request_id)
                return
            pickle.dumps(value)     # fail here, with a message, rather than in isend
            reply = (request_id, True, value)
        except Exception as e:  # noqa: BLE001 - sent back to the requester
            reply = (request_id, False, f"{type(e).__name__}: {e}")
        except BaseException as e:
            # the requester gets it (it waits for an answer); then it goes on in this
            # thread, whose guard reports it (interrupts.py)
            self._send((request_id, False, f"{type(e).__name__}: {e}"), source, REPLY)
            raise
        self._send(reply, source, REPLY)

    # -- serving ------------------------------------------------------------------
    def _run(self, payload: bytes) -> Any:
        deadline = time.monotonic() + _NAME_WAIT
        while True:
            try:
                fn, args = pickle.loads(payload)
                if isinstance(fn, ByName):
                    fn = self._lookup(fn.name)
                break
            except (AttributeError, KeyError):
                # SPMD ranks run at their own pace: this one may not have defined it yet
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        return resolve_deep(fn(*args))

    def _lookup(self, name: str) -> Callable[..., Any]:
        return find_function(self.functions, name, self.rank)

    def register_array(self, name: str, array: Any, unchanged: bool = False) -> None:
        """Make ``array`` readable by other ranks; wakes reads waiting for ``name``.
        ``unchanged``: see ``distributed.register_array``."""
        with self._registered:
            self.arrays[name] = array
            (self._unchanged.add if unchanged else self._unchanged.discard)(name)
            self._registered.notify_all()

    def unregister_array(self, name: str) -> None:
        with self._registered:
            self.arrays.pop(name, None)
            self._unchanged.discard(name)

    def _read_array(self, name: str, index: Any, wait: bool = False,
                    to_send: bool = False) -> Any:
        """A copy of ``array[index]``; ``to_send`` (an answer to another rank) of an
        array registered ``unchanged``: the contiguous part itself (the raw send reads
        it before the owner may change it again)."""
        if wait:   # SPMD lag: the owner may register it a little later (not once it left)
            with self._registered:
                self._registered.wait_for(lambda: name in self.arrays or self._leaving,
                                          float(settings.get("remote_timeout")))
        if name not in self.arrays:
            finished = " (its program finished without registering it)" \
                if self._leaving else ""
            raise KeyError(f"no array registered as {name!r} on locality {self.rank}"
                           + finished)
        array = self.arrays[name]
        part = array if index is None else array[index]
        if to_send and name in self._unchanged and type(part) is np.ndarray \
                and part.flags.c_contiguous:
            return part
        return part.copy()

    # -- leaving ------------------------------------------------------------------
    def leave(self, timeout: float, status: int = 0,
              started: dict[str, int] | None = None) -> set[int]:
        """Announce we are leaving (with our exit ``status`` and the collectives we
        ``started`` per name), serve until every other rank left too (or ``timeout``),
        then say we are gone; returns the ranks that had not left."""
        news = (status, dict(started or {}))
        with self._registered:      # reads waiting for an array we never register: fail
            self._leaving = True
            self._registered.notify_all()
        for other in range(self.size):
            if other != self.rank:
                self._send(news, other, LEAVING)
        others = set(range(self.size)) - {self.rank}
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if others <= self.left:
                    break
            time.sleep(0.005)
        with self._lock:
            missing = others - self.left
        for other in range(self.size):
            if other != self.rank and other not in self.gone:
                self._send(news, other, GONE)
        # let our last messages (replies, LEAVING) go out before the loop stops
        end = time.monotonic() + 1.0
        while (self._sends or self._new_sends) and time.monotonic() < end:
            time.sleep(0.002)
        self._stopping.set()
        self._thread.join(timeout=1.0)
        return missing


def _alive(pid: int) -> bool:
    """Is process ``pid`` (of this host) running: not ended, not a zombie?"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rpartition(")")[2].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return True       # no /proc: the signal test is all we have
