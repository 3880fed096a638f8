"""The scheduler's side table: every adaptive choice about a compiled node, in one place.

The plan (nodes, their closures, ``node.run``) is fixed once the compiler has built it:
nothing assigns ``node.run`` afterwards (``tests/runtime/test_plan_immutable.py``).
What may change while it runs lives here, in one :class:`Choice` per node (reached as
``node.choice``, made with the node):

* the **variant** of its closure: the compiled one, or the one a layer chose for it
  (in-place reuse's ``fast``/``plain``, a fused region given back its original
  closures): :func:`set_variant`;
* the **policy's** state (``policy.py``): watched, being timed, the decision
  ``eval_direct`` (1 inline, 0 task, -1 undecided) and the parent's ``async_children``;
* **counting** for counters (``measure.py``): :func:`set_counted`;
* **recording** for a timeline (``instrumentation/timeline.py``): :func:`set_recording`;
* what the **compiler** found once per compile: ``local_reads``, the variables the
  node's subtree reads if it holds no communicating or impure primitive, else None
  (``compiler/dependencies.mark_local_work``; ``distributed/local_work.py`` reads it).

Callers evaluate a node as ``node.choice.call(frame)``.  ``call`` is derived from those
decisions by :meth:`Choice.compose` alone (variant, wrapped by the policy's timing or the
counting, wrapped by the recording), whenever one changes; hot closures capture their
children's entries, so the steady state costs one attribute load per node, as reading a
swapped ``node.run`` did.  Layers never wrap each other's wrappers.

**Revisiting.**  A decision of the policy is not final: each is timed again after a
number of top-level evaluations (:func:`tick`, once per ``forkjoin.evaluate``) that
doubles each time the new timing confirms it (``REVISIT_FIRST`` .. ``REVISIT_MAX``),
and a node running as a task is also timed again when one of its runs takes more than
twice or less than half of what it took when decided, or after ``period`` runs as a
task.  A minute on a busy machine thus costs a few timed evaluations later, never a
wrong choice for ever.  Inline-versus-task changes no value (same kernels, same order),
so it is decided per locality from local timings.  This table holds no choice that
changes rounding: a variant it is given (in-place reuse writes the same values into
another buffer; a fused region's original closures) computes what the compiled closure
does.  A fused region given back to its original closures on its timings is revisited
too: it runs them timed (``FusedRegion.given_back_variant``) and its kernel is retried after
:func:`later` ticks, twice as many on each confirmation, or when that timed cost moves by
more than ``COST_FACTOR``; a fused kernel kept on its timings is checked against one
timed NumPy evaluation on the same schedule (``FusedRegion.keep``), and takes its timed
turns again if it no longer looks faster.  Fused kernels are chosen inside
``fusion/hot.py`` (serial or parallel loop, kernel or NumPy, by local timings); for a
reduction that choice changes the summation order, and making it agree across
localities (from shapes, or decided by locality 0) is still to do.
"""
from __future__ import annotations

import heapq
import itertools
import threading
import weakref
from time import perf_counter_ns
from typing import Any

from . import hooks

#: the clock every timing of this table reads (tests replace it: a fake clock)
clock = perf_counter_ns

#: top-level evaluations before a decision is timed again; doubled on each confirmation
REVISIT_FIRST = 8
REVISIT_MAX = 4096
#: a run as a task that took more than this factor more (or less) than when decided
#: makes the node be timed again
COST_FACTOR = 2

_lock = threading.RLock()
_ticks = [0]
#: (tick due, sequence, weak entry): decisions to time again
_due: list[tuple[int, int, Any]] = []
#: (tick due, sequence, weak action): other choices to make again (:func:`later`)
_later: list[tuple[int, int, Any]] = []
_seq = itertools.count()


