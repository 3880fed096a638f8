"""Collectives as MPI non-blocking operations returning futures.

all_reduce, all_gather, broadcast, gather, scatter, reduce and barrier each start
``Iallreduce``/``Iallgather(v)``/``Ibcast``/``Igather(v)``/``Iscatter(v)``/``Ireduce``/
``Ibarrier`` and return a ``Future`` that the progress engine completes.  NumPy arrays
(and scalars) move as raw bytes; other values are pickled, with the byte counts taken
from the header exchange (``agreement.py``).

**The ordering rule.**  MPI matches collective calls on a communicator by their order,
so every rank must issue them in the same order.  Here each collective *name* gets a
communicator of its own (MPI-4 ``Comm_create_from_group`` with the name as string tag,
which ranks may create in any order), and collectives of one name run one after the
other, in the order this rank called them.  So: **collectives with the same name must
be called in the same order on every rank; collectives with different names may be
called in any order, from any thread, and overlap.**  Unnamed collectives, of every
kind, share one name (:data:`UNNAMED`), so they follow the rule together, as MPI's do;
ranks calling unnamed collectives of different kinds meet in the header exchange,
which reports the mismatch (with a name per kind they waited on two communicators).
Without MPI-4 or ``MPI_THREAD_MULTIPLE`` all collectives share one communicator and
must all be called in the same order on every rank.

A collective whose other ranks never arrive fails after ``collective_timeout``
seconds, or at once when one of them has left the program without starting it
(:meth:`Collectives.peer_left`; a leaving rank says how many collectives of each name
it started); disagreeing ranks (kind, op, root, dtype, shape) fail at once, all of them
with the same error naming the ranks (``check_collectives``, on by default: it costs
one small all-gather per collective, which carries data up to 1 KiB; a larger
all_reduce starts its data's ``Iallreduce`` together with it, and a disagreement then
renews the channel's communicator: ``_exchange``, ``_renew``).

**Who runs a collective.**  On an idle channel the calling thread does
(:meth:`Collectives._express`): it steps the operation, testing each request a bounded
number of times, and returns a future that is done already when the other ranks were
there; otherwise the progress engine adopts the operation where it stands
(``progress.py``).  Either way the operation, and so every check, is the same.  A
small checked collective called again alike runs from its plan
(``collective_plans.py``, :meth:`Collectives._express_plan`), which takes only the
outcome where every rank sent the expected header and resumes the operation otherwise.

The tiles channel's collectives carry a lockstep tag in their header (always
checked) and :meth:`Collectives.end` ends a lockstep operation with one header
exchange whose slot holds a failing rank's error; an end message among the headers
decides the exchange for every rank (``lockstep.py``, ``agreement.step_outcome``).
"""
from __future__ import annotations

import functools
import operator
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import PhylanxError
from ..runtime import hooks
from ..runtime.backoff import yield_core
from ..runtime.futures import Future, FutureTimeoutError, failed, ready
from ..source import SourceLoc
from . import agreement as ag
from . import mpi as mpi_module
from . import reduce_ops, settings
from .collective_plans import MISS, BroadcastPlan, GatherPlan, Plan, ReducePlan
from .errors import PhylanxCollectiveMismatchError, PhylanxDistributedError, PhylanxPeerLeftError
from .lockstep import SITE
from .mpi import MPI, can_create_named_communicators
from .progress import Long, ProgressEngine, data_request


def wait(future: Future) -> Any:
    """A collective's result.  The collective fails by itself after
    ``collective_timeout``; the wait's own timeout is a backstop.  The wait runs no
    other task (one could need the value of an ``async`` collective this very thread
    runs further up its stack, and wait for itself: ``tests/distributed/programs/
    async_consumers.py``); a spare worker stands in for the thread meanwhile, so a rank
    with few worker threads still starts its next ``async`` collectives (the overlap
    of data-parallel training)."""
    while True:
        try:
            return future.result(float(settings.get("collective_timeout")) + 30.0,
                                 helping=False)
        except FutureTimeoutError:
            # (a peer's long step, ``peer_busy``, moved the collective's deadline on)
            running = getattr(future, "_running", None)
            if running is None or running.finished \
                    or running.deadline + 30.0 < time.monotonic():
                raise


def _like(value: Any, result: np.ndarray) -> Any:
    """A 0-d ``result`` as the kind of scalar ``value`` was: a Python number stays a
    Python number (it travelled as a 0-d array), a NumPy scalar a NumPy scalar."""
    item = result[()]
    return item.item() if type(value) in (bool, int, float, complex) else item


def _item(part: np.ndarray, h: np.ndarray, scalar: bool) -> Any:
    """One rank's value of an all-gather from its bytes ``part`` and header ``h`` (a copy
    we own).  A 0-d array comes back as a NumPy scalar if this rank passed a scalar."""
    if h[4] != ag.ARRAY:
        return ag.unpack(part)
    item = ag.array_from_bytes(part, h)
    return item[()] if scalar and item.ndim == 0 else item


def _from_operation(e: Exception) -> Exception:
    """``e``, which the calling thread caught stepping a collective, with its traceback
    from the operation's frames on: the catching frame held, through its callers'
    frames, the collective's future, which holds ``e``: a cycle that kept the error and
    the operation's arrays until the cyclic GC ran."""
    tb = e.__traceback__
    return e.with_traceback(None if tb is None else tb.tb_next)


def _byte_view(array: np.ndarray) -> np.ndarray:
    return array.reshape(-1).view(np.uint8)    # (``array`` is C-contiguous already)


def _displacements(counts: list[int]) -> list[int]:
    return [0, *np.cumsum(counts[:-1]).tolist()] if counts else []


def _as_is(array: np.ndarray) -> np.ndarray:
    """The conversion back of a result MPI reduced in the operand's own dtype."""
    return array


def _prepare_for_op(array: np.ndarray, op: str) -> tuple[np.ndarray, Callable]:
    """The array MPI can reduce with ``op`` and the conversion of the result back
    (NumPy semantics: bools sum as integers, logical ops give bools, float min/max
    propagate NaN)."""
    key = (array.dtype, op)
    plain = _PLAIN_OPS.get(key)
    if plain:                   # (the common case: one lookup instead of three calls)
        return array, _as_is
    send, back = _prepared(array, op)
    if plain is None and len(_PLAIN_OPS) < 1024:
        _PLAIN_OPS[key] = send is array and back is _as_is
    return send, back


#: (dtype, op) -> does MPI reduce the array as it is, the result as it comes?
#: (:func:`_prepared` decides from the dtype and op alone)
_PLAIN_OPS: dict[tuple[np.dtype, str], bool] = {}


def _prepared(array: np.ndarray, op: str) -> tuple[np.ndarray, Callable]:
    keep = _as_is
    if op in ("land", "lor", "lxor"):
        return array.astype(bool), keep
    if array.dtype == np.bool_:
        if op in ("sum", "prod"):
            return array.astype(np.int64), keep
        return array.astype(np.uint8), lambda a: a.astype(bool)
    if array.dtype == np.float16:
        send, back = _prepared(array.astype(np.float32), op)
        return send, lambda a: back(a).astype(np.float16)
    if reduce_ops.orderable(array.dtype, op):
        # (MPI's MIN/MAX of floats drop a NaN: np.min/np.max propagate it)
        return reduce_ops.ordered_keys(array, op)
    return array, keep


#: all-gathering this many bytes costs about as much as 8 bytes (measured, 2 ranks:
#: 8-1152 B all 13-24 us), so reductions of arrays up to 1 KiB send the data with
#: their header and reduce locally: one round trip instead of two
_HEADER_BYTES = ag.HEADER_LENGTH * 8
#: a header's fields every rank of a broadcast or gather must share, as byte ranges: kind,
#: name, op and root before the payload's layout, the lockstep tag after it
_AGREED_HEAD, _AGREED_TAIL = 4 * 8, ag.TAG * 8
_ROOM = 1024
_SLOT = _HEADER_BYTES + _ROOM

#: the name of every unnamed collective
UNNAMED = "unnamed"

#: a channel's ``current`` while the calling thread runs a collective itself (_express)
_EXPRESS = "express"
#: how many times the calling thread tests each request of an express collective
#: before it looks at the clock: the other rank(s) being there, an 8-byte collective
#: completes within a few tests (2 ranks: 1-10)
_EXPRESS_POLLS = 64
#: how long (seconds) the calling thread goes on testing a request those tests found
#: incomplete before the engine takes the collective over.  Longer than what the
#: engine's path adds to a small collective on the other rank: a rank that handed one
#: to the engine came late to the next call by that much (8 B, 1 rank, loaded: 9.5 us
#: against the express path's 3.7, p90 11.7), where 64 tests (3-5 us) did not wait for
#: it: the ranks then took turns handing calls to the engine (ar45, 2 ranks, a loop of
#: 8-byte all_reduces: a miss followed by the other rank's in 79-97% of cases).  Not
#: much longer: a caller that starts a collective early to overlap it with its own work
#: loses this much when another rank is really late.  Tests, never a sleep.
_EXPRESS_SPIN = 25e-6
#: the layouts a channel keeps plans and typed slot views for (a program uses a few per
#: name; when more come, the cache starts afresh: a warm-up over many sizes must not
#: leave it full of layouts never used again, every later call building its own anew)
_LAYOUTS_KEPT = 64
#: ``begun`` of an exchange a plan started that completed already (``_exchange``)
_COMPLETED = "completed"

