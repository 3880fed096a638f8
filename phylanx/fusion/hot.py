"""When a region runs fused: cold, hot, checked, measured, or given back to NumPy.

The root node of every region (``regions.py``) evaluates through a
:class:`FusedRegion`, in one of three states:

* **cold** — the original closures run, timed.  An evaluation that took at least
  ``fusion_min_time_us`` and gave at least ``fusion_min_size`` elements (a reduction:
  the time alone) counts as *big*; after ``fusion_count_threshold`` big ones, if they
  are the majority, the region is hot (both settings as the program was compiled with
  them: they are of its plan, ``config.PLAN``).  A region whose evaluations are four in
  five small, after 64 of them, hands its node back its original closure (no cost left at
  all: scalar loops, small arrays), through the node's entry in the scheduler's side
  table (``runtime/choices.py``), which gives it another look later (cold again after
  8 top-level evaluations, twice as many each time: sizes may have grown).
* **hot** — the leaves are evaluated once and the region's operations are applied to
  them (``interpret``, the same kernels, the same order) until a kernel exists for the
  leaves' dtype signature.  The first such evaluation records the intermediates' dtypes
  and plans the kernel (``codegen.plan``); compiling starts only once the time spent
  unfused reaches the expected compile cost (``kernels/costs.py``: measured, a load
  when numba's disk cache holds the kernel): the ski-rental rule, so a program that
  stops early never paid more than twice what it would have without fusion.  The
  compile runs in a background thread (``fusion_background``) while the region keeps
  running unfused.
* **checked, then measured** — the first kernel result is compared with the NumPy
  result of the same leaves (dtype, shape, NaN/inf positions, values within a tolerance
  relative to the data); then the serial loop, the parallel loop and NumPy take turns
  on the next evaluations (the operations alone, timed; best of three each): the
  faster loop is kept if it beats NumPy, else the region is *given back* to its
  original closures.  Giving back is a decision of the scheduler's side table
  (``runtime/choices.py``), revisited as the inline-or-task decisions are: the kernel
  takes its timed turns again after ``REVISIT_FIRST`` top-level evaluations (twice as
  many after each give-back that confirms it), or sooner when the unfused evaluation's
  cost moves by more than ``choices.COST_FACTOR``, so a busy minute does not give a region back
  for ever (``give_back``).  A kernel *kept* is revisited by the same schedule
  (``keep``): after ``REVISIT_FIRST`` top-level evaluations (twice as many after each
  re-check that confirms it), or at once when the kernel's recent cost moves by more
  than ``choices.COST_FACTOR`` from its cost when kept, one evaluation runs NumPy,
  timed (``recheck``); a kernel no longer faster than that takes its timed turns
  again, so a kernel kept in a quiet minute is not kept for ever either.

A region whose leaves are tiled arrays runs through the runner the distributed layer
installs (``set_tiled_runner``: ``distributed/fused_tiles.py``): the same policy on
each rank's own tiles when the region is row-local, leaving exactly the trace the
node-by-node rules would (so each rank may choose the kernel or NumPy for its tile
alone), else node by node.  Whether the region is hot is decided alike on every rank
(a tiled value is big by its global size; a tile's small evaluation is not counted):
a hot evaluation computes the leaves first, a cold one in the tree's order, and a
declined region's collectives must not run out of step.

Every timing here reads the side table's clock (``choices.clock``: tests inject one).

A kernel runs only on operands ``prepare`` accepted for its signature (kinds, dtypes,
layouts, shapes: checked before it runs); an exception from it anyway is a kernel bug
and a located error at the region's root, never a silent retry with NumPy.  A kernel
that fails to compile or disagrees with NumPy's result on its check gives one
``FusionWarning`` line and the region runs NumPy from then on: never a wrong result.

The serial and the parallel loop round alike (a reduction's partials are split by the
size alone, ``codegen.chunks``), so the loop picked by local timings never changes a
result.  Whether NumPy or a kernel computes a value does change its rounding: with
several localities (:func:`in_lockstep`) that choice is made from counts and sizes
alone, so that ranks computing the same replicated values round them alike.
"""
from __future__ import annotations

import math
import threading
import time
import warnings
import weakref
from typing import Any

import numpy as np

from ..kernels import compiling, costs
from ..kernels.compiling import (
    KERNEL_LOCK,
    FusionWarning,
    Plan,
    Settings,
    array_key,
    describe_failure,
    launch,
)
from ..runtime import choices
from ..runtime.nodes import Node
from . import codegen
from .regions import Region, interpret