class Choice:
    """The side-table entry of one node (see the module docstring)."""

    __slots__ = (
        "node", "plain", "variant", "inner", "call", "counted", "recording",
        "watched", "measuring", "eval_direct", "async_children", "float_matrix",
        "runs", "spent_ns", "decided_ns", "decided", "period", "due", "task_runs",
        "local_reads", "__weakref__",
    )

    def __init__(self, node: Any):
        self.node = node
        self.plain = self.variant = self.inner = self.call = _unbuilt
        self.counted = False
        self.recording = None
        self.watched = False       # timed by the policy (its siblings could run beside it)
        self.measuring = False     # being timed now (first decision or a revisit)
        self.eval_direct = -1
        self.async_children = False
        self.float_matrix = False  # the timed evaluations gave a float matrix (policy.py)
        self.runs = 0
        self.spent_ns = 0
        self.decided_ns = 0        # mean time of an evaluation when last decided
        self.decided = -1          # the previous decision (-1: none yet)
        self.period = REVISIT_FIRST
        self.due = 0               # the tick at which the decision is timed again
        self.task_runs = 0
        self.local_reads = None    # not marked local work: may communicate

    def compose(self) -> None:
        """Derive ``call`` from the decisions (the only place that sets it)."""
        fn = self.variant
        if self.counted:
            fn = _counting(self, fn)
        elif self.measuring:
            fn = _measuring(self, fn)
        self.inner = fn
        rec = self.recording
        self.call = fn if rec is None else rec

    def rebase(self, fn: Any) -> None:
        """The compiler built (or rebuilt, while constructing) the node's closure."""
        self.plain = self.variant = fn
        self.compose()

    def __repr__(self) -> str:
        return (f"<Choice {self.node!r} eval_direct={self.eval_direct} "
                f"measuring={self.measuring} period={self.period}>")


def _unbuilt(frame: list) -> Any:  # pragma: no cover - guards compiler bugs
    from ..errors import PhylanxRuntimeError
    raise PhylanxRuntimeError("internal error: node evaluated before it was built")


# -- the layers ---------------------------------------------------------------------
def _measuring(entry: Choice, inner):
    def measuring(frame):
        start = clock()
        value = None
        try:
            value = inner(frame)
            return value
        finally:
            # recursion re-enters the same node: only completions before the decision
            # count, later (outer) ones must not overturn it
            if entry.measuring:
                measured(entry, clock() - start, value)
    return measuring


def _counting(entry: Choice, inner):
    node = entry.node
    get_ident = threading.get_ident

    def counted(frame):
        start = clock()
        value = None
        try:
            value = inner(frame)
            return value
        finally:
            end = clock()
            if entry.measuring:
                measured(entry, end - start, value)
            record(node, start, end, get_ident())
    return counted


def measured(entry: Choice, elapsed: int, value: Any) -> None:
    """One timed evaluation for the policy (concurrent ones under the lock: only the
    few timed evaluations pay for it)."""
    from .policy import Thresholds, decide, observe
    with _lock:
        if not entry.measuring:
            return
        entry.runs += 1
        entry.spent_ns += elapsed
        observe(entry, value)
        if entry.runs >= Thresholds.count:
            decide(entry)


def record(node: Any, start: int, end: int, thread_id: int) -> None:
    """Count one evaluation of ``node`` from ``start`` to ``end`` (ns) on ``thread_id``
    and report it to the hooks (also for evaluations not run through the node's
    closure: ``async(<collective>)``, whose value comes when MPI completes it)."""
    node.count += 1
    node.time_ns += end - start
    for hook in hooks.active():
        on_eval = getattr(hook, "on_eval", None)
        if on_eval is not None:
            on_eval(node, start, end, thread_id)


# -- what the layers ask for ----------------------------------------------------------
def set_variant(node: Any, fn: Any, replacing: Any = None) -> None:
    """Run ``fn`` (a closure equivalent to the compiled one) for ``node`` from now on;
    if ``replacing`` is given, only if that is the variant still in use."""
    entry = node.choice
    with _lock:
        if replacing is None or entry.variant is replacing:
            entry.variant = fn
            entry.compose()


