"""Recording a timeline: spans of nodes, tasks, collectives and remote calls.

A :class:`Recorder` sets a recording layer on each node's entry in the scheduler's
side table (``runtime/choices.py``) while it runs and lifts it when it stops, as
``runtime.measure`` does for counters; the plan is never changed, and code that is not
recorded pays nothing:

* **Nodes.**  Every node's entry gets a *sampling* layer that times
  its first ``SAMPLES`` evaluations.  Then a node that was not slower than the
  threshold (at least twice) loses its layer (a scalar ``+`` in a loop
  costs nothing after a few iterations); one that was, or a function body that
  recursion re-entered, keeps a lean closure that records every evaluation
  longer than the threshold, except, for recursion, evaluations nested more than
  ``RECURSION_DEPTH`` deep in themselves (they run bare), and nodes inside a
  recursive function's body that recursion re-entered (the body's spans hold
  them).  So a node whose first evaluations were all quick and later ones slow is
  missed, as are deep levels of a recursion: the price of a recording that costs
  little.
  Nodes measured for counters (``measure.enable``) are recorded through the
  ``on_eval`` hook instead, exactly.
* **Tasks.**  While ``hooks.recorder`` is set, the executors' ``submit`` notes each
  spawn and ``Future._run_claimed`` reports each task's run (``ran``): a span with a
  flow from the spawning thread (off, each pays one test of ``hooks.recorder``).
* **Collectives and remote calls** report through ``runtime.hooks.recorder``
  (see ``collective``, ``remote_request``, ``remote_execution``).

Events are kept as tuples and converted to trace-event JSON by ``trace_file``.
Recording stops by itself when the estimated file size reaches ``max_size``.
"""
from __future__ import annotations

import gc
import hashlib
import itertools
import sys
import threading
from collections.abc import Callable
from functools import partial
from time import perf_counter_ns as clock
from types import FunctionType
from typing import Any

from .. import config
from ..runtime import hooks
from ..runtime.choices import Choice, set_recording
from ..runtime.nodes import Node

#: evaluations a node is timed before the recorder decides whether to keep timing it
SAMPLES = 16
#: evaluations of a recursive node nested deeper than this in themselves are not timed
RECURSION_DEPTH = 8
#: estimated bytes of one event in the JSON file (for the size limit)
EVENT_BYTES = 170
DEFAULT_MAX_SIZE = 200 * 1024 * 1024

# event kinds (first item of each tuple)
NODE, TASK, SPAN, FLOW_OUT, FLOW_IN = range(5)
_BODY_PARENTS = ("define-function", "lambda")
_FORKING = frozenset(("parallel_block",))   # statements spawned as tasks (but the last)