COLD, HOT, OFF = 0, 1, 2
GIVE_UP = 64            # cold evaluations without a big one before the region retires
#: the timed evaluations (0 parallel loop, 1 serial loop, 2 NumPy), best of three each:
#: the parallel loop never right after NumPy (the check ran it), whose BLAS threads spin
#: on the cores for a while after a product and slow a loop that needs every core
#: (seen on W1's gram while developing: 13-22 ms just after NumPy, 8 ms once they
#: sleep; benchmarks/row_passes.py times it)
#: NumPy is timed second (once) so that a serial loop far slower than NumPy ends the
#: turns early (``hopeless``); the parallel loop still never runs right after NumPy
TURNS = (1, 2, 1, 1, 0, 0, 0, 2, 2)
SPEED_RUNS = len(TURNS)
#: serial turns taken before ``hopeless`` may end the turns (the best of them decides)
HOPELESS_AFTER = 2
#: after the turns, one kernel call in this many runs the other loop (parallel/serial)
EXPLORE = 32
SPEED_MARGIN = 0.95     # kept only if its best is below this fraction of NumPy's best
#: evaluations given back whose best time is compared with the reference (give_back)
COST_WINDOW = 3
KEEP_SLOWER = False     # tests: keep a checked kernel even when it is slower


#: ``np.errstate`` modes a kernel does not honour (it neither raises nor calls back):
#: while one is set, the tree runs NumPy's own code
RAISING = frozenset(("raise", "call"))


class _Planned:
    """A kernel planned for a signature, not compiled yet."""

    def __init__(self, plan: Plan, samples: tuple, result: Any):
        self.plan, self.samples, self.result = plan, samples, result

    def due(self, unfused_ns: int) -> bool:
        """Time to compile, after ``unfused_ns`` spent unfused: the expected compile
        cost (``kernels/costs.py``; it falls once numba is set up in this process)."""
        return costs.due(self.plan.source, unfused_ns)


_ranks: list[bool] = []

#: the runner of a region on the local tiles of tiled operands, set by the layer that
#: owns them (``distributed/fused_tiles.py``; fusion does not import it): ``kind`` (the
#: tiled type), ``size(value)`` (global), and ``run(region, values, compute)``, which
#: computes the region's tiled value from the tiles with ``compute`` (the fused path
#: on plain values) and leaves what the node-by-node path would, or returns
#: ``NotImplemented`` (operands it does not cover: the node-by-node path runs)
_TILED: list[Any] = []


def set_tiled_runner(runner: Any) -> None:
    """Install ``runner`` (see ``_TILED``): regions with tiled leaves go through it."""
    _TILED[:] = [runner]


def _tiled_kind() -> Any:
    return _TILED[0].kind if _TILED else None


def in_lockstep() -> bool:
    """True when several localities (MPI ranks) run this program: every choice that can
    change a result's rounding (fused or NumPy, from which evaluation on) is then made
    from counts and sizes, never from local timings, so that ranks computing the same
    replicated values round them alike: an evaluation is big by its size alone, a
    kernel compiles in the calling thread as soon as it is planned, and once checked it
    is kept without timed turns against NumPy.  (The serial and parallel loops round
    alike: ``codegen.chunks``.)"""
    if not _ranks:
        from ..runtime.locality import here
        _ranks.append(here().count() > 1)
    return _ranks[0]


#: regions whose kernel for some signature is planned, compiling, or on trial (added
#: by any thread: read and written under the lock)
_TRIALS: weakref.WeakSet = weakref.WeakSet()
_TRIALS_LOCK = threading.Lock()
#: a region not on trial for this long is not settling any more (it stopped running)
SETTLED_AFTER_S = 2.0


def settling() -> bool:
    """True while a region run in the last ``SETTLED_AFTER_S`` seconds has a kernel
    planned, compiling, or being checked and timed: the calls made now are not the
    steady state (benchmarks wait for this to end)."""
    now = time.monotonic()
    with _TRIALS_LOCK:
        regions = list(_TRIALS)
    return any(now - region.trial_at < SETTLED_AFTER_S and region.on_trial()
               for region in regions)