def set_counted(node: Any, on: bool) -> None:
    entry = node.choice
    with _lock:
        if entry.counted != on:
            entry.counted = on
            entry.compose()


def set_recording(node: Any, fn: Any) -> None:
    """Evaluate ``node`` through ``fn`` (a timeline's closure, which calls
    ``node.choice.inner``), or as before if None."""
    # no lock: a recursive recorder lifts and sets its layer around deep evaluations; a
    # race with compose() can only drop or keep a recording layer a moment too long
    entry = node.choice
    entry.recording = fn
    entry.call = entry.inner if fn is None else fn


def watch(node: Any) -> None:
    """Time ``node`` until the policy decides (``policy.watch``)."""
    entry = node.choice
    with _lock:
        entry.watched = True
        if entry.eval_direct == -1 and not entry.measuring:
            _rearm(entry)


def _rearm(entry: Choice) -> None:
    entry.measuring = True
    entry.runs = entry.spent_ns = 0
    entry.compose()


def settle(entry: Choice, eval_direct: int, mean_ns: int) -> None:
    """The policy decided (under the lock): record it, schedule its revisit, stop
    timing.  A decision that a revisit confirms is revisited half as often."""
    if entry.decided == eval_direct:
        entry.period = min(entry.period * 2, REVISIT_MAX)
    else:
        entry.period = REVISIT_FIRST
    entry.decided = entry.eval_direct = eval_direct
    entry.decided_ns = max(int(mean_ns), 1)
    entry.measuring = False
    entry.task_runs = 0
    entry.compose()
    parent = entry.node.parent
    if parent is not None:
        parent.choice.async_children = any(
            c.choice.eval_direct == 0 for c in parent.children)
    entry.due = _ticks[0] + entry.period
    heapq.heappush(_due, (entry.due, next(_seq), weakref.ref(entry)))


def tick() -> None:
    """One top-level evaluation begins: time again the decisions that are due."""
    now = _ticks[0] = _ticks[0] + 1
    if _later and _later[0][0] <= now:
        with _lock:
            while _later and _later[0][0] <= now:
                action = heapq.heappop(_later)[2]()
                if action is not None:
                    action()
    if _due and _due[0][0] <= now:
        with _lock:
            while _due and _due[0][0] <= now:
                due, _, ref = heapq.heappop(_due)
                entry = ref()
                # (a decision taken again since this was scheduled has its own due tick)
                if entry is not None and entry.due == due and not entry.measuring:
                    _rearm(entry)


def later(ticks: int, action: Any) -> None:
    """Call ``action()`` at the top-level evaluation ``ticks`` from now (a layer making a
    choice of its own again, e.g. in-place reuse probing a node again).  The table holds
    it weakly: the layer keeps it alive as long as the choice matters."""
    with _lock:
        heapq.heappush(_later, (_ticks[0] + ticks, next(_seq), weakref.ref(action)))


def task_ran(entry: Choice, elapsed: int) -> None:
    """A node decided to run as a task ran as one in ``elapsed`` ns: time it again if
    its cost moved by more than ``COST_FACTOR`` or after ``period`` runs as a task."""
    if entry.measuring:
        return
    entry.task_runs += 1
    decided = entry.decided_ns
    if (elapsed > COST_FACTOR * decided or COST_FACTOR * elapsed < decided
            or entry.task_runs >= entry.period):
        with _lock:
            if not entry.measuring and entry.watched:
                _rearm(entry)


def timed_task(entry: Choice, frame: list, runs: Choice | None = None):
    """The thunk a parent spawns for a child running as a task: it times the run (of
    ``runs``, a statement holding the node, if given: ``overlap.py``)."""
    call = (runs or entry).call

    def task():
        start = clock()
        value = call(frame)
        task_ran(entry, clock() - start)
        return value
    task.node = (runs or entry).node     # what a timeline names the task after
    return task