def flow_id(*key: Any) -> int:
    """An id for a flow both ranks can compute from the same key (53 bits: JSON-safe)."""
    digest = hashlib.blake2b(repr(key).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 11


def payload_bytes(value: Any) -> int:
    """Bytes a value moves in a collective (arrays: their buffer; others: pickled)."""
    nbytes = getattr(value, "nbytes", None)
    if isinstance(nbytes, int):
        return nbytes
    if value is None:
        return 0
    try:
        import pickle
        return len(pickle.dumps(value))
    except Exception:   # noqa: BLE001 - a count for display only
        return 0


class Recorder:
    """One recording (at most one runs at a time: ``hooks.recorder``)."""

    def __init__(self, threshold_us: float | None = None,
                 max_size: int = DEFAULT_MAX_SIZE, rank: int = 0, size: int = 1) -> None:
        if threshold_us is None:
            threshold_us = float(config.get("trace_threshold_us"))
        self.threshold_ns = int(threshold_us * 1000)
        self.max_size = max_size
        self.limit = max(100, max_size // EVENT_BYTES)
        self.rank, self.size = rank, size
        self.events: list[tuple] = []
        self.roots: list[Node] = []
        self.stopped: str | None = None       # why recording stopped early
        self.thread_names: dict[int, str] = {}
        self.start_ns = self.end_ns = 0
        self._restore: list[Callable[[], None]] = []
        self._seq: dict[str, itertools.count] = {}
        self._lock = threading.Lock()
        self.active = False

    # -- start / stop -----------------------------------------------------------
    def start(self) -> Recorder:
        if hooks.recorder is not None:
            raise RuntimeError("a timeline is already being recorded")
        self.active = True
        self.start_ns = clock()
        hooks.recorder = self
        hooks.install(self)
        # wrapping every live program allocates a few dozen objects a node and frees
        # none: with the collector on, that bulk set off full collections of the whole
        # heap (seconds in a process holding many programs, for no garbage); they are
        # left to the collector's next ordinary pass
        collecting = gc.isenabled()
        gc.disable()
        try:
            for root in list(hooks.programs):
                self.add_tree(root)
        finally:
            if collecting:
                gc.enable()
        return self

    def stop(self) -> None:
        if not self.active:
            return
        self.active = False
        self.end_ns = clock()
        if hooks.recorder is self:
            hooks.recorder = None
        hooks.remove(self)
        for restore in reversed(self._restore):
            restore()
        self._restore.clear()
        self.note_threads()

    def note_threads(self) -> None:
        for t in threading.enumerate():
            if t.ident is not None:
                self.thread_names.setdefault(t.ident, t.name)

    def _full(self) -> None:
        if self.stopped is None:
            mb = self.max_size / 2**20
            self.stopped = (f"the trace reached its size limit ({mb:g} MB, about "
                            f"{self.limit} events): recording stopped")
            print(f"phylanx trace: {self.stopped}", file=sys.stderr)

    # -- nodes ----------------------------------------------------------------------
    def add_tree(self, root: Node) -> None:
        self.roots.append(root)
        as_tasks: set[int] = set()
        for node in root.walk():
            if node.primitive in _FORKING:
                # every statement but the last always runs as a task, which is recorded
                # as a span named after it: timing it as a node too would only double it
                as_tasks.update(id(c) for c in node.children[:-1])
            if not node.is_const and not node.choice.counted and id(node) not in as_tasks:
                self._wrap(node)

    def on_eval(self, node: Node, start_ns: int, end_ns: int, thread_id: int) -> None:
        """The hook of nodes measured for counters: record the slow evaluations."""
        if end_ns - start_ns >= self.threshold_ns:
            events = self.events
            if len(events) < self.limit:
                events.append((NODE, node, thread_id, start_ns, end_ns - start_ns))
            else:
                self._full()

    def _wrap(self, node: Node) -> None:
        """Record ``node`` through a layer of its side-table entry (``choices.py``): the
        recording closures call ``entry.inner``, whatever the policy, the counters or a
        variant chose meanwhile, and the plan is never changed."""
        rec = self
        events, limit, thr = self.events, self.limit, self.threshold_ns
        get_ident = threading.get_ident
        parent = node.parent
        body_root = parent is not None and parent.primitive in _BODY_PARENTS
        entry = node.choice
        seen = slow = depth = 0
        reentered = False

        def record(t0: int, d: int) -> None:
            if len(events) < limit:
                events.append((NODE, node, get_ident(), t0, d))
            else:
                rec._full()

        def steady(frame):
            t0 = clock()
            try:
                value = entry.inner(frame)
            except BaseException:
                d = clock() - t0
                if d >= thr:
                    record(t0, d)
                raise
            d = clock() - t0
            if d >= thr:
                record(t0, d)
            return value

        def recursive(frame):
            # a node recursion re-enters: its evaluations nested deeper than
            # RECURSION_DEPTH in themselves run bare (the recording layer is lifted
            # meanwhile), so deep, short calls cost nothing (on this thread; others
            # skip meanwhile)
            nonlocal depth
            depth += 1
            deep = depth >= RECURSION_DEPTH
            if deep:
                set_recording(node, None)
            t0 = clock()
            try:
                return entry.inner(frame)
            finally:
                d = clock() - t0
                if deep and rec.active:
                    set_recording(node, recursive)
                depth -= 1
                if d >= thr:
                    record(t0, d)

        def sampling(frame):
            nonlocal seen, depth, slow, reentered
            depth += 1
            if depth > 1:
                reentered = True
            t0 = clock()
            try:
                return entry.inner(frame)
            finally:
                d = clock() - t0
                depth -= 1
                if d >= thr:
                    slow += 1
                    record(t0, d)
                seen += 1
                if seen >= SAMPLES and entry.recording is sampling and rec.active:
                    settle()    # the rare decision, out of the per-evaluation path

        def settle() -> None:
            # one slow sample may be the machine's hiccup; two are the node's.
            # Recursion: only the function body's root keeps a (recursive) recorder;
            # a node inside the body that recursion re-entered (the `+` of fib, its
            # calls) lies within the root's spans, and timing it cost fib(20) 3-4x
            # (its own nesting depth rarely reaches the cut)
            if reentered:
                set_recording(node, recursive if body_root else None)
            elif slow >= 2:
                set_recording(node, steady)
            else:
                set_recording(node, None)

        def restore() -> None:
            if entry.recording in (sampling, steady, recursive):
                set_recording(node, None)

        set_recording(node, sampling)
        self._restore.append(restore)

    # -- tasks ------------------------------------------------------------------------
    def ran(self, future: Any, task: Callable, t0: int) -> None:
        """A task finished (called by ``Future._run_claimed`` while ``hooks.recorder`` is
        this recorder; the executors noted its spawn in ``future._spawned``).  One event
        per task, holding what names the task (``partial(stmt.choice.call, frame)``'s function,
        else its node; never the thunk, which keeps its frame's arrays alive) and
        numbers; the spawn flow's id is given when the file is written
        (``trace_file.build``).  Kept lean: this runs once per task (an id-keyed table
        of the names was measurably slower on ``benchmarks/overhead.py --trace``)."""
        t1 = clock()
        try:
            spawn = future._spawned
        except AttributeError:
            return              # spawned before the recording started
        if spawn[1] < self.start_ns:
            return              # spawned under an earlier recording
        events = self.events
        if len(events) >= self.limit:
            self._full()
            return
        named = task.func if type(task) is partial else _node_of(task)
        events.append((TASK, named, threading.get_ident(), t0, t1 - t0, spawn[0], spawn[1]))

    # -- spans other layers report -------------------------------------------------------
    def span(self, name: str, cat: str, t0: int, t1: int, track: Any = None,
             args: dict | None = None, flow_in: int | None = None,
             flow_out: int | None = None) -> None:
        """A finished span on ``track`` (a thread id, or a key naming a virtual track)."""
        events = self.events
        if len(events) >= self.limit:
            self._full()
            return
        tid = get_ident_or(track)
        events.append((SPAN, name, cat, tid, t0, max(0, t1 - t0), args))
        if flow_in is not None:
            events.append((FLOW_IN, flow_in, tid, t0, cat))
        if flow_out is not None:
            events.append((FLOW_OUT, flow_out, tid, t1, cat))

    def collective(self, kind: str, name: str, value: Any, future: Any) -> None:
        """A collective started on this rank; its span ends when ``future`` completes.

        Collectives of one name run in the same order on every rank, so (name,
        sequence number) identifies one across ranks: each rank's start is linked
        by a flow to its completion on rank 0.
        """
        t0 = clock()
        with self._lock:
            seq = next(self._seq.setdefault(name, itertools.count()))
        nbytes = payload_bytes(value)
        rank, size = self.rank, self.size
        track = ("collective", name)

        def done(f) -> None:
            if not self.active:
                return
            t1 = clock()
            failed = f._error is not None
            args = {"kind": kind, "name": name, "seq": seq, "bytes": nbytes,
                    "ranks": size, "ok": not failed}
            self.span(f"{kind} {name}" if name != kind else kind, "collective", t0, t1,
                      track, args)
            if rank != 0:
                self.events.append((FLOW_OUT, flow_id("c", name, seq, rank),
                                    get_ident_or(track), t0, "collective"))
            else:
                for other in range(1, size):
                    self.events.append((FLOW_IN, flow_id("c", name, seq, other),
                                        get_ident_or(track), max(t0, t1 - 1000), "collective"))
        future.add_done_callback(done)

    def remote_request(self, target: int, request_id: int, what: str, future: Any) -> None:
        """This rank asked ``target`` to run something; the span lasts until the reply."""
        t0 = clock()
        rank = self.rank

        track = ("remote calls", None)

        def done(f) -> None:
            if self.active:
                t1 = clock()
                self.span(f"remote {what} -> {target}", "remote", t0, t1, track,
                          {"target": target, "what": what, "ok": f._error is None})
                self.events.append((FLOW_OUT, flow_id("req", rank, request_id), track, t0,
                                    "remote"))
                self.events.append((FLOW_IN, flow_id("rep", rank, request_id), track,
                                    max(t0, t1 - 1000), "remote"))
        future.add_done_callback(done)

    def remote_execution(self, source: int, request_id: int, what: str,
                         compute: Callable[[], Any]) -> Callable[[], Any]:
        """``compute`` (a request from ``source``) wrapped to record its execution here."""
        def traced():
            t0 = clock()
            try:
                return compute()
            finally:
                if self.active:
                    self.thread_names.setdefault(threading.get_ident(),
                                                 threading.current_thread().name)
                    self.span(f"serve {what} <- {source}", "remote", t0, clock(), None,
                              {"source": source, "what": what},
                              flow_in=flow_id("req", source, request_id),
                              flow_out=flow_id("rep", source, request_id))
        return traced


def node_of_task(named: Any) -> Node | None:
    """The node a recorded task evaluated (its event holds ``named``, what ``ran`` took
    from the task: its node or the function it called)."""
    return named if named is None or isinstance(named, Node) else _node_of(named)


def get_ident_or(track: Any) -> Any:
    return threading.get_ident() if track is None else track


#: code object of a task thunk -> index of the closure cell holding its node (or -1)
_NODE_CELL: dict[Any, int] = {}


def _node_of(fn: Callable) -> Node | None:
    """The node a task thunk evaluates (``lambda: entry.call(frame)`` holding its
    side-table entry, a timed task naming it, or ``partial(stmt.choice.call, frame)``
    whose closure holds ``stmt``), if any.

    Thunks of one kind share a code object, so where the node sits in the closure is
    looked up once per code object, not per task."""
    if type(fn) is partial:
        fn = fn.func
    if type(fn) is not FunctionType:
        return None
    named = getattr(fn, "node", None)           # a timed task (choices.timed_task)
    if named is not None:
        return named
    cells = fn.__closure__
    if not cells:
        return None
    index = _NODE_CELL.get(fn.__code__)
    if index is None:
        index = -1
        for i, cell in enumerate(cells):
            try:
                if isinstance(cell.cell_contents, (Node, Choice)):
                    index = i
                    break
            except ValueError:
                continue
        _NODE_CELL[fn.__code__] = index
    if index < 0 or index >= len(cells):
        return None
    try:
        value = cells[index].cell_contents
    except ValueError:
        return None
    if isinstance(value, Choice):
        return value.node                       # ``lambda: entry.call(frame)``
    return value if isinstance(value, Node) else None