class _Kernel:
    """A compiled kernel and what it takes to call it."""

    def __init__(self, planned: _Planned, kernels: tuple[Any, Any]):
        self.variants = kernels              # (every core, one core)
        self.kernel = kernels[0]
        self.reduction = planned.plan.reduction
        result = planned.result
        self.out_dtype = result.dtype if self.reduction is None else None
        self.result_type = type(result)
        self.result_dtype = getattr(result, "dtype", None)
        self.checked = False
        self.calls = 0
        self.warm = False
        self.timed_runs = 0
        self.timed_ns = [0, 0, 0]            # best time: parallel, serial, NumPy
        self.current = 0                     # the loop in use after the turns
        self.recent = [0, 0]                 # moving average of each loop's time
        self.steady_calls = 0
        self.since_explore = 0               # ns on the loop in use since the other ran
        # kept on its timings (``FusedRegion.keep``): the kernel's cost then, the
        # re-check due (one NumPy evaluation timed), its period and its scheduled action
        self.kept_ns = 0
        self.recheck_due = False
        self.recheck_after = choices.REVISIT_FIRST
        self.pending_recheck: Any = None

    def __call__(self, shape: tuple, n: int, args: list) -> Any:
        self.calls += 1
        if self.reduction is None:
            out = np.empty(shape, dtype=self.out_dtype)
            with KERNEL_LOCK:
                self.kernel(out.reshape(-1), n, *args)
            return out
        with KERNEL_LOCK:
            parts = self.kernel(n, codegen.chunks(n), *args)
        acc = parts.sum()               # the same partials, in the same order, every variant
        if self.reduction == "mean":
            acc = acc / n
        if self.result_dtype is not None and issubclass(self.result_type, np.generic):
            return self.result_dtype.type(acc)
        return self.result_type(acc)


_PENDING = "pending"        # compiling in the background
_REJECTED = "rejected"      # this signature runs unfused


class _Failed:
    def __init__(self, message: str):
        self.message = message