#: the local reduction of what MPI's op would compute (in rank order: the same on all)
_UFUNCS = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
           "land": np.logical_and, "lor": np.logical_or, "lxor": np.logical_xor,
           "band": np.bitwise_and, "bor": np.bitwise_or, "bxor": np.bitwise_xor}


def _refused_by_numpy(dtype: np.dtype, op: str) -> TypeError | None:
    """NumPy's error for ``op`` on ``dtype`` where its ufunc takes no such operands
    (bitwise ops of floats and complex numbers): the same error at every size, where the
    inline path of small arrays gets it from the ufunc and MPI would refuse the op."""
    if op in ("band", "bor", "bxor") and dtype.kind not in "biu":
        return TypeError(f"ufunc {_UFUNCS[op].__name__!r} not supported for the input "
                         "types, and the inputs could not be safely coerced to any "
                         "supported types according to the casting rule ''safe''")
    return None


_ALL_REDUCE = ag.KINDS.index("all_reduce")
_COMPLEX = frozenset(i for i, dt in enumerate(ag.DTYPES) if dt.kind == "c")
_NOT_INTEGER = frozenset(i for i, dt in enumerate(ag.DTYPES) if dt.kind in "fc")
_ORDERED_OPS = frozenset(ag.OPS[op][0] for op in ("min", "max"))
_BITWISE_NAMES = frozenset(("band", "bor", "bxor"))
_BITWISE_OPS = frozenset(ag.OPS[op][0] for op in _BITWISE_NAMES)
#: the bytes of a header's lockstep tag fields when it has none (all zero: comparing
#: bytes costs a fifth of NumPy's ``any`` of the slice, on every large all_reduce's path)
_UNTAGGED = bytes((ag.HEADER_LENGTH - ag.TAG) * 8)


def _speculates(h: np.ndarray) -> bool:
    """Did the rank that sent header ``h`` start its data collective alongside the
    header exchange?  An untagged checked all_reduce of an array bigger than the header
    slot's room does (``Collectives._reduce_op``), if MPI defines its op for its dtype
    (an op MPI refuses fails after the exchange, as before: a rank whose data call
    failed must not leave the others waiting for it).  A function of the header alone,
    so every rank decides the same for every rank."""
    if not (h[0] == _ALL_REDUCE and h[3] == -1 and h[4] == ag.ARRAY and h[7] > _ROOM
            and h[ag.TAG:].tobytes() == _UNTAGGED):
        return False
    return not (h[2] in _ORDERED_OPS and h[5] in _COMPLEX
                or h[2] in _BITWISE_OPS and h[5] in _NOT_INTEGER)


def _same_layout(headers: np.ndarray) -> bool:
    """Every rank brings an array, of the same dtype and shape."""
    layout = headers[:, 4:ag.SHAPE.stop]
    return bool(headers[0, 4] == ag.ARRAY and (layout == layout[0]).all())


def _completes_soon(request: Any) -> bool:
    """Test ``request`` until it completes (True) or :data:`_EXPRESS_SPIN` has passed
    (False); every 16 tests the clock is read and the core given up (``sched_yield``:
    where ranks outnumber cores, the late rank may be waiting for this one's core)."""
    if _EXPRESS_SPIN <= 0:
        return False
    deadline = time.perf_counter() + _EXPRESS_SPIN
    while True:
        for _ in range(16):
            if request.Test():
                return True
        if time.perf_counter() > deadline:
            return False
        yield_core()


def _settled(request: Any) -> bool:
    """Has a request left unmatched by a disagreement completed (or failed: ranks that
    disagreed in its count end it with MPI's truncation error, which nobody waits for)?"""
    try:
        return bool(request.Test())
    except Exception:  # noqa: BLE001 - done, with an error nobody needs
        return True


def _pickled(value: Any) -> tuple[np.ndarray, Exception | None]:
    """``value`` pickled, as bytes to send, or no bytes and the error pickling it raised:
    the rank still takes part in the header exchange, flagging its value unusable
    (``agreement.INVALID``), so that every rank fails at once (:func:`_check_sendable`)
    instead of the others pairing with its next call of the name."""
    try:
        return _byte_view(np.frombuffer(ag.pack(value), np.uint8)), None
    except Exception as e:  # noqa: BLE001 - raised after the exchange, by every rank
        return np.empty(0, np.uint8), e


def _check_sendable(headers: np.ndarray, problem: Exception | None) -> None:
    """After the header exchange: this rank's own error pickling its value, or the same
    error on every other rank if some rank could not send its value."""
    if problem is not None:
        raise problem
    unusable = [k for k, h in enumerate(headers) if h[4] == ag.INVALID]
    if unusable:
        raise _unsendable(unusable)


def _unsendable(ranks: list[int]) -> PhylanxCollectiveMismatchError:
    """The error of the ranks whose value ``ranks`` could not send."""
    return ag.agreed(PhylanxCollectiveMismatchError(
        f"{ag.ranks_text(ranks)} passed a value this collective cannot send (it "
        "cannot be pickled: see the error there)"))


def _label(kind: str, name: str) -> str:
    return kind if name == UNNAMED else f"{kind} {name!r}"


class _Buffers:
    """A channel's header slots: the one this rank sends and the ones it receives,
    reused by its collectives one after the other (an 8-byte collective costs a few
    microseconds: allocating them each time was a noticeable part)."""

    __slots__ = ("send", "send_bytes", "received", "received_headers", "slots", "header",
                 "expected", "expected_head", "expected_tail", "headers", "agreed", "_typed",
                 "exchange", "in_flight", "agreed_raw", "_agreed_rows")

    def __init__(self, size: int) -> None:
        self.send = np.zeros(_SLOT, np.uint8)
        #: the same bytes as a memoryview: data goes in as ``bytes`` (a slice assignment
        #: of a memoryview costs a quarter of NumPy's of a byte view, 8 bytes)
        self.send_bytes = memoryview(self.send)
        self.received = np.empty((size, _SLOT), np.uint8)
        self.received_headers = self.received[:, :_HEADER_BYTES]
        self.slots = self.received[:, _HEADER_BYTES:]   # every rank's inline data
        self.header: np.ndarray | None = None   # the header now in ``send``
        self.expected = b""         # its bytes once per rank: what agreeing ranks send
        #: the bytes of its fields every rank must share (``_AGREED_HEAD``, ``_AGREED_TAIL``)
        #: once per rank: what ranks agreeing on all but their data send
        self.expected_head = self.expected_tail = b""
        self.headers: np.ndarray | None = None  # ``header`` once per rank (read-only)
        #: the headers of the last exchange that found those fields agreeing (read-only),
        #: their bytes, and per rank its inline array's typed row (``agreed_row``)
        self.agreed: np.ndarray | None = None
        self.agreed_raw = b""
        self._agreed_rows: dict[int, np.ndarray] = {}
        self._typed: dict[tuple, np.ndarray] = {}
        #: MPI-4's persistent all-gather of ``send`` into ``received`` (made by the first
        #: exchange, started by each): a fifth of ``Iallgather``'s cost to start, which
        #: builds its schedule anew each call (1 rank: 0.3 us against 1.4 us)
        self.exchange: Any = None
        #: the request on these buffers whose completion no operation has seen yet: one
        #: of a collective abandoned (timed out, a rank left, interrupted) while it was
        #: in flight.  The buffers are kept, not replaced: the persistent exchange is one
        #: collective made by every rank together, which a rank cannot make anew alone,
        #: and the other ranks' next call on the channel is this request's partner.  The
        #: next exchange waits for it first (MPI writes into ``send``/``received`` until
        #: then), so the channel's calls stay paired as every rank made them.
        self.in_flight: Any = None

    def load(self, header: np.ndarray, size: int) -> None:
        """Put ``header`` in the slot this rank sends (and what ``size`` ranks agreeing
        with it send: :attr:`expected` and its agreed parts)."""
        self.send[:_HEADER_BYTES] = header.view(np.uint8)
        self.header, self.expected = header, header.tobytes() * size
        self.headers = np.repeat(header[None], size, axis=0)
        self.headers.flags.writeable = False
        raw = header.tobytes()
        self.expected_head = raw[:_AGREED_HEAD] * size
        self.expected_tail = raw[_AGREED_TAIL:] * size

    def agree(self, headers: np.ndarray, raw: bytes) -> None:
        """``headers`` (their bytes ``raw``) agree as a broadcast or gather needs."""
        self.agreed, self.agreed_raw, self._agreed_rows = headers, raw, {}

    def agreed_row(self, rank: int) -> np.ndarray:
        """``rank``'s inline array, as its header in :attr:`agreed` describes it: a view
        of its slot (valid until the next exchange), its layout read once per agreement."""
        row = self._agreed_rows.get(rank)
        if row is None:
            h = self.agreed[rank]
            row = self._agreed_rows[rank] = self.typed(ag.dtype_of(h), ag.shape_of(h))[1][rank]
        return row

    def typed(self, dtype: np.dtype, shape: tuple[int, ...]) -> tuple:
        """Every rank's inline array of ``dtype`` and ``shape`` (which it must have
        brought): a ``(ranks, *shape)`` view of the slots and its rows, made once per
        layout (indexing the rows anew cost a fifth of an 8-byte reduction's time)."""
        views = self._typed.get((dtype, shape))
        if views is None:
            nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
            view = self.slots[:, :nbytes].view(dtype).reshape((len(self.slots), *shape))
            # (rows of a 0-d layout as 0-d arrays, not scalars: ``[r, ...]``)
            views = view, tuple(view[r, ...] for r in range(len(view)))
            if len(self._typed) >= _LAYOUTS_KEPT:
                self._typed.clear()     # (the layouts of now, not those of the start)
            self._typed[(dtype, shape)] = views
        return views