class FusedRegion:
    """The evaluation closure of one region's root node (see the module docstring)."""

    def __init__(self, region: Region, node: Node):
        self.region = region
        self.node = node
        self.original = node.inline
        self.leaves = region.leaves
        self.reduction = region.root.reduction
        self.state = COLD
        self.big = self.small = 0
        # when it goes hot, by the settings the program was compiled with (part of its
        # plan key, config.PLAN): read at run time, a change on one rank after
        # compiling made its regions hot at another evaluation than its peers' (the
        # leaves' collectives in another order, other rounding), under the same key
        self.min_size, self.hot_after = Settings.min_size, Settings.count
        self.unfused_ns = 0
        self.unfused_runs = 0
        self.kernels: dict[tuple, Any] = {}
        self.lock = threading.Lock()
        self.warned = False
        self.trial_at = 0.0       # last evaluation with a kernel not steady yet
        self.revisit_after = choices.REVISIT_FIRST
        # held here: the side table holds the revisit weakly (bound methods are made anew)
        self.reconsider = self.look_again
        # given back on its timings (``give_back``): the node's variant, the original
        # closures timed, and the revisit of that decision
        self.timed_original = self.given_back_variant()
        self.retry_after = choices.REVISIT_FIRST     # ticks before the next retry
        self.retry_runs = 0        # evaluations given back before a cost change counts
        self.pending_retry: Any = None               # the scheduled retry (held here)
        self.cost_ref = 0          # best unfused time of the first window after give-back
        self.cost_window: list[int] = []
        self.given_back_runs = 0

    def on_trial(self) -> bool:
        """A kernel of this region is planned, compiling, or checked and timed."""
        return self.state == HOT and any(
            type(e) is _Planned or e is _PENDING
            or (isinstance(e, _Kernel) and not (e.checked and e.timed_runs >= SPEED_RUNS))
            for e in list(self.kernels.values()))

    def __repr__(self) -> str:
        state = ("cold", "hot", "off")[self.state]
        return f"<FusedRegion {self.region.describe()} {state}>"

    def run(self, frame: list) -> Any:
        state = self.state
        if state == COLD:
            return self.cold(frame)
        if state == HOT:
            return self.hot(frame)
        return self.original(frame)

    def declines(self, frame: list) -> bool:
        """True if evaluating the node now would run the expression as written and
        change nothing in this policy (the region is off): a translated loop around
        the node (compiler/scalar_loops.py) may then run its own translation of the
        expression instead, which computes the same (the array loops' law)."""
        return self.state == OFF

    # -- cold ---------------------------------------------------------------------
    def cold(self, frame: list) -> Any:
        start = choices.clock()
        value = self.original(frame)
        elapsed = choices.clock() - start
        # big: slow enough, and (unless a reduction hides it) an array big enough, so
        # that a descheduled small evaluation on a loaded machine does not count
        if (elapsed >= Settings.min_ns or in_lockstep()) and self.big_value(value):
            self.big += 1
            self.unfused_ns += elapsed
            self.unfused_runs += 1
            if self.big >= self.hot_after and self.big >= self.small and self.switched_on:
                self.state = HOT
        else:
            self.small += 1
            if self.small >= GIVE_UP and 4 * self.big < self.small:
                self.mostly_small()
        return value

    def big_value(self, value: Any) -> bool:
        """A cold evaluation's value is big enough to count (a descheduled small
        evaluation on a loaded machine must not; a reduction hides the size)."""
        if type(value) is _tiled_kind():
            # by its global size, alike on every rank: a hot rank evaluates the leaves
            # first, a cold one in the tree's order, which must not put a declined
            # region's collectives out of step (each tile's kernel or NumPy is still
            # its rank's own choice: ``hot_values`` on the tiles, uncounted)
            return self.reduction or _TILED[0].size(value) >= self.min_size
        return self.reduction or (type(value) is np.ndarray
                                  and value.size >= self.min_size)

    # -- what a subclass (rowpass.RowPass) changes -----------------------------------
    kernel_class = _Kernel

    def enabled(self) -> bool:
        """The setting that lets this kind of region become hot, as it is now
        (``install`` keeps its value in ``switched_on``)."""
        return Settings.enabled

    #: ``enabled()`` when the program was compiled (``fusion.install`` sets it): a
    #: compiled program keeps the settings it was compiled with, so that a program
    #: compiled with ``fusion`` on and one with it off can run side by side
    #: (``benchmarks/settings_ab.py``; before, the setting read at run time left the
    #: first one's regions cold for ever, timed on every evaluation)
    switched_on = True

    def min_elements(self) -> int:
        return self.min_size

    def prepare(self, values: list) -> tuple | None:
        """(signature, kernel arguments, output shape, size), or None: run unfused."""
        return _prepare(values)

    def unfused(self, values: list, record: list | None = None) -> Any:
        """The value the original closures compute, from the leaves' values."""
        return interpret(self.region, values, record)

    def record_size(self) -> int:
        return len(self.region.ops) + 1

    def make_plan(self, sig: tuple, args: list, values: list, record: list,
                  result: Any) -> tuple | None:
        """(Plan, sample arguments to compile for), or None: not fusable."""
        roles = [s[0] for s in sig]
        plan = codegen.plan(self.region, roles, [_scalar_or_sample(v, r) for v, r in
                                                 zip(values, roles)], record)
        if isinstance(plan, str):
            return None
        if plan.reduction is None and not isinstance(result, np.ndarray):
            return None
        samples = tuple(a[:1] if r == "a" else a for a, r in zip(args, roles))
        if plan.reduction is None:
            return plan, (np.empty(1, result.dtype), 1) + samples
        return plan, (1, 1) + samples

    def disagreement(self, fused: Any, expected: Any, record: list, entry: Any,
                     values: list) -> str | None:
        return disagreement(fused, expected, record, entry.reduction)

    def mostly_small(self) -> None:
        """Four in five evaluations were small: not worth watching any more, until the
        side table gives the region another look (sizes may have grown): after
        ``choices.REVISIT_FIRST`` top-level evaluations, twice as many each time."""
        self.retire()
        choices.later(self.revisit_after, self.reconsider)
        self.revisit_after = min(2 * self.revisit_after, choices.REVISIT_MAX)

    def look_again(self) -> None:
        """Watch the region again, cold (``mostly_small``'s revisit), if its node still
        runs the original closures."""
        if self.state == OFF and self.node.choice.variant is self.original:
            self.big = self.small = 0
            self.state = COLD
            choices.set_variant(self.node, self.run, replacing=self.original)

    def retire(self, variant: Any = None) -> None:
        """Run the original closures from now on (the node's side-table entry runs them
        directly, or through ``variant``: this wrapper costs nothing any more)."""
        self.state = OFF
        node = self.node
        if node.choice.variant == self.run:
            # the side table's choice
            choices.set_variant(node, self.original if variant is None else variant)

    # -- given back on its timings, and tried again ---------------------------------
    def give_back(self) -> None:
        """The timed turns found no loop beating NumPy: NumPy runs from now on, but the
        decision is revisited (issue 27), since the timings may have been taken in a busy
        minute.  The side table retries the kernel after ``retry_after`` top-level
        evaluations, twice as many on each give-back that confirms it
        (``choices.REVISIT_FIRST`` .. ``REVISIT_MAX``), and sooner if the unfused
        evaluation's cost (best of ``COST_WINDOW``, timed by ``given_back_variant``) moves by
        more than ``choices.COST_FACTOR`` from the first such best, once at least the
        period's number of evaluations ran given back (so a region evaluated in a loop is
        not retried more often than one evaluated once per call)."""
        self.retire(self.timed_original)
        self.cost_ref, self.cost_window, self.given_back_runs = 0, [], 0
        self.retry_runs = self.retry_after

        def retry() -> None:
            self.time_again()
        # a new retry replaces the one pending: the side table holds it weakly
        self.pending_retry = retry
        choices.later(self.retry_after, retry)
        self.retry_after = min(2 * self.retry_after, choices.REVISIT_MAX)

    def given_back_variant(self) -> Any:
        """The node's variant once given back on timings: the original closures, timed
        (two clock readings on an evaluation that was big enough to become hot).  A plain
        function, not a method: a node running it counts as given back
        (``fusion.regions_of``, a translated loop's ``declines``), as with the original."""
        region = self

        def run_given_back(frame: list) -> Any:
            start = choices.clock()
            value = region.original(frame)
            region.cost_moved(choices.clock() - start)
            return value
        return run_given_back

    def cost_moved(self, elapsed: int) -> None:
        """Retry at once if the unfused cost moved by more than ``COST_FACTOR`` (the best
        of a window, so that one descheduled evaluation does not count)."""
        self.given_back_runs += 1
        window = self.cost_window
        window.append(elapsed)
        if len(window) < COST_WINDOW:
            return
        best = min(window)
        self.cost_window = []
        reference = self.cost_ref
        if not reference:
            self.cost_ref = max(best, 1)
        elif self.given_back_runs >= self.retry_runs and (
                best > choices.COST_FACTOR * reference
                or choices.COST_FACTOR * best < reference):
            self.time_again()

    def time_again(self) -> None:
        """Retry a region given back on its timings, if its node still runs the timed
        original closures: its checked kernels take their timed turns against NumPy
        again, which keep them or give the region back (for twice as long)."""
        if self.state != OFF or self.node.choice.variant is not self.timed_original:
            return
        self.pending_retry = None
        for entry in list(self.kernels.values()):
            if isinstance(entry, _Kernel) and entry.checked:
                entry.timed_runs, entry.timed_ns = 0, [0, 0, 0]
        self.state = HOT
        choices.set_variant(self.node, self.run, replacing=self.timed_original)

    # -- kept on its timings, and checked again -------------------------------------
    def keep(self, entry: _Kernel, kernel_ns: int) -> None:
        """The kernel beat NumPy (it took ``kernel_ns``): kept, but the decision is
        revisited as a give-back is (issue 27 item 2).  After ``recheck_after``
        top-level evaluations (twice as many on each re-check that confirms it), or as
        soon as the kernel's cost moves by more than ``choices.COST_FACTOR`` from
        ``kernel_ns``, one steady evaluation runs NumPy instead, timed (``recheck``):
        one NumPy evaluation now and then, the kernel's cost measured anyway."""
        entry.kept_ns, entry.recheck_due = max(int(kernel_ns), 1), False

        def due() -> None:
            entry.recheck_due = True
        # held by the kernel: the side table holds it weakly (a new one replaces it)
        entry.pending_recheck = due
        choices.later(entry.recheck_after, due)

    def recheck(self, entry: _Kernel, values: list) -> Any:
        """NumPy's evaluation of the leaves, timed, against the kernel's recent cost: a
        kernel still faster (by ``SPEED_MARGIN``) stays, checked again twice as late;
        one that no longer looks faster takes its timed turns again (best of three of
        each: one NumPy run on a loaded machine does not give it back alone)."""
        start = choices.clock()
        result = self.unfused(values)
        numpy_ns = choices.clock() - start
        kernel_ns = entry.recent[entry.current] or entry.kept_ns
        if kernel_ns < SPEED_MARGIN * numpy_ns or KEEP_SLOWER:
            entry.recheck_after = min(2 * entry.recheck_after, choices.REVISIT_MAX)
            self.keep(entry, kernel_ns)
        else:
            entry.recheck_due, entry.pending_recheck = False, None
            entry.timed_runs, entry.timed_ns = 0, [0, 0, 0]
        return result

    def cost_moved_kept(self, entry: _Kernel) -> None:
        """Re-check at the next evaluation if the kernel's recent cost (a moving average:
        one descheduled call does not count) moved by more than ``COST_FACTOR``."""
        recent, kept = entry.recent[entry.current], entry.kept_ns
        if kept and recent and (recent > choices.COST_FACTOR * kept
                                or choices.COST_FACTOR * recent < kept):
            entry.recheck_due = True

    # -- hot ----------------------------------------------------------------------
    def hot(self, frame: list) -> Any:
        if not RAISING.isdisjoint(np.geterr().values()):
            return self.original(frame)        # errstate raise/call: NumPy's own checks
        values = [leaf.choice.call(frame) for leaf in self.leaves]
        kind = _tiled_kind()
        if kind is not None and any(type(v) is kind for v in values):
            result = _TILED[0].run(self.region, values,
                                   lambda tiles: self.hot_values(tiles, counted=False))
            if result is not NotImplemented:
                return result
        return self.hot_values(values)

    def hot_values(self, values: list, counted: bool = True) -> Any:
        """The hot evaluation of the region on its leaves' values.  Not ``counted``
        (this rank's tiles): a tile's size does not retire the region on one rank."""
        prepared = self.prepare(values)
        if prepared is None or prepared[3] < self.min_elements():
            if counted:
                self.small += 1
                if self.small >= GIVE_UP and 4 * self.big < self.small:
                    self.mostly_small()        # the sizes changed: mostly small evaluations now
            return self.unfused(values)
        if counted:
            self.big += 1
        sig, args, shape, n = prepared
        entry = self.kernels.get(sig)
        if isinstance(entry, _Kernel) and entry.checked and entry.timed_runs >= SPEED_RUNS:
            return self.steady(entry, shape, n, args, values)
        if self.trial_at == 0.0:
            with _TRIALS_LOCK:
                _TRIALS.add(self)
        self.trial_at = time.monotonic()
        if isinstance(entry, _Kernel):
            return self.check_and_time(sig, entry, shape, n, args, values)
        if entry is None:
            return self.plan(sig, args, values)
        if type(entry) is _Planned:
            start = choices.clock()
            result = self.unfused(values)
            self.unfused_ns += choices.clock() - start
            self.unfused_runs += 1
            if entry.due(self.unfused_ns) or in_lockstep():
                self.start_compile(sig, entry)
            return result
        if type(entry) is _Failed:
            self.kernels[sig] = _REJECTED
            self.warn(f"could not compile {self.region.describe()} ({entry.message})")
        return self.unfused(values)

    def plan(self, sig: tuple, args: list, values: list) -> Any:
        record: list = [None] * self.record_size()
        start = choices.clock()
        result = self.unfused(values, record)
        self.unfused_ns += choices.clock() - start
        self.unfused_runs += 1
        made = self.make_plan(sig, args, values, record, result)
        if made is None:
            self.kernels[sig] = _REJECTED     # not fusable with these operand types
            return result
        plan, samples = made
        planned = _Planned(plan, samples, result)
        self.kernels[sig] = planned
        if planned.due(self.unfused_ns) or in_lockstep():
            self.start_compile(sig, planned)
        return result

    def start_compile(self, sig: tuple, planned: _Planned) -> None:
        with self.lock:
            if self.kernels.get(sig) is not planned:
                return                        # another thread started it
            self.kernels[sig] = _PENDING

        def work():
            try:
                kernel = compiling.compile_kernel(planned.plan, planned.samples)
            except Exception as e:  # any compile failure: NumPy keeps the region
                self.kernels[sig] = _Failed(describe_failure(e))
                return
            self.kernels[sig] = self.kernel_class(planned, kernel)

        if in_lockstep():
            work()            # every rank fuses from the same evaluation on
        else:
            launch(work, "phylanx-fusion-compile")

    def steady(self, entry: _Kernel, shape: tuple, n: int, args: list,
               values: list) -> Any:
        """The kernel, on the loop that has been faster lately: which one is can change
        with the load (other libraries' threads spinning on the cores slow the parallel
        loop for seconds), so the other loop runs once, timed, whenever the loop in use
        has spent ``EXPLORE`` times the other's last known time since it last ran."""
        if entry.recheck_due and not in_lockstep():
            return self.recheck(entry, values)
        entry.steady_calls += 1
        variant = entry.current
        recent = entry.recent
        if entry.since_explore >= EXPLORE * recent[1 - variant]:
            variant = 1 - variant
            entry.since_explore = 0
        entry.kernel = entry.variants[variant]
        start = choices.clock()
        result = self.call(entry, shape, n, args, values)
        elapsed = choices.clock() - start
        if variant == entry.current:
            entry.since_explore += elapsed
        recent[variant] = elapsed if not recent[variant] else (3 * recent[variant] + elapsed) // 4
        if all(recent):
            entry.current = 0 if recent[0] <= recent[1] else 1
        self.cost_moved_kept(entry)
        return result

    def call(self, entry: _Kernel, shape: tuple, n: int, args: list, values: list) -> Any:
        """The kernel on operands ``prepare`` accepted for its signature (kinds, dtypes,
        layouts and shapes checked before it runs: nothing is retried).  An exception
        from it anyway is a kernel bug, raised located at the region's root."""
        try:
            return entry(shape, n, args)
        except Exception as e:  # not a dispatch: located and raised, never retried
            raise self.kernel_failed(e) from e

    def kernel_failed(self, e: Exception) -> Exception:
        """A located error for kernel exception ``e``: the kernel is not used again."""
        for sig, known in list(self.kernels.items()):
            if isinstance(known, _Kernel):
                self.kernels[sig] = _REJECTED
        error = self.node.wrap(e)
        error.message = f"fused kernel of {self.region.describe()} failed: {error.message}"
        return error

    def check_and_time(self, sig, entry: _Kernel, shape, n, args, values) -> Any:
        if not entry.checked:
            record: list = [None] * self.record_size()
            expected = self.unfused(values, record)
            fused = self.call(entry, shape, n, args, values)
            problem = self.disagreement(fused, expected, record, entry, values)
            if problem is not None:
                self.kernels[sig] = _REJECTED
                self.warn(f"kernel of {self.region.describe()} disagrees with NumPy "
                          f"({problem})")
                return expected
            entry.checked = True
            if in_lockstep():
                # no timed turns: kept on every rank alike (either loop rounds alike)
                entry.warm, entry.timed_runs = True, SPEED_RUNS
            return expected
        if not entry.warm:                    # the first call starts numba's threads
            entry.warm = True
            return self.call(entry, shape, n, args, values)
        # the parallel loop, the serial loop and NumPy on the same leaves, in the order
        # of TURNS; the best of each decides
        # min(): another thread may have taken the last turn since hot() looked
        variant = TURNS[min(entry.timed_runs, SPEED_RUNS - 1)]
        start = choices.clock()
        if variant == 2:
            result = self.unfused(values)
        else:
            entry.kernel = entry.variants[variant]
            result = self.call(entry, shape, n, args, values)
        elapsed = choices.clock() - start
        best_so_far = entry.timed_ns[variant]
        entry.timed_ns[variant] = elapsed if best_so_far == 0 else min(best_so_far, elapsed)
        entry.timed_runs += 1
        if self.hopeless(entry):
            entry.timed_runs = SPEED_RUNS
            self.give_back()                  # neither loop can beat NumPy here (now)
            return result
        if entry.timed_runs >= SPEED_RUNS:
            best = min((0, 1), key=lambda v: entry.timed_ns[v])
            entry.kernel = entry.variants[best]
            entry.current, entry.recent = best, entry.timed_ns[:2]
            if (entry.timed_ns[best] >= SPEED_MARGIN * entry.timed_ns[2]
                    and not KEEP_SLOWER):
                self.give_back()              # measured: not worth it here (now)
            else:
                self.retry_after = choices.REVISIT_FIRST   # kept: a give-back is news
                entry.recheck_after = choices.REVISIT_FIRST
                self.keep(entry, entry.timed_ns[best])
        return result

    @staticmethod
    def hopeless(entry: _Kernel) -> bool:
        """True once the serial loop's best time shows that neither loop can be kept:
        the parallel loop on ``c`` threads takes at least the serial time over ``c``
        (no loop runs faster than the ideal split of its work), so a serial best above
        ``c`` times NumPy's best over the margin rules both out.  The remaining turns
        would only cost more evaluations at the kernel's speed (a float32 ``exp`` of
        12.8 million strided elements took 240 ms against NumPy's 20 ms on a loaded
        machine: nine turns were seconds of a slower program).  The verdict waits for
        ``HOPELESS_AFTER`` serial turns: a region given back stays so for a while, and one
        serial run descheduled on a loaded machine (a 1 ms loop waiting tens of
        milliseconds for a core) must not decide it (given back, the region is tried
        again only after ``REVISIT_FIRST`` top-level evaluations: ``give_back``)."""
        serial, numpy_ns = entry.timed_ns[1], entry.timed_ns[2]
        if KEEP_SLOWER or not serial or not numpy_ns:
            return False
        if TURNS[:entry.timed_runs].count(1) < HOPELESS_AFTER:
            return False
        return serial * SPEED_MARGIN >= compiling.numba_threads() * numpy_ns

    def warn(self, message: str) -> None:
        if not self.warned:
            self.warned = True
            warnings.warn(f"phylanx fusion: {message}; running NumPy", FusionWarning,
                          stacklevel=4)


def _scalar_or_sample(value: Any, role: str) -> Any:
    """What ``codegen.plan`` needs of a leaf: its kind (a 0-d array reads as a scalar)."""
    if role == "s" and isinstance(value, np.ndarray):
        return value.reshape(-1)[0]
    return value


def scalar_key(value: Any) -> tuple | None:
    """A scalar operand's part of a kernel signature (None: no kernel takes it).  Python
    ints by bit width: NumPy 2 refuses one out of an int array's range, and a kernel
    checked with a small one must not serve a big one."""
    if isinstance(value, np.generic):
        return ("s", value.dtype.str) if value.dtype in codegen.ALLOWED_DTYPES else None
    return _python_scalar_sig(value) if type(value) in (bool, int, float) else None


def _python_scalar_sig(value: Any) -> tuple | None:
    t = type(value)
    if t is int:
        bits = value.bit_length()
        if bits > 63:
            return None
        # NumPy 2 rejects a weak int out of an int array's range: same bucket, same check
        return ("s", "int", next(b for b in (7, 15, 31, 63) if bits <= b))
    return ("s", t.__name__)


def _prepare(values: list) -> tuple | None:
    """(signature, kernel arguments, output shape, size), or None to run unfused."""
    shapes = []
    for v in values:
        t = type(v)
        if t is np.ndarray:
            if v.dtype not in codegen.ALLOWED_DTYPES:
                return None
            if v.ndim:
                shapes.append(v.shape)
        elif t in (bool, int, float):
            continue
        elif isinstance(v, np.generic):
            if v.dtype not in codegen.ALLOWED_DTYPES:
                return None
        else:
            return None
    if not shapes:
        return None
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        return None                      # the NumPy path raises the located error
    n = math.prod(shape)
    sig, args = [], []
    for v in values:
        if type(v) is np.ndarray:
            if v.ndim and v.shape == shape:
                arg = (v.reshape(-1) if v.flags.c_contiguous
                       else np.ascontiguousarray(v).reshape(-1))
                args.append(arg)
                sig.append(("a", array_key(arg)))
            elif v.size == 1:
                args.append(v.reshape(-1)[0])
                sig.append(("s", v.dtype.str))
            else:                        # broadcast along some axis: one copy
                args.append(np.ascontiguousarray(np.broadcast_to(v, shape)).reshape(-1))
                sig.append(("a", v.dtype.str))
        else:
            s = scalar_key(v)
            if s is None:
                return None
            args.append(v)
            sig.append(s)
    return tuple(sig), args, shape, n