class _Channel:
    """The communicator of one collective name and the queue of its collectives."""

    def __init__(self) -> None:
        self.comm: Any = None
        #: header slots (None: allocated by the next exchange; dropped when a collective
        #: is abandoned, whose MPI request may still use them)
        self.buffers: _Buffers | None = None
        self.queue: deque = deque()
        self.current: Any = None    # the collective running on the communicator
        self.started = 0            # collectives called on it so far (by this rank)
        #: communicators this channel had: one is replaced when a disagreement left a
        #: request started alongside the header exchange unmatched on it (_renew)
        self.generation = 0
        #: the tag (``Collectives._submit``) of the collective the calling thread runs
        #: while ``current`` is ``_EXPRESS``
        self.express_tag: tuple | None = None
        #: the plans of the collectives called on the channel (``collective_plans.py``),
        #: the one used last apart: a collective repeated alike finds it in a few
        #: attribute reads
        self.plan: Any = None
        self.plans: dict[tuple, Any] = {}

    def current_tag(self) -> tuple:
        """The tag of the collective running on the channel."""
        return self.express_tag if self.current is _EXPRESS else self.current.tag


class Collectives:
    """The collectives of one rank (over ``world``, completed by ``engine``)."""

    def __init__(self, world: Any, engine: ProgressEngine) -> None:
        self.world, self.engine = world, engine
        self.rank, self.size = world.Get_rank(), world.Get_size()
        self._named = can_create_named_communicators()
        #: header exchanges by a persistent all-gather per channel (MPI-4, as the names)
        self._persistent = self._named and hasattr(MPI().Intracomm, "Allgather_init")
        self._group = world.Get_group() if self._named else None
        self._shared = None if self._named else world.Dup()
        self._channels: dict[str, _Channel] = {}
        self._lock = threading.Lock()
        #: ranks whose program ended -> (exit status, collectives they started per name)
        self._departed: dict[int, tuple[int | None, dict[str, int]]] = {}
        #: requests left unmatched by a disagreement, with their buffers, which MPI may
        #: still write: kept alive until they complete (``_renew``)
        self._stranded: list[tuple] = []
        self._closed = False    # shut down (close): no more collectives

    # -- scheduling ---------------------------------------------------------
    def _submit(self, kind: str, name: str | None, make: Callable[[Any, str], Any],
                where: SourceLoc | None, value: Any = None) -> Future:
        name = name or UNNAMED
        with self._lock:
            channel = self._channels.get(name)
            # the common case: the channel idle and ready, no rank gone, no timeline
            # recorded: the calling thread runs the collective itself (_express)
            express = channel is not None and channel.current is None \
                and not channel.queue and channel.comm is not None \
                and not self._departed and hooks.recorder is None \
                and mpi_module.thread_multiple
            if express:
                channel.current = _EXPRESS
                channel.express_tag = tag = (name, channel.started, kind, where)
                channel.started += 1
        if express:
            return self._express(channel, tag, make)
        timeout = float(settings.get("collective_timeout"))
        with self._lock:
            channel = self._channels.get(name)
            if channel is None:
                if self._closed:
                    raise PhylanxDistributedError(
                        f"{_label(kind, name)} called after this rank's collectives were "
                        "shut down (at exit)", where, kind)
                channel = self._channels[name] = _Channel()
                self._open(channel, name)
            running = self.engine.track(timeout, self._on_timeout(kind, name, where, timeout),
                                        on_finish=functools.partial(self._next, channel),
                                        tag=(name, channel.started, kind, where),
                                        locate=self._locate)
            channel.started += 1
            left = self._left_without(running) if self._departed else None
            # the channel idle and ready: start it now, on this thread, without a trip
            # through the queue
            start_now = left is None and channel.current is None and not channel.queue \
                and channel.comm is not None
            if start_now:
                channel.current = running
            else:
                channel.queue.append((running, make))
        if left is not None:        # a rank that will never call it has left already
            self.engine.abandon(running, left)
        recorder = hooks.recorder      # a timeline is being recorded: one span per collective
        if recorder is not None:
            recorder.collective(kind, name, value, running.future)
        if start_now:
            self.engine.run(running, make(channel, name))
        else:
            self._next(channel)
        return running.future

    def _on_timeout(self, kind: str, name: str, where: SourceLoc | None,
                    timeout: float) -> Callable[[], BaseException]:
        def on_timeout() -> BaseException:
            return PhylanxDistributedError(
                f"{_label(kind, name)} did not complete within {timeout:g} s on rank "
                f"{self.rank}: another rank did not call it, or called collectives of this "
                "name in another order", where, kind)
        return on_timeout

    def _express(self, channel: _Channel, tag: tuple, make: Callable[[Any, str], Any],
                 spin: bool = True) -> Future:
        """Run a collective on the calling thread, the channel held (``_EXPRESS``): step
        its operation, testing each request it yields up to :data:`_EXPRESS_POLLS`
        times, then (``spin``) for up to :data:`_EXPRESS_SPIN`.  When the other ranks are
        there (the common case) every request completes within that, and the caller
        gets a future that is done already: no future of the engine, no deadline
        registered, no hand-off between threads.  Otherwise (a rank
        is late, or the operation yields a request that moves much data) the engine
        adopts the operation as it stands (a deadline from now on, the progress thread,
        the waiter's drive): exactly the operation the general path runs, only stepped
        here first, so every check of the header exchange is the same."""
        name, _, kind, where = tag
        operation = make(channel, name)
        request = None
        try:
            request = operation.send(None)
            while type(request) is not Long:
                for _ in range(_EXPRESS_POLLS):
                    if request.Test():
                        break
                else:
                    if not (spin and _completes_soon(request)):
                        break       # a rank is late: the engine waits with back-off
                request = operation.send(None)
        except StopIteration as stop:
            self._release(channel)
            return ready(stop.value)
        except Exception as e:  # noqa: BLE001 - delivered to the waiter
            self._release(channel)
            return failed(self._locate(_from_operation(e), tag))
        except BaseException:
            # an interrupt: its request may still be in flight, writing into buffers
            # the operation holds: those stay alive until it completes (as after _renew;
            # the channel's own buffers wait for it themselves: _Buffers.in_flight)
            with self._lock:
                if request is not None:
                    self._stranded.append((request, operation))
            self._release(channel)
            raise
        timeout = float(settings.get("collective_timeout"))
        running = self.engine.track(timeout, self._on_timeout(kind, name, where, timeout),
                                    on_finish=functools.partial(self._next, channel),
                                    tag=tag, locate=self._locate)
        with self._lock:
            channel.current = running
            # (a rank that left while this thread tested: peer_left did not see it)
            left = self._left_without(running) if self._departed else None
        self.engine.adopt(running, operation, request)
        if left is not None:
            self.engine.abandon(running, left)
        return running.future

    def _release(self, channel: _Channel) -> None:
        """An express collective ended on the calling thread: start what queued meanwhile."""
        with self._lock:
            channel.current = None
            queued = bool(channel.queue)
        if queued:
            self._next(channel)

    # -- plans: a small checked collective called again alike ------------------------
    def _express_plan(self, kind: str, name: str | None, value: Any, op: str | None,
                      root: int | None, where: SourceLoc | None,
                      plan_key: int) -> Future | None:
        """Run a small checked collective by its plan (``collective_plans.py``) on the
        calling thread, as :meth:`_express` would, or None: the general path runs it (no
        plan fits, the channel is busy or not ready).  The plan takes the outcome where
        every rank sent the headers it expects; any other (a late rank, a disagreement)
        goes on in the general operation, resumed after the exchange the plan started
        (``_exchange(begun=...)``), stepped by :meth:`_express`."""
        if type(value) is np.ndarray and value.nbytes > _ROOM:
            return None             # (large data: no plan, the general path at once)
        name = name or UNNAMED
        channel = self._channels.get(name)
        if channel is None:
            return None
        if kind == "broadcast" and root != self.rank:
            key: tuple = (kind, root, plan_key)     # (the others' value is not looked at)
        elif type(value) is np.ndarray:
            key = (kind, op, root, value.dtype, value.shape, plan_key)
        else:
            return None     # (converted or pickled: the general path)
        plan = channel.plan
        if plan is None or plan.key != key or plan.buffers is not channel.buffers:
            plan = self._plan_for(channel, key, kind, name, value, op, root, plan_key)
            if plan is None:
                return None
        with self._lock:
            buffers = channel.buffers
            if channel.current is not None or channel.queue or channel.comm is None \
                    or self._departed or hooks.recorder is not None \
                    or not mpi_module.thread_multiple or buffers is not plan.buffers \
                    or buffers.in_flight is not None:
                return None
            channel.current = _EXPRESS
            channel.express_tag = tag = (name, channel.started, kind, where)
            channel.started += 1
        exchange = buffers.exchange
        begun: Any = _COMPLETED
        try:
            if buffers.header is not plan.header:
                buffers.load(plan.header, self.size)
            if plan.end:
                buffers.send_bytes[_HEADER_BYTES:plan.end] = value.tobytes()
            buffers.in_flight = exchange    # (before Start: an interrupt may come between)
            exchange.Start()
            for _ in range(_EXPRESS_POLLS):
                if exchange.Test():
                    break
            else:
                if not _completes_soon(exchange):
                    begun = exchange    # a rank is late: the general operation waits
            if begun is _COMPLETED:
                buffers.in_flight = None
                result = plan.result(buffers.received_headers.tobytes(), value)
            else:
                result = MISS
        except Exception as e:  # noqa: BLE001 - delivered to the waiter
            self._release(channel)
            return failed(self._locate(_from_operation(e), tag))
        except BaseException:
            # an interrupt: the exchange may be in flight on the channel's buffers, which
            # wait for it themselves (_Buffers.in_flight)
            self._release(channel)
            raise
        if result is MISS:
            # (a late rank: the exchange was tested for _EXPRESS_SPIN already)
            return self._express(channel, tag, self._resumed(kind, value, op, root, begun,
                                                             plan_key),
                                 spin=begun is _COMPLETED)
        with self._lock:        # (_release, inline: the common case)
            channel.current = None
            queued = bool(channel.queue)
        if queued:
            self._next(channel)
        return ready(result)

    def _resumed(self, kind: str, value: Any, op: str | None, root: int | None,
                 begun: Any, plan: int) -> Callable[[Any, str], Any]:
        """The general operation of a planned collective, going on after the exchange
        its plan started (``begun``: the request, or :data:`_COMPLETED`)."""
        if kind == "all_reduce":
            return lambda channel, n: self._reduce_op(channel, n, kind, value, op, None, True,
                                                      None, begun, plan)
        if kind == "all_gather":
            return lambda channel, n: self._gather_op(channel, n, kind, value, None, None,
                                                      begun, plan)
        return lambda channel, n: self._broadcast_op(channel, n, value, root, None, True,
                                                     begun, plan)

    def _plan_for(self, channel: _Channel, key: tuple, kind: str, name: str, value: Any,
                  op: str | None, root: int | None, plan_key: int) -> Plan | None:
        """The channel's plan of this call, ``key`` (made the first time; None: the call
        has none, or the channel has no persistent exchange yet: its first collective
        makes it).  A channel's plans hold its buffers: new buffers (``_renew``), new
        plans."""
        buffers = channel.buffers
        if buffers is None or buffers.exchange is None:
            return None
        plans = channel.plans
        first = next(iter(plans.values()), None)    # (None: another thread emptied it)
        if first is not None and first.buffers is not buffers:
            plans.clear()
        if len(key) > 3 and ag.as_array(value) is not value:
            return None     # (converted or copied: the general path)
        plan = plans.get(key)
        if plan is None:
            plan = self._make_plan(buffers, kind, name, value, op, root, plan_key)
            if plan is None:
                return None
            plan.key = key
            if len(plans) >= _LAYOUTS_KEPT:
                plans.clear()       # (the layouts of now, not those of the start)
            plans[key] = plan
        channel.plan = plan
        return plan

    def _make_plan(self, buffers: _Buffers, kind: str, name: str, value: Any,
                   op: str | None, root: int | None, plan_key: int) -> Plan | None:
        """A plan of what the general operation would do with these arguments, made
        from its own pieces (the cached header, ``_prepare_for_op``, the typed slot
        views); None where the general operation converts the data."""
        fields = dict(kind=kind, op=op, root=root, buffers=buffers)
        if kind == "broadcast" and root != self.rank:
            return BroadcastPlan(False, dtype=None, shape=None, end=0, header=ag.header(
                "broadcast", name, None, root, ag.NOTHING, plan=plan_key), **fields)
        if value.nbytes > _ROOM:
            return None
        fields.update(dtype=value.dtype, shape=value.shape, end=_HEADER_BYTES + value.nbytes,
                      header=ag.header(kind, name, op, root, ag.ARRAY, value, plan=plan_key))
        if kind == "broadcast":
            return BroadcastPlan(True, **fields)
        if kind == "all_gather":
            return GatherPlan(buffers.typed(value.dtype, value.shape), **fields)
        send, back = _prepare_for_op(value, op)
        if send is not value or back is not _as_is \
                or _refused_by_numpy(value.dtype, op) is not None:
            return None
        return ReducePlan(_UFUNCS[op], buffers.typed(value.dtype, value.shape), **fields)

    # -- ranks that left -----------------------------------------------------------
    def started(self) -> dict[str, int]:
        """How many collectives of each name this rank called (told to the others when
        it leaves)."""
        with self._lock:
            return {name: channel.started for name, channel in self._channels.items()}

    def waiting_without(self, started: dict[str, int]) -> str | None:
        """A collective of ours in flight or queued that a rank, having called
        ``started[name]`` collectives of each name and calling no more (it waits for
        the ranks' agreement on its error, ``one_rank_errors.py``), never called:
        ``"all_gather 'phylanx_tiles' at file:line"``, or None.  Ours cannot complete:
        the ranks cannot all raise that rank's error."""
        with self._lock:
            for name, channel in self._channels.items():
                tags = [q[0].tag for q in channel.queue if not q[0].finished]
                if channel.current is _EXPRESS:
                    tags.append(channel.express_tag)
                elif channel.current is not None and not channel.current.finished:
                    tags.append(channel.current.tag)
                for _, index, kind, where in tags:
                    if started.get(name, 0) <= index:
                        at = f" at {where.file}:{where.line}" if where is not None else ""
                        return f"{_label(kind, name)}{at}"
        return None

    def peer_busy(self, rank: int, seconds: float) -> None:
        """``rank`` started a long local step of up to ``seconds`` (a kernel's compile:
        ``Service.busy``), or ended it (0): a collective that waits for it is not late
        until ``collective_timeout`` past that step's bound, or past its end."""
        self.engine.peer_busy(rank, seconds, float(settings.get("collective_timeout")))

    def peer_left(self, rank: int, status: int | None, started: dict[str, int]) -> None:
        """``rank``'s program ended (exit ``status``; None: its process died) after it
        called ``started[name]`` collectives of each name: fail at once every collective
        of ours it never called (the later ones of a channel first, so that none of them
        starts meanwhile)."""
        with self._lock:
            self._departed[rank] = (status, dict(started))
            victims = []
            for channel in self._channels.values():
                for running in [*reversed([q[0] for q in channel.queue]), channel.current]:
                    # (an express collective is not the engine's: it checks for ranks
                    # that left when it hands over, _express)
                    if running is not None and running is not _EXPRESS \
                            and not running.finished:
                        error = self._left_without(running)
                        if error is not None:
                            victims.append((running, error))
        for running, error in victims:
            self.engine.abandon(running, error)

    def _left_without(self, running) -> PhylanxPeerLeftError | None:
        """The error of ``running`` if a rank that left never called it (under the lock)."""
        name, index, kind, where = running.tag
        for rank, (status, started) in sorted(self._departed.items()):
            if started.get(name, 0) <= index:
                at = f" at {where.file}:{where.line}" if where is not None else ""
                how = "died (its process ended without leaving the program: killed?)" \
                    if status is None else f"left the program (exit status {status})" \
                    if status >= 0 else ("left the program by a 'raise SystemExit(...)' "
                                         "(exit status unknown: its operand is no literal "
                                         "or variable; sys.exit(n) tells it)")
                return PhylanxPeerLeftError(
                    f"rank {rank} {how} while rank {self.rank} waited in "
                    f"{_label(kind, name)}{at}", where, kind,
                    exit_status=status, departed=frozenset(self._departed))
        return None

    def _open(self, channel: _Channel, name: str) -> None:
        if not self._named:
            channel.comm = self._shared
            return

        # a renewed channel's tag can be no other channel's, whatever its name: the
        # generation comes before the name, up to a separator it cannot contain (two
        # creations with one tag at once would pair one channel's ranks with another's)
        tag = f"phylanx#{channel.generation}:{name}" if channel.generation \
            else f"phylanx:{name}"

        def create() -> None:
            # blocks until every rank asked for this name: hence its own thread
            comm = MPI().Intracomm.Create_from_group(self._group, tag)
            with self._lock:
                channel.comm = comm
            self._next(channel)
        threading.Thread(target=create, name=f"phylanx-comm-{name}", daemon=True).start()

    def _next(self, channel: _Channel, finished: Any = None) -> None:
        """Start the channel's next collective once the previous one is done."""
        with self._lock:
            if finished is not None:
                # (an abandoned collective's request may be in flight on the channel's
                # buffers: they are kept, and wait for it, _Buffers.in_flight)
                if channel.current is not finished:
                    return      # one that timed out while queued: nothing to start
                channel.current = None
            if channel.current is not None or channel.comm is None:
                return
            while channel.queue:
                running, make = channel.queue.popleft()
                if not running.finished:       # (one that timed out in the queue is skipped)
                    channel.current = running
                    break
            else:
                return
        self.engine.run(running, make(channel, running.tag[0]))

    @staticmethod
    def _locate(e: Exception, tag: tuple) -> Exception:
        """The error a collective's future gets for one its operation raised (``tag``:
        the collective's, see :meth:`_submit`): located at the caller's line, as a
        PhylanxError."""
        _, _, kind, where = tag
        if isinstance(e, PhylanxError):
            if getattr(e, "step_end", None) is not None:
                return e    # the outcome of a lockstep operation: located as that
            if e.loc is None:
                e.loc = where
            if e.primitive is None:
                e.primitive = kind
            return e
        located = PhylanxDistributedError(f"{type(e).__name__}: {e}", where, kind)
        located.__cause__ = e
        return located

    # -- the pieces every operation uses ----------------------------------------
    @staticmethod
    def _settle(buffers: _Buffers):
        """Wait for the request an abandoned collective left in flight on ``buffers``
        (``_Buffers.in_flight``): the other ranks' call it pairs with comes before their
        call this rank's next one pairs with.  (If they never make it, the collective
        waiting here times out as any other.)"""
        if buffers.in_flight is not None:
            yield buffers.in_flight
            buffers.in_flight = None
    def _headers(self, channel: _Channel, header: np.ndarray, loose: bool = False):
        headers, _ = yield from self._exchange(channel, header, None, loose=loose)
        return headers

    def _exchange(self, channel: _Channel, header: np.ndarray, data: np.ndarray | None,
                  alongside: Callable[[], tuple] | None = None, loose: bool = False,
                  begun: Any = None):
        """Every rank's header, and every rank's slot: its ``data`` if that fits.

        One all-gather of ``_SLOT`` bytes per rank: the header, then the data if it is
        at most ``_ROOM`` bytes (the rest of the slot is undefined then).  The slot size
        is fixed, not taken from the data, so that ranks that disagree (other shapes,
        other kinds of collective under one name) still make matching MPI calls and see
        each other's headers; a rank's header says how many bytes it brought, so every
        rank knows whose data came inline.  Returns ``(headers, slots)``: ``slots[r]``
        holds rank r's data, in the channel's buffer, valid until its next collective
        (None after an exchange decided by the end of a lockstep operation).

        ``alongside()`` starts the data's own collective right after the header
        exchange, so both travel at once (``_speculates``); it returns the request and
        the buffers MPI may write.  If the headers then disagree, that request may never
        be matched: it stays on the old communicator, which every rank replaces
        (``_renew``: they all saw the same headers), and the error is raised.

        ``loose``: the caller checks the headers with ``same_data=False`` (broadcast,
        gather: each rank brings its own data, or none): headers that agree in every
        field that check compares, compared as bytes, are returned as agreed
        (``_Buffers.agreed``) without the field by field look.

        ``begun``: a plan (``_express_plan``) wrote ``header`` and ``data`` into the
        slot and started the exchange already: this is its request, still in flight
        (:data:`_COMPLETED`: it completed), and the exchange goes on from there.
        """
        buffers = channel.buffers
        if buffers is None:
            buffers = channel.buffers = _Buffers(self.size)
        started = None
        if begun is None:
            if buffers.in_flight is not None:
                yield from self._settle(buffers)     # (before ``send`` is written)
            if buffers.header is not header:     # (headers are cached: usually the same)
                buffers.load(header, self.size)
            if data is not None and data.nbytes <= _ROOM:
                buffers.send_bytes[_HEADER_BYTES:_HEADER_BYTES + data.nbytes] = data.tobytes()
            if self._persistent:
                exchange = buffers.exchange
                if exchange is None:
                    # (a collective call of its own, in the channel's order like any other:
                    # every rank makes it at its first exchange on these buffers, and the
                    # buffers are replaced only on every rank at once, _renew: a rank whose
                    # collective was abandoned keeps them, _Buffers.in_flight)
                    exchange = buffers.exchange = channel.comm.Allgather_init(
                        buffers.send, buffers.received)
                buffers.in_flight = exchange    # (before Start: an interrupt may come between)
                exchange.Start()
            else:
                exchange = buffers.in_flight = channel.comm.Iallgather(buffers.send,
                                                                       buffers.received)
            started = alongside() if alongside is not None else None
            yield exchange
        elif begun is not _COMPLETED:
            yield begun
        buffers.in_flight = None
        received = buffers.received
        if not header[ag.FLAGS]:
            sent = buffers.received_headers
            raw = sent.tobytes()
            if raw == buffers.expected:
                # every rank sent this very header (the common case): no need to look
                # closer (one copy and one comparison: 1.5 us, 6.6 us slot by slot)
                return buffers.headers, buffers.slots
            if loose:
                if raw == buffers.agreed_raw:
                    # the headers the last exchange found agreeing, again (a broadcast
                    # called again alike: the root's header and the others' differ)
                    return buffers.agreed, buffers.slots
                if sent[:, :_AGREED_HEAD].tobytes() == buffers.expected_head \
                        and sent[:, _AGREED_TAIL:].tobytes() == buffers.expected_tail:
                    # kind, name, op, root, lockstep tag, no end flag and the operands'
                    # digest alike on every rank (so none speculated, none ended an
                    # operation): they agree as ``agreement.check(same_data=False)`` sees it
                    headers = sent.copy().view(np.int64)
                    headers.flags.writeable = False
                    buffers.agree(headers, raw)
                    return headers, buffers.slots
        headers = received[:, :_HEADER_BYTES].copy().view(np.int64)
        if self._named and any(_speculates(h) for h in headers):
            # (without named communicators no rank starts data early: _reduce_op)
            self._renew(channel, started, headers)
        if (headers[:, ag.FLAGS] & ag.END).any():
            # some rank ended its operation (``lockstep.py``): that decides this
            # exchange for every rank, whatever each was doing
            error = ag.step_outcome(headers, received[:, _HEADER_BYTES:])
            if error is not None:
                raise error
            return headers, None
        return headers, received[:, _HEADER_BYTES:]

    @staticmethod
    def _check(channel: _Channel, headers: np.ndarray, name: str, same_data: bool) -> None:
        """``agreement.check`` of an exchange's headers, skipped when the exchange found
        every rank's header equal to this rank's (it returned the channel's cached
        copy of them: nothing can disagree)."""
        buffers = channel.buffers
        if buffers is None or headers is not buffers.headers \
                and (same_data or headers is not buffers.agreed):
            ag.check(headers, name, same_data)

    def _arrived_data(self, channel: _Channel, start: Callable[[], Any], nbytes: int) -> Any:
        """The data request ``start()`` starts, where every rank starts its part: after a
        header exchange every rank took part in, or in an unchecked reduction, whose
        caller promised that every rank makes it alike (``check=False``).  So it is
        ``arrived``: the waiter may ``MPI_Wait`` for it itself, as for a large checked
        all_reduce's data, instead of a test loop or a hand-off to the long-wait thread
        (a rank that never comes ends the job by the deadline, located: ``on_stuck``).
        A start MPI refuses leaves the other ranks waiting in ``MPI_Wait``, which nothing
        interrupts: it ends the job, located, as the all_reduce's does
        (``ProgressEngine.end_job``)."""
        try:
            request = start()
        except Exception as e:  # noqa: BLE001 - ends the job, located
            self.engine.end_job(self._locate(e, channel.current_tag()))
        return data_request(request, nbytes, arrived=True)

    def _data(self, channel: _Channel, start: Callable[[], Any], nbytes: int,
              arrived: bool) -> Any:
        """The request ``start()`` starts, as an operation yields it: see
        :meth:`_arrived_data` for ``arrived``."""
        if arrived:
            return self._arrived_data(channel, start, nbytes)
        return data_request(start(), nbytes)

    def _gather_alike(self, channel: _Channel, data: np.ndarray, array: np.ndarray,
                      root: int | None):
        """All-gather (gather to ``root``) arrays of ``array``'s dtype and shape, one per
        rank (their headers agreed): the list of views of one ``(ranks, *shape)`` array
        (None off the root)."""
        comm = channel.comm
        if root is not None and self.rank != root:
            yield self._arrived_data(
                channel, lambda: comm.Igather([data, MPI().BYTE], None, root), data.nbytes)
            return None
        result = np.empty((self.size, *array.shape), array.dtype)
        spec = [_byte_view(result), MPI().BYTE]
        if root is None:
            yield self._arrived_data(
                channel, lambda: comm.Iallgather([data, MPI().BYTE], spec), result.nbytes)
        else:
            yield self._arrived_data(
                channel, lambda: comm.Igather([data, MPI().BYTE], spec, root), result.nbytes)
        return list(result)

    def _renew(self, channel: _Channel, started: tuple | None, headers: np.ndarray) -> None:
        """Give the channel a new communicator: a request some rank started alongside
        its header exchange may stay unmatched on the old one, where it could match a
        later collective (wrong data).  Every rank calls this for the same exchange (the
        decision is taken from the exchanged headers), so they create the new one
        together; the channel's next collectives wait for it.  A rank that started no
        such request matches the first speculator's (when the speculators' layouts
        differ too, MPI ends them, usually with its truncation error), so that such
        requests complete.  The old communicator is freed here, by every rank at the
        same point (MPI completes the requests still pending on it normally and
        deallocates it after them: renewals do not exhaust MPI's communicators); the
        requests stay, with the buffers MPI may still write, until they complete.  One
        still unmatched at exit keeps MPI from being finalized (:meth:`unsettled`)."""
        if started is None:
            started = self._match_speculators(channel.comm, headers)
        with self._lock:
            self._stranded = [entry for entry in self._stranded if not _settled(entry[0])]
            if started is not None:
                self._stranded.append(started)
            old, spent = channel.comm, channel.buffers
            channel.comm, channel.buffers = None, None
            channel.generation += 1
            name = next(n for n, c in self._channels.items() if c is channel)
            self._open(channel, name)
        if spent is not None and spent.exchange is not None:
            spent.exchange.Free()       # (complete: the exchange that renews was its last)
        old.Free()

    @staticmethod
    def _match_speculators(comm, headers: np.ndarray) -> tuple | None:
        """The all-reduce the first rank that speculated (``_speculates``) started,
        started here on scratch buffers (None if no rank speculated): every rank takes
        part in the speculators' requests, so they complete (usually with MPI's truncation
        error where their layouts differ) rather than stay pending, which would keep
        MPI from being finalized."""
        speculators = [r for r in range(len(headers)) if _speculates(headers[r])]
        if not speculators:
            return None
        h = headers[speculators[0]]
        op = ag.OP_CODES[int(h[2])]
        send, _ = _prepare_for_op(np.zeros(ag.shape_of(h), ag.dtype_of(h)), op)
        out = np.empty_like(send)
        return comm.Iallreduce(send, out, getattr(MPI(), op.upper())), send, out

    def unsettled(self, seconds: float = 2.0) -> bool:
        """Is a request left unmatched by a disagreement (``_renew``), or one an abandoned
        collective left in flight on a channel's buffers (``_Buffers.in_flight``), still
        pending after testing for up to ``seconds``?  (Then MPI cannot be finalized.)"""
        with self._lock:
            channels = [c.buffers for c in self._channels.values() if c.buffers is not None]
        pending = [entry[0] for entry in self._stranded] \
            + [b.in_flight for b in channels if b.in_flight is not None]
        deadline = time.monotonic() + seconds
        while pending and time.monotonic() < deadline:
            pending = [request for request in pending if not _settled(request)]
        for buffers in channels:
            if buffers.in_flight is not None \
                    and not any(r is buffers.in_flight for r in pending):
                buffers.in_flight = None        # (settled: its partners came)
        return bool(pending)

    def close(self, seconds: float = 2.0) -> bool:
        """At shutdown, once no collective runs any more (the engine stopped): free every
        channel's persistent header exchange that is not in flight, also one an abandoned
        collective left in flight that completed since (a timed-out one whose partners
        came later), and say whether some request is still pending (:meth:`unsettled`:
        MPI cannot be finalized).  A collective called after this fails, located."""
        pending = self.unsettled(seconds)
        with self._lock:
            self._closed = True
            channels, self._channels = list(self._channels.values()), {}
        for channel in channels:
            buffers = channel.buffers
            if buffers is not None and buffers.exchange is not None \
                    and buffers.in_flight is None:
                # (an inactive persistent request: MPI allows freeing only those)
                buffers.exchange.Free()
                buffers.exchange = None
        return pending

    def _gather_bytes(self, channel: _Channel, data: np.ndarray, counts: list[int],
                      root: int | None, arrived: bool = True):
        """Every rank's bytes, as a list of arrays (on every rank, or only on ``root``);
        ``arrived``: see :meth:`_arrived_data`."""
        comm = channel.comm
        if root is not None and self.rank != root:
            yield self._data(channel, lambda: comm.Igatherv([data, MPI().BYTE], None, root),
                             data.nbytes, arrived)
            return None
        received = np.empty(sum(counts), np.uint8)
        displs = _displacements(counts)
        spec = [received, (counts, displs), MPI().BYTE]
        if root is None:
            yield self._data(channel, lambda: comm.Iallgatherv([data, MPI().BYTE], spec),
                             received.nbytes, arrived)
        else:
            yield self._data(channel, lambda: comm.Igatherv([data, MPI().BYTE], spec, root),
                             received.nbytes, arrived)
        return [received[d:d + c] for d, c in zip(displs, counts)]

    # -- the operations ---------------------------------------------------------
    def all_reduce(self, value: Any, op: str = "sum", name: str | None = None,
                   where: SourceLoc | None = None, root: int | None = None,
                   check: bool | None = None, tag: tuple | None = None) -> Future:
        """``check``: exchange headers first (None: the setting ``check_collectives``);
        an array reduced unchecked is one MPI call, every rank must pass the same.
        ``tag``: the lockstep tag of the header (``agreement.header``); tagged
        collectives are always checked."""
        kind = "all_reduce" if root is None else "reduce"
        if type(op) is not str or op not in ag.OPS:
            op = ag.op_name(op, where, kind)
        if root is not None and (type(root) is not int or not 0 <= root < self.size):
            root = self._check_root(root, kind, where)
        if check is None:
            checked = settings.check_collectives.value
            if checked is None:
                checked = settings.check_collectives.read()
        else:
            checked = bool(check)
        at = SITE.at     # (lockstep.site_plan, inline)
        plan = 0 if at is None or tag is not None else at[2]
        if checked and root is None and tag is None and type(value) is np.ndarray:
            future = self._express_plan(kind, name, value, op, None, where, plan)
            if future is not None:
                return future
        return self._submit(kind, name, lambda channel, n: self._reduce_op(
            channel, n, kind, value, op, root, checked or tag is not None, tag, plan=plan),
            where, value)

    def reduce(self, value: Any, op: str = "sum", root: int = 0, name: str | None = None,
               where: SourceLoc | None = None) -> Future:
        return self.all_reduce(value, op, name, where, root)

    def _reduce_op(self, channel: _Channel, name, kind, value, op, root, checked, tag=None,
                   begun=None, plan=0):
        comm = channel.comm
        array = ag.as_array(value)
        scalar = array is not None and not isinstance(value, np.ndarray)
        payload = problem = None
        if array is None:       # (a value that cannot be pickled still sends its header)
            payload, problem = _pickled(value)
        form = ag.ARRAY if array is not None else ag.PICKLED if problem is None else ag.INVALID
        header = ag.header(kind, name, op, root, form, array,
                           0 if payload is None else payload.size, tag, plan)
        headers = None
        if array is not None and checked and array.nbytes > _ROOM and _speculates(header) \
                and self._named:
            # header and data at once: MPI completes the data's all-reduce only where the
            # headers agree (the same layout and op on every rank); otherwise the request
            # is left unmatched and the channel renewed (_exchange).  Once the headers
            # agree, every rank has started the all-reduce, so the waiter may MPI_Wait
            # for it itself (arrived: it cannot wait for a rank that never comes).
            send, back = _prepare_for_op(array, op)
            out = np.empty_like(send)
            mpi_op = getattr(MPI(), op.upper())
            request: list = []
            failed: list = []

            def start() -> tuple | None:
                try:
                    request.append(comm.Iallreduce(send, out, mpi_op))
                except Exception as e:  # noqa: BLE001 - reported once the headers are in
                    # (the header exchange is in flight: it must complete, so that every
                    # rank's next collective matches, and its buffers stay untouched)
                    failed.append(e)
                    return None
                return request[0], send, out
            headers, _ = yield from self._exchange(channel, header, None, alongside=start)
            self._check(channel, headers, name, True)
            if failed:
                # the headers agree: every other rank started its part of the data and
                # waits for ours, which MPI cannot withdraw from them (a collective has no
                # cancel) and which they wait for in MPI_Wait: end the job with the
                # located error rather than leave them there until the timeout
                self.engine.end_job(self._locate(failed[0], channel.current_tag()))
            yield data_request(request[0], send.nbytes, arrived=True)
            result = back(out)
            return _like(value, result) if scalar else result
        if array is not None and checked:
            send, back = (array, _as_is) if _PLAIN_OPS.get((array.dtype, op)) \
                else _prepare_for_op(array, op)
            # the header travels with the data (or alone, when the data is too big)
            headers, slots = yield from self._exchange(channel, header, send, begun=begun)
            buffers = channel.buffers
            if buffers is None or headers is not buffers.headers:
                self._check(channel, headers, name, True)
            if op in _BITWISE_NAMES:
                refused = _refused_by_numpy(send.dtype, op)
                if refused is not None:
                    raise refused       # (the dtype is the same on every rank: checked)
            if slots is not None and send.nbytes <= _ROOM:
                # small: every rank got every array (the same layout: checked); reduce
                # here, in rank order, the same on every rank
                if root is not None and self.rank != root:
                    return None
                if buffers is not None and slots is buffers.slots:
                    parts, rows = buffers.typed(send.dtype, send.shape)   # (ranks, *shape)
                else:
                    parts = slots[:, :send.nbytes].view(send.dtype).reshape(
                        (self.size, *send.shape))
                    rows = parts
                ufunc = _UFUNCS[op]
                # (dtype: a sum of int32 stays int32, as MPI's would; two ranks: the one
                # combination reduce would make, without its per-call setup)
                result = ufunc(rows[0], rows[1]) if len(rows) == 2 \
                    else ufunc.reduce(parts, axis=0, dtype=send.dtype)
                if send.ndim == 0:
                    result = np.asarray(result)    # (a ufunc of 0-d arrays gives a scalar)
                if back is not _as_is:
                    result = back(result)
                return _like(value, result) if scalar else result
        elif array is None or checked:
            headers = yield from self._headers(channel, header)
            self._check(channel, headers, name, True)
            _check_sendable(headers, problem)
        if array is not None:
            send, back = _prepare_for_op(array, op)
            refused = _refused_by_numpy(send.dtype, op)
            if refused is not None:
                raise refused       # every rank: the dtype is the same (checked or given)
            if send.dtype.kind == "c" and op in ("min", "max"):
                # MPI has no MIN/MAX of complex numbers; NumPy orders them (real part,
                # then imaginary): every rank's array, reduced here in rank order, as the
                # inline path of small arrays does
                # (checked, or unchecked: every rank promised to make it alike)
                parts = yield from self._gather_bytes(channel, _byte_view(send),
                                                      [send.nbytes] * self.size, root)
                if parts is None:
                    return None
                stacked = np.stack([p.view(send.dtype) for p in parts]).reshape(
                    (self.size, *send.shape))
                result = _UFUNCS[op].reduce(stacked, axis=0)
                return _like(value, result) if scalar else result
            mpi_op = getattr(MPI(), op.upper())
            out = np.empty_like(send)
            # (checked: after the header exchange; unchecked: every rank promised to make
            # it alike, check=False)
            if root is None:
                yield self._arrived_data(channel, lambda: comm.Iallreduce(send, out, mpi_op),
                                         send.nbytes)
            else:
                yield self._arrived_data(channel, lambda: comm.Ireduce(
                    send, out if self.rank == root else None, mpi_op, root), send.nbytes)
                if self.rank != root:
                    return None
            result = back(out)
            return _like(value, result) if scalar else result
        parts = yield from self._gather_bytes(channel, payload,
                                              [int(n) for n in headers[:, 7]], root)
        if parts is None:
            return None
        return functools.reduce(ag.OPS[op][1], [ag.unpack(p) for p in parts])

    def all_gather(self, value: Any, name: str | None = None,
                   where: SourceLoc | None = None, root: int | None = None,
                   tag: tuple | None = None) -> Future:
        kind = "all_gather" if root is None else "gather"
        if root is not None and (type(root) is not int or not 0 <= root < self.size):
            root = self._check_root(root, kind, where)
        at = SITE.at     # (lockstep.site_plan, inline)
        plan = 0 if at is None or tag is not None else at[2]
        if root is None and tag is None and type(value) is np.ndarray:
            future = self._express_plan(kind, name, value, None, None, where, plan)
            if future is not None:
                return future
        return self._submit(kind, name, lambda channel, n: self._gather_op(
            channel, n, kind, value, root, tag, plan=plan), where, value)

    def gather(self, value: Any, root: int = 0, name: str | None = None,
               where: SourceLoc | None = None) -> Future:
        return self.all_gather(value, name, where, root)

    def _gather_op(self, channel: _Channel, name, kind, value, root, tag=None, begun=None,
                   plan=0):
        # Python numbers are pickled (a few bytes): they come back as the Python numbers
        # each rank passed, whatever the others passed
        array = None if type(value) in (bool, int, float, complex) else ag.as_array(value)
        problem = None
        if array is not None:
            data = array    # (C-contiguous: its bytes travel as they are)
            header = ag.header(kind, name, None, root, ag.ARRAY, array, tag=tag, plan=plan)
        else:
            data, problem = _pickled(value)
            header = ag.header(kind, name, None, root, ag.PICKLED if problem is None
                               else ag.INVALID, nbytes=data.size, tag=tag, plan=plan)
        headers, slots = yield from self._exchange(channel, header, data, loose=True,
                                                   begun=begun)
        buffers = channel.buffers
        if buffers is None or headers is not buffers.headers or problem is not None:
            # (every rank sent this very header, a usable value: nothing to look at)
            self._check(channel, headers, name, False)
            _check_sendable(headers, problem)
        if buffers is not None and headers is buffers.headers and array is not None \
                and array.nbytes <= _ROOM:
            # every rank sent this very header: arrays of one dtype and shape, inline
            # (the common case): one copy of the slots' typed view, whose rows are the
            # result, as _gather_alike's are
            if root is not None and self.rank != root:
                return None
            stacked = buffers.typed(array.dtype, array.shape)[0].copy()
            if array.ndim == 0 and isinstance(value, np.ndarray):
                return [stacked[k, ...] for k in range(self.size)]  # (0-d arrays)
            return list(stacked)        # (rows; of a 0-d layout NumPy scalars, as _item)
        counts = [int(n) for n in headers[:, 7]]
        if slots is not None and max(counts) <= _ROOM:     # every rank's data came inline
            if root is not None and self.rank != root:
                return None
            parts = [slots[r, :n] for r, n in enumerate(counts)]
        elif array is not None and _same_layout(headers):
            # every rank brings an array of this dtype and shape (the common case): MPI
            # gathers them straight into the result, rank after rank, which the ranks'
            # arrays are views of (no staging buffer, no copies; one count for all)
            return (yield from self._gather_alike(channel, data, array, root))
        else:
            parts = yield from self._gather_bytes(channel, data, counts, root)
            if parts is None:
                return None
        scalar = not isinstance(value, np.ndarray)
        return [_item(part, h, scalar) for part, h in zip(parts, headers)]

    def broadcast(self, value: Any, root: int = 0, name: str | None = None,
                  where: SourceLoc | None = None, tag: tuple | None = None,
                  check: bool | None = None) -> Future:
        """``check``: exchange headers (None: the setting ``check_collectives``); an
        unchecked broadcast is one ``Ibcast`` of the root's header slot (and a second
        one for data too big for it), every rank must pass the same.  Tagged
        broadcasts are always checked."""
        if type(root) is not int or not 0 <= root < self.size:
            root = self._check_root(root, "broadcast", where)
        if check is None:
            checked = settings.check_collectives.value
            if checked is None:
                checked = settings.check_collectives.read()
        else:
            checked = bool(check)
        checked = checked or tag is not None
        at = SITE.at     # (lockstep.site_plan, inline)
        plan = 0 if at is None or tag is not None else at[2]
        if checked and tag is None:
            future = self._express_plan("broadcast", name, value, None, root, where, plan)
            if future is not None:
                return future
        return self._submit("broadcast", name,
                            lambda channel, n: self._broadcast_op(channel, n, value, root, tag,
                                                                  checked, plan=plan),
                            where, value if self.rank == root else None)

    def _broadcast_op(self, channel: _Channel, name, value, root, tag=None, checked=True,
                      begun=None, plan=0):
        is_root = self.rank == root
        array = ag.as_array(value) if is_root else None
        data = problem = None
        if not is_root:
            header = ag.header("broadcast", name, None, root, ag.NOTHING, tag=tag, plan=plan)
        elif array is not None:
            data = array    # (C-contiguous: its bytes travel as they are)
            header = ag.header("broadcast", name, None, root, ag.ARRAY, array, tag=tag,
                               plan=plan)
        else:
            data, problem = _pickled(value)
            header = ag.header("broadcast", name, None, root, ag.PICKLED if problem is None
                               else ag.INVALID, nbytes=data.size, tag=tag, plan=plan)
        if checked:
            headers, slots = yield from self._exchange(channel, header, data, loose=True,
                                                       begun=begun)
            buffers = channel.buffers
            if buffers is None or headers is not buffers.headers \
                    and headers is not buffers.agreed:
                self._check(channel, headers, name, False)
            sent = headers[root]
            inline = slots[root] if slots is not None else None
        else:
            sent, inline = yield from self._root_slot(channel, header, data, root)
        # (only the root brings a value: a root that cannot pickle its value still sends
        # its header, INVALID, so every rank fails here at once, instead of the others
        # waiting until their timeout, unchecked, or pairing with its next call)
        if problem is not None:
            raise problem
        if sent[4] == ag.INVALID:
            raise _unsendable([root])
        nbytes = int(sent[7])
        result = None
        if inline is not None and nbytes <= _ROOM:      # the root's data came inline
            received = inline[:nbytes]
        else:
            if is_root:
                received = data
            elif sent[4] == ag.ARRAY:   # received straight into the result (no copy)
                result = np.empty(ag.shape_of(sent), ag.dtype_of(sent))
                received = _byte_view(result)
            else:
                received = np.empty(nbytes, np.uint8)
            # (checked: every rank took part in the header exchange; unchecked, a rank
            # other than the root received its slot, so the root is there; the root
            # itself knows nothing of the others)
            yield self._data(channel, lambda: channel.comm.Ibcast([received, MPI().BYTE], root),
                             nbytes, checked or not is_root)
        if is_root:
            return value
        if sent[4] == ag.ARRAY:
            if result is None:
                buffers = channel.buffers
                if checked and buffers is not None and headers is buffers.agreed \
                        and inline is not None:
                    result = buffers.agreed_row(root).copy()   # (the layout read once)
                else:
                    result = ag.array_from_bytes(received, sent)
            return result[()] if result.ndim == 0 else result
        return ag.unpack(received)

    def _root_slot(self, channel: _Channel, header: np.ndarray, data: np.ndarray | None,
                   root: int):
        """The root's header and slot (its data if that fits), broadcast: no agreement
        check, every rank must call it alike."""
        buffers = channel.buffers
        if buffers is None:
            buffers = channel.buffers = _Buffers(self.size)
        if buffers.in_flight is not None:
            yield from self._settle(buffers)
        slot = buffers.send
        if self.rank == root:
            slot[:_HEADER_BYTES] = header.view(np.uint8)
            if data is not None and data.nbytes <= _ROOM:
                buffers.send_bytes[_HEADER_BYTES:_HEADER_BYTES + data.nbytes] = data.tobytes()
        buffers.header = None       # (the slot now holds the root's header)
        request = buffers.in_flight = channel.comm.Ibcast([slot, MPI().BYTE], root)
        yield request
        buffers.in_flight = None
        return slot[:_HEADER_BYTES].copy().view(np.int64), slot[_HEADER_BYTES:]

    def scatter(self, value: Any, root: int = 0, name: str | None = None,
                where: SourceLoc | None = None) -> Future:
        root = self._check_root(root, "scatter", where)
        at = SITE.at     # (lockstep.site_plan, inline)
        plan = 0 if at is None else at[2]
        return self._submit("scatter", name,
                            lambda channel, n: self._scatter_op(channel, n, value, root, plan),
                            where, value if self.rank == root else None)

    def _scatter_op(self, channel: _Channel, name, value, root, plan=0):
        comm = channel.comm
        is_root, size = self.rank == root, self.size
        problem, array, pieces = None, None, None
        if is_root:
            array = ag.as_array(value)
            if array is not None and array.ndim >= 1:
                header = ag.header("scatter", name, None, root, ag.ARRAY, array, plan=plan)
            elif isinstance(value, (list, tuple)) and len(value) == size:
                pieces = [np.frombuffer(ag.pack(v), np.uint8) for v in value]
                header = ag.header("scatter", name, None, root, ag.PICKLED,
                                   nbytes=sum(p.size for p in pieces), plan=plan)
            else:
                problem = (f"scatter needs a list of {size} items (one per rank) or an array "
                           f"with a first axis; got {type(value).__name__}"
                           + (f" of length {len(value)}" if isinstance(value, (list, tuple))
                              else ""))
                header = ag.header("scatter", name, None, root, ag.INVALID, plan=plan)
        else:
            header = ag.header("scatter", name, None, root, ag.NOTHING, plan=plan)
        headers = yield from self._headers(channel, header)
        self._check(channel, headers, name, False)
        if problem is not None:
            raise PhylanxCollectiveMismatchError(problem)
        ag.check_invalid(headers, root)
        sent = headers[root]
        if sent[4] == ag.ARRAY:
            shape = ag.shape_of(sent)
            rows = [shape[0] // size + (i < shape[0] % size) for i in range(size)]
            row_bytes = int(np.prod(shape[1:], dtype=np.int64)) * ag.dtype_of(sent).itemsize
            counts = [r * row_bytes for r in rows]
            # received straight into the result (no staging buffer, no copy)
            result = np.empty((rows[self.rank], *shape[1:]), ag.dtype_of(sent))
            send = [_byte_view(array), (counts, _displacements(counts)), MPI().BYTE] \
                if is_root else None
            yield data_request(comm.Iscatterv(send, [_byte_view(result), MPI().BYTE], root),
                               max(counts))
            return result
        sizes = np.array([p.size for p in pieces], np.int64) if is_root else None
        my_size = np.empty(1, np.int64)
        yield comm.Iscatter(sizes, my_size, root)
        received = np.empty(int(my_size[0]), np.uint8)
        send = None
        if is_root:
            counts = [int(s) for s in sizes]
            send = [np.concatenate(pieces) if pieces else np.empty(0, np.uint8),
                    (counts, _displacements(counts)), MPI().BYTE]
        yield comm.Iscatterv(send, [received, MPI().BYTE], root)
        return ag.unpack(received)

    def barrier(self, name: str | None = None, where: SourceLoc | None = None,
                tag: tuple | None = None) -> Future:
        at = SITE.at     # (lockstep.site_plan, inline)
        plan = 0 if at is None or tag is not None else at[2]
        return self._submit("barrier", name,
                            lambda channel, n: self._barrier_op(channel, n, tag, plan), where)

    def _barrier_op(self, channel: _Channel, name, tag=None, plan=0):
        comm = channel.comm
        if tag is not None or settings.get("check_collectives"):
            headers = yield from self._headers(channel, ag.header(
                "barrier", name, None, None, ag.NOTHING, tag=tag, plan=plan))
            self._check(channel, headers, name, False)
            return None     # the header exchange was the barrier (no rank passes it alone)
        yield comm.Ibarrier()
        return None

    def end(self, error: BaseException | None, name: str, tag: tuple,
            where: SourceLoc | None = None) -> Future:
        """Collective: end the lockstep operation ``tag`` (``lockstep.py``), with this
        rank's ``error`` or None; one exchange of header slots, the error's text in
        the slot.  Fails on every rank alike if any rank failed or is elsewhere."""
        message = np.frombuffer(ag.end_message(error), np.uint8)
        flags = ag.END | (ag.FAILED if error is not None else 0)
        header = ag.header("end", name, None, None, ag.NOTHING, nbytes=message.size,
                           tag=(*tag[:3], flags, 0, *tag[3:4]))

        def operation(channel, n):
            yield from self._exchange(channel, header, message)
            return None
        return self._submit("end", name, operation, where)

    def _check_root(self, root: Any, kind: str, where: SourceLoc | None) -> int:
        """The rank ``root`` names, as an ``int`` (a NumPy integer too); a located error
        if it names none: a float in range would make no rank the root, each comparing
        its rank with it, and gather and reduce gave None on every rank."""
        try:
            rank = operator.index(root)
        except TypeError:
            raise PhylanxDistributedError(
                f"root {root!r} is not a locality: a rank is an integer", where,
                kind) from None
        if not 0 <= rank < self.size:
            raise PhylanxDistributedError(
                f"root {root!r} is not a locality (there are {self.size})", where, kind)
        return rank