# -- the check ------------------------------------------------------------------------

def _tolerance(dtype: np.dtype) -> float:
    # a few thousand ulps: libm and NumPy's SIMD functions differ by ulps, and a chain
    # (exp of a product ...) multiplies them; a wrong kernel is off by far more
    return 4096 * float(np.finfo(dtype).eps)


def least_precise(record: list, dtype: np.dtype) -> np.dtype:
    """The least precise float dtype among ``dtype`` and the recorded intermediates: a
    float32 ``tanh`` under a float64 result is one float32 ulp off libm's (the
    tolerance of a check must be that dtype's)."""
    floats = [np.dtype(r.dtype) for r in record
              if isinstance(r, (np.ndarray, np.generic)) and r.dtype.kind == "f"]
    if dtype.kind == "f":
        floats.append(dtype)
    return min(floats, key=lambda t: np.finfo(t).precision) if floats else dtype


def _magnitude(values: list) -> float:
    scale = 0.0
    for v in values:
        a = np.asarray(v) if isinstance(v, (np.ndarray, np.generic, float, int)) else None
        if a is None or a.dtype.kind not in "biuf" or a.size == 0:
            continue
        a = np.abs(a.astype(np.float64, copy=False))
        finite = a[np.isfinite(a)]
        if finite.size:
            scale = max(scale, float(finite.max()))
    return scale


def disagreement(fused: Any, expected: Any, record: list, reduction: str | None) -> str | None:
    """None if the kernel's result agrees with NumPy's, else what differs."""
    if reduction is not None:
        operand = np.asarray(record[-1])
        exp = float(expected)
        got = float(fused)
        if type(fused) is not type(expected):
            return f"type {type(fused).__name__}, NumPy's {type(expected).__name__}"
        if math.isnan(exp) or math.isnan(got) or math.isinf(exp) or math.isinf(got):
            return None if (exp == got or (math.isnan(exp) and math.isnan(got))) \
                else f"{got} instead of {exp}"
        total = float(np.sum(np.abs(operand.astype(np.float64, copy=False))))
        if reduction == "mean":
            total /= max(operand.size, 1)
        dtype = getattr(expected, "dtype", np.dtype(np.float64))
        if dtype.kind != "f":
            return None if got == exp else f"{got} instead of {exp}"
        bound = _tolerance(least_precise(record, dtype)) * max(total, np.finfo(dtype).tiny)
        return None if abs(got - exp) <= bound else f"{got} instead of {exp}"
    if not isinstance(expected, np.ndarray):
        return f"NumPy gave a {type(expected).__name__}"
    if fused.shape != expected.shape or fused.dtype != expected.dtype:
        return f"{fused.dtype}{fused.shape} instead of {expected.dtype}{expected.shape}"
    if expected.dtype.kind != "f":
        if np.array_equal(fused, expected):
            return None
        bad = np.flatnonzero(fused.reshape(-1) != expected.reshape(-1))[0]
        return f"element {bad}: {fused.flat[bad]} instead of {expected.flat[bad]}"
    tol = _tolerance(least_precise(record, expected.dtype))
    atol = tol * _magnitude(record)
    close = np.isclose(fused, expected, rtol=tol, atol=atol, equal_nan=True)
    if close.all():
        return None
    bad = int(np.flatnonzero(~close.reshape(-1))[0])
    return f"element {bad}: {fused.flat[bad]!r} instead of {expected.flat[bad]!r}"
