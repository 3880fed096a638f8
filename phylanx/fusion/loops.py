"""Whole loops compiled: ``for_each(lambda(i, body), range(...))`` and ``while(cond,
body)`` as one numba function each.

A loop of many small steps (logistic regression on 569 x 30: 750 iterations of a dozen
nodes each) spends most of its time between the NumPy calls, in the tree and in NumPy's
own per-call overhead, where fusing one expression at a time cannot help.  A ``for_each``
over a ``range`` whose body ``loop_plan.translate`` takes (variables bound to element-wise,
``dot``/``matmul``, ``transpose`` and ``sum``/``mean`` expressions) gets a
:class:`CompiledLoop`, which runs it under the fusion policy:

* interpreted (the same nodes as always, timed) until that time reaches the expected
  compile cost (``kernels/costs.py``: measured; a load when numba's disk cache holds the
  module), counting only
  calls whose nodes took at most ``MAX_NS_PER_NODE`` each on average (small steps, where
  the overhead between NumPy calls is the cost; big steps are the row passes' job);
* then compiled in the background for the signature of the call: the size class
  (factors of 4 in elements, measured apart) and the inputs' types — float64 and
  float32 arrays of 1 or 2 dimensions, C or Fortran ordered (writeable if the loop
  rebinds them), Python float/int/bool and NumPy float64/float32/bool scalars — if
  ``loop_types.infer`` finds that the compiled loop computes what the tree does for
  them (the kernel's source is rendered for the signature's kinds), and for inputs of
  shapes that every operation of the loop takes in every iteration
  (``loop_types.shapes_hold``: broadcasting, a product's inner dimensions, an in-place
  target keeping its shape); other inputs are the tree's, which raises the located
  error if the program is wrong;
* the first compiled run is checked against the interpreted run of the same inputs
  (types, shapes, scalar types, values within a tolerance growing with the
  iterations), then two compiled and two interpreted runs are timed and the compiled
  loop is kept for the signature only if it is faster.

A ``while`` loop (:class:`CompiledWhile`) is taken when its ``if(flag, ...)`` guards
are False and its condition holds at the start (both read by the tree); each chunk of
the kernel says whether the condition still holds.

Compiled runs return the variables bound in the loop and the loop variable, written back
to the frame with the scalar types the tree would leave.  They run in chunks of about
``CHUNK_NS`` so that Ctrl-C and cancellation (``runtime/cancel.py``) are seen between
chunks.  The kernel runs only on operands it takes (kinds, layouts, shapes tested
before, above), and nothing is retried after it: an exception from it anyway is a
kernel bug, raised located at the loop (the arrays it changes in place, ``x += e``,
copied before, are restored) and the kernel is not used again.  Hoisted invariants
are bound before the kernel runs, each evaluated once as the tree's first iteration
would (their errors are the tree's located errors).  Under ``np.errstate`` raising or
calling for a floating-point error the tree runs (a kernel does not); a kernel does
not warn where NumPy would (a zero divisor, an invalid value), and its sums add in
sequence where NumPy adds pairwise (differences within rounding, as in fused
reductions).  Setting ``fusion_loops`` switches it, as the program was compiled (it is of
its plan, ``config.PLAN``).

Whether the kernel or the tree computes a value changes its rounding.  With several
localities (``hot.in_lockstep``), ranks computing the same replicated values must round
them alike (else a ``while`` condition or a later comparison can differ between ranks:
other iteration counts, other branches), so every choice above is then made from counts
and sizes alone, never from local timings: a signature's kernel compiles, in the calling
thread, once the tree has run ``LOCKSTEP_WORK`` node evaluations for it (inputs of at
most ``LOCKSTEP_MAX_ELEMENTS`` elements, the size rule standing for ``MAX_NS_PER_NODE``),
so at the same call on every rank; it is kept once its check agrees with the tree
(deterministic given equal inputs), without timed runs.  A compile failure that follows
from the kernel's source, its types and numba's version (the ranks share them: numba's
version is compared at start-up, ``config.PLAN_FACTS``) leaves the tree on every rank
alike; one of this process's own (an ``OSError``, a ``MemoryError``: one rank only,
maybe) is a located error there rather than a rank running the tree where its peers run
the kernel.  The chunks' lengths are timed, but they do not change a result: between
chunks the carried values are passed on as they are.
"""
from __future__ import annotations

import threading
import time
import warnings
import weakref
from time import perf_counter_ns
from typing import Any

import numpy as np

from ..kernels import compiling, costs
from ..kernels.compiling import FusionWarning, Plan, Settings, describe_failure, launch
from ..runtime.cancel import PENDING, CancelledError, check
from ..runtime.nodes import Node
from ..values import BreakSignal, ContinueSignal, truth
from . import hot
from .hot import RAISING, _magnitude, _tolerance
from .loop_plan import (
    SCALAR_TYPES,
    LoopPlan,
    infer,
    kind_of,
    numba_kind,
    translate,
    translate_while,
)
from .loop_types import shapes_hold

SPEED_MARGIN = 0.95     # kept only if its best is below this fraction of the tree's best
TIMED_RUNS = 4          # after the check: compiled, tree, compiled, tree
#: a loop whose nodes take longer than this on average is not compiled: what a compiled
#: loop saves is the tree's and NumPy's per-call overhead, a few microseconds per node;
#: beyond, the work itself dominates, and the tree's row passes and fused regions do it
#: better (W1 large's gradient: the kernel's two BLAS passes over x, the row pass's one)
MAX_NS_PER_NODE = 50_000
FIRST_CHUNK = 16        # iterations of the first chunk; the next ones last ~CHUNK_NS
CHUNK_NS = 50_000_000
SETTLED_AFTER_S = 2.0   # a loop not run for this long is not settling any more
_PENDING, _REJECTED = "pending", "rejected"
_FLOATS = (np.dtype(np.float64), np.dtype(np.float32))
_FITTING_KEPT = 64      # input shapes whose check is remembered
#: with several localities (see the module docstring): node evaluations of the tree per
#: signature before its kernel compiles, the count standing for the ski-rental's timed
#: cost (at the few microseconds a node costs in the tree: between what loading a kernel
#: from numba's disk cache and compiling it cost), and the inputs' elements past which
#: the tree keeps the loop, the size standing for ``MAX_NS_PER_NODE``'s timing
LOCKSTEP_WORK = 100_000
LOCKSTEP_MAX_ELEMENTS = 1 << 16
#: compile failures of this process's own, not of the kernel's source (see the module
#: docstring): with several localities a located error, not the tree on one rank only
_ENVIRONMENTAL = (OSError, MemoryError)


def _key(value: Any, carried: bool) -> Any:
    """A value's part of a kernel signature, None if no compiled loop takes it."""
    t = type(value)
    if t is np.ndarray:
        flags = value.flags
        if value.dtype not in _FLOATS or not 1 <= value.ndim <= 2 or (
                carried and not flags.writeable):
            return None    # a read-only array rebound to a new one: numba cannot unify
        layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else None
        return None if layout is None else ("a", value.dtype.char, value.ndim, layout,
                                            flags.writeable)
    if t is int:
        # within float64's exact integers: numba converts an int compared with or
        # divided by a float, where Python compares exactly
        return "i" if value.bit_length() <= 53 else None
    kind = kind_of(value)
    return None if kind is None else kind[0]


def _chunk_key(value: Any) -> Any:
    """What numba dispatches a carried value on (float and np.float64 alike)."""
    if type(value) is np.ndarray:
        return value.dtype, value.ndim, value.flags.c_contiguous, value.flags.f_contiguous
    kind = kind_of(value)
    return None if kind is None else numba_kind(kind)


class _Entry:
    """A compiled loop for one signature and what was measured of it."""

    def __init__(self, kernel: Any):
        self.kernel = kernel
        self.checked = False
        self.timed = [[], []]                 # ns: compiled runs, tree runs
        self.kept = False
        self.calls = 0                        # compiled runs whose outputs were used


_LIVE: weakref.WeakSet = weakref.WeakSet()


def settling() -> bool:
    """True while a compiled loop run in the last ``SETTLED_AFTER_S`` seconds is
    compiling or being checked and timed: the calls made now are not the steady state
    (benchmarks wait for this to end)."""
    return any(loop.settling() for loop in list(_LIVE))


class CompiledLoop:
    """The evaluation closure of a ``for_each`` node with a :class:`LoopPlan`."""

    def __init__(self, node: Node, plan: LoopPlan):
        _LIVE.add(self)
        self.node = node
        self.plan = plan
        self.iterable, self.body = node.children   # a while loop: condition, body
        # the loop variable's frame and slot (a while loop has none)
        self.index_owner, self.index_slot = (node.variable[1], node.variable[2]) \
            if node.variable is not None else (None, None)
        self.entries: dict[tuple, Any] = {}
        self.types: dict[tuple, tuple] = {}   # sig -> output types (1 iteration, more)
        self.sources: dict[tuple, str] = {}   # sig -> the kernel's source for its kinds
        self.lock = threading.Lock()
        self.warned = False
        self.nodes = sum(1 for _ in self.body.walk())
        carried = {i for i, _ in plan.carried}
        self.is_carried = [i in carried for i in range(len(plan.inputs))]
        self.last_run = 0.0
        self.fitting: dict[tuple, bool] = {}  # input shapes -> shapes_hold's answer
        # as the program was compiled (of its plan): read at run time, a change on one
        # rank after compiling ran the tree there and kernels on its peers
        self.switched_on = Settings.loops

    def __repr__(self) -> str:
        loc = self.node.loc
        return f"<CompiledLoop at line {loc.line if loc else '?'}>"

    def settling(self) -> bool:
        return time.monotonic() - self.last_run < SETTLED_AFTER_S and any(
            e == _PENDING or (type(e) is _Entry and not e.kept)
            for e in list(self.entries.values()))

    # -- the tree's loop, as for_each runs it ------------------------------------------
    def interpret(self, frame: list, items: range) -> tuple[Any, int]:
        """(the loop's value, iterations run) as the tree computes them."""
        target = self.index_owner(frame)
        slot, body = self.index_slot, self.body.choice   # the body's side-table entry
        result = None
        for item in items:
            if PENDING[0]:
                check()   # a cancelled branch stops at its next iteration
            target[slot] = item
            result = body.call(frame)
        return result, len(items)

    #: typed like the kernel's arguments before the variables (range start, stop, step)
    leading_args: tuple = (0, 1, 1)

    def begin(self, frame: list) -> Any:
        """What the loop runs over (the range), evaluated once."""
        return self.iterable.choice.call(frame)          # the range primitive: always a range

    def worth(self, frame: list, items: range) -> bool:
        """A compiled run may take this call (it runs, within int64)."""
        return bool(len(items)) and _fits(items)

    def run(self, frame: list) -> Any:
        try:
            return self.dispatch(frame)
        finally:
            self.last_run = time.monotonic()

    def dispatch(self, frame: list) -> Any:
        items = self.begin(frame)
        if not (self.switched_on and self.worth(frame, items)) \
                or not RAISING.isdisjoint(np.geterr().values()):
            return self.interpret(frame, items)[0]
        for invariant in self.plan.invariants:
            # bound once, now: the tree's first iteration evaluates each of them (the
            # loop runs at least once, ``worth``), and an error is its located error
            invariant.choice.call(frame)
        values = [var[1](frame)[var[2]] for _, var in self.plan.inputs]
        types = tuple(_key(v, c) for v, c in zip(values, self.is_carried))
        if None in types or not self.shapes_fit(values):
            # operands the kernel does not take: the tree's loop (a shape error there
            # is the located error of the node that meets it)
            return self.interpret(frame, items)[0]
        # sizes by factors of 4 are measured apart: a loop compiled for small steps
        # must not run big ones, where the tree's row passes win
        elements = sum(v.size for v in values if type(v) is np.ndarray)
        sig = (elements.bit_length() // 2,) + types
        entry = self.entries.get(sig)
        if entry is None:
            entry = self.first_entry(sig, values)
        if type(entry) is _Entry:
            if entry.kept:
                return self.compiled(frame, items, values, sig, entry)
            return self.trial(frame, items, values, sig, entry)
        if type(entry) is not int:             # pending or rejected
            return self.interpret(frame, items)[0]
        if hot.in_lockstep():
            return self.counted(frame, items, values, sig, entry, elements)
        start = perf_counter_ns()
        result, iterations = self.interpret(frame, items)
        elapsed = perf_counter_ns() - start
        if elapsed > MAX_NS_PER_NODE * self.nodes * max(1, iterations):
            return result      # big steps: the tree's overhead is not what takes the time
        kernel = self.compiled_for(types)
        with self.lock:
            if self.entries.get(sig) != entry:
                return result
            if kernel is not None:   # compiled at another size: checked and timed here
                self.entries[sig] = _Entry(kernel)
                return result
            self.entries[sig] = spent = entry + elapsed
        if costs.due(self.plan.source, spent):
            self.start_compile(sig, values)
        return result

    def counted(self, frame: list, items: Any, values: list, sig: tuple, entry: int,
                elements: int) -> Any:
        """With several localities: the tree's run, its node evaluations counted (not
        timed) towards ``LOCKSTEP_WORK``, so that the kernel compiles at the same call on
        every rank; inputs of more than ``LOCKSTEP_MAX_ELEMENTS`` elements stay the
        tree's."""
        result, iterations = self.interpret(frame, items)
        if elements > LOCKSTEP_MAX_ELEMENTS:
            return result
        kernel = self.compiled_for(sig[1:])
        with self.lock:
            if self.entries.get(sig) != entry:
                return result
            if kernel is not None:   # compiled at another size: checked here
                self.entries[sig] = _Entry(kernel)
                return result
            self.entries[sig] = work = entry + self.nodes * max(1, iterations)
        if work >= LOCKSTEP_WORK:
            self.start_compile(sig, values)
        return result

    def shapes_fit(self, values: list) -> bool:
        """True if every operation of the loop takes the shapes these inputs give it,
        in every iteration (``loop_types.shapes_hold``); remembered per input shapes."""
        shapes = tuple(np.shape(v) for v in values)
        fit = self.fitting.get(shapes)
        if fit is None:
            fit = shapes_hold(self.plan.typing,
                              {key: s for (key, _), s in zip(self.plan.inputs, shapes)},
                              self.plan.cond_term)
            if len(self.fitting) >= _FITTING_KEPT:
                self.fitting.clear()          # shapes that vary call after call
            self.fitting[shapes] = fit
        return fit

    def first_entry(self, sig: tuple, values: list) -> Any:
        """Rejected if the tree computes other types than the kernel would for these
        inputs, else no time spent yet; the tree's output types are kept."""
        kinds = {key: kind_of(v) for (key, _), v in zip(self.plan.inputs, values)}
        casts: set = set()
        inferred = infer(self.plan.typing, kinds, self.plan.cond_term, casts)
        with self.lock:
            if inferred is None:
                self.entries[sig] = _REJECTED
            else:
                self.sources[sig] = self.plan.render(frozenset(casts))
                self.types[sig] = tuple(
                    [_scalar_type(passes[key]) for key, _ in self.plan.outputs]
                    for passes in inferred)
                self.entries.setdefault(sig, 0)
            return self.entries[sig]

    def compiled_for(self, types: tuple) -> Any:
        """The kernel compiled for these types at another size, or None."""
        for sig, e in list(self.entries.items()):
            if sig[1:] == types and type(e) is _Entry:
                return e.kernel
        return None


    def start_compile(self, sig: tuple, values: list) -> None:
        with self.lock:
            if type(self.entries.get(sig)) is not int:
                return
            self.entries[sig] = _PENDING
        samples = self.leading_args + tuple(values)
        lockstep = hot.in_lockstep()

        def work() -> None:
            try:
                kernel = compiling.compile_kernel(Plan(self.sources[sig], None),
                                                samples, serial=False)[0]
            except Exception as e:  # any failure: the tree keeps the loop
                self.entries[sig] = _REJECTED
                if lockstep and isinstance(e, _ENVIRONMENTAL):
                    # maybe on this rank alone: its peers would run the kernel
                    error = self.node.wrap(e)
                    error.message = (f"could not compile the loop here ("
                                     f"{describe_failure(e)}); with several localities "
                                     "every rank must run it alike")
                    raise error from e
                self.warn(f"could not compile the loop ({describe_failure(e)})")
                return
            self.entries[sig] = _Entry(kernel)

        if lockstep:
            work()       # every rank from the same call on (bounded: fusion_cache_wait)
        else:
            launch(work, "phylanx-loop-compile")

    # -- compiled -------------------------------------------------------------------------
    def execute(self, kernel: Any, items: range, values: list) -> tuple[tuple, Any, int]:
        """(bound variables, loop variable, iterations) of the kernel over ``items``, in
        chunks of about ``CHUNK_NS`` (Ctrl-C and cancellation are seen between them),
        carried values passed on."""
        start, step, n = items.start, items.step, len(items)
        chunk, done, began = min(n, FIRST_CHUNK), 0, perf_counter_ns()
        args = list(values)
        while True:
            first = start + done * step
            outputs = kernel(first, first + chunk * step, step, *args)
            done += chunk
            if done >= n:
                return outputs[:-1], outputs[-1], n
            if not self.carry_on(args, outputs) and not self.plan.inplace_keys:
                # one call from the start with the types it was compiled for, rather
                # than a compilation for the new ones now
                outputs = kernel(start, items.stop, step, *values)
                return outputs[:-1], outputs[-1], n
            spent = max(1, perf_counter_ns() - began)
            chunk = max(1, min(n - done, done * CHUNK_NS // spent))

    def carry_on(self, args: list, outputs: tuple) -> bool:
        """Between chunks: stop if cancelled, pass the carried values on; False if one
        has another numba type (a layout changed): the caller runs one call from the
        start, unless arrays were already changed in place (``x += e``), where the next
        chunk goes on with the values passed on (numba compiles the kernel for their
        types then, once)."""
        if PENDING[0]:
            check()
        carried = []
        for i, o in self.plan.carried:
            value = outputs[o]
            if type(args[i]) is np.float32 and type(value) is float:
                value = np.float32(value)    # numba gives a float32 back as a float
            carried.append((i, value))
        held = all(_chunk_key(value) == _chunk_key(args[i]) for i, value in carried)
        if held or self.plan.inplace_keys:   # else ``args`` stay the chunk's own
            for i, value in carried:
                args[i] = value
        return held

    def write_back(self, frame: list, outputs: tuple, index: Any, sig: tuple,
                   iterations: int, values: list) -> Any:
        types = self.types[sig][0 if iterations == 1 else 1]
        result = None
        outputs = self.same_objects(outputs, values)
        for (key, var), value, t in zip(self.plan.outputs, outputs, types):
            if t is not None and type(value) is not t:
                value = t(value)
            var[1](frame)[var[2]] = value
            if key == self.plan.result_key:
                result = value
        if self.index_owner is not None:
            self.index_owner(frame)[self.index_slot] = index
        return result

    def tree_outputs(self, frame: list) -> list:
        """What the tree left in the variables the kernel returns."""
        out = [var[1](frame)[var[2]] for _, var in self.plan.outputs]
        if self.index_owner is not None:
            out.append(self.index_owner(frame)[self.index_slot])
        return out

    # -- arrays changed in place (x += e) ---------------------------------------------------
    def snapshot(self, values: list) -> list:
        """(array, copy) of the inputs the kernel changes in place (``x += e``): only
        they can be written (the loop binds no such variable to another's array,
        ``loop_plan``), restored before the tree runs from the same values."""
        keys = self.plan.inplace_keys
        if not keys:
            return []
        return [(v, v.copy()) for (key, _), v in zip(self.plan.inputs, values)
                if key in keys and type(v) is np.ndarray]

    @staticmethod
    def restore(saved: list) -> None:
        for array, copy in saved:
            np.copyto(array, copy)

    def same_objects(self, outputs: tuple, values: list) -> tuple:
        """The kernel's outputs with an array changed in place given back as the very
        object the loop was given (numba returns another object on the same memory)."""
        if not self.plan.inplace_keys:
            return outputs
        given = {key: v for (key, _), v in zip(self.plan.inputs, values)
                 if type(v) is np.ndarray}
        out = list(outputs)
        for i, (key, _) in enumerate(self.plan.outputs):
            v, o = given.get(key), out[i]
            if v is not None and type(o) is np.ndarray and o.shape == v.shape \
                    and o.__array_interface__["data"] == v.__array_interface__["data"]:
                out[i] = v
        return tuple(out)

    def compiled(self, frame: list, items: range, values: list, sig: tuple,
                 entry: _Entry) -> Any:
        saved = self.snapshot(values)
        outputs, index, iterations = self.run_kernel(entry, items, values, saved)
        entry.calls += 1
        return self.write_back(frame, outputs, index, sig, iterations, values)

    def run_kernel(self, entry: _Entry, items: Any, values: list, saved: list
                   ) -> tuple[tuple, Any, int]:
        """:meth:`execute` on operands :meth:`dispatch` found the kernel takes; an
        exception from it is a kernel bug, never a cue to run the tree instead: the
        arrays changed in place are restored, the kernel is not used again, and the
        error is raised located at the loop."""
        try:
            return self.execute(entry.kernel, items, values)
        except CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - not a dispatch: located and raised
            self.restore(saved)
            self.reject(entry, None)
            error = self.node.wrap(e)
            error.message = f"the compiled loop failed: {error.message}"
            raise error from e

    def trial(self, frame: list, items: range, values: list, sig: tuple,
              entry: _Entry) -> Any:
        """The check (compiled and tree on the same inputs), then the timed turns."""
        if entry.checked and (len(entry.timed[0]) + len(entry.timed[1])) % 2:
            start = perf_counter_ns()
            result = self.interpret(frame, items)[0]
            entry.timed[1].append(perf_counter_ns() - start)
            self.decide(entry)
            return result
        saved = self.snapshot(values)
        start = perf_counter_ns()
        outputs, index, iterations = self.run_kernel(entry, items, values, saved)
        compiled_ns = perf_counter_ns() - start
        if saved and not entry.checked:
            # the tree runs next (the check), from the values as they were
            outputs = tuple(o.copy() if type(o) is np.ndarray else o for o in outputs)
            self.restore(saved)
        if entry.checked:
            entry.timed[0].append(compiled_ns)
            entry.calls += 1
            result = self.write_back(frame, outputs, index, sig, iterations, values)
            self.decide(entry)
            return result
        start = perf_counter_ns()
        result, tree_iterations = self.interpret(frame, items)
        tree_ns = perf_counter_ns() - start
        expected = self.tree_outputs(frame)
        types = list(self.types[sig][0 if tree_iterations == 1 else 1])
        got = list(outputs)
        if self.index_owner is not None:
            types.append(int)
            got.append(index)
        got = [v if t is None or type(v) is t else t(v) for v, t in zip(got, types)]
        problem = disagreement(got, expected, tree_iterations,
                               _magnitude(list(values) + expected))
        if problem is None and iterations != tree_iterations:
            problem = f"{iterations} iterations instead of {tree_iterations}"
        if problem is not None:
            self.reject(entry, f"the compiled loop disagrees with the tree ({problem})")
            return result
        entry.checked = True
        if hot.in_lockstep():
            entry.kept = True     # no timed runs: kept on every rank alike
            return result
        entry.timed[0].append(compiled_ns)
        entry.timed[1].append(tree_ns)
        return result

    def decide(self, entry: _Entry) -> None:
        if len(entry.timed[0]) + len(entry.timed[1]) < TIMED_RUNS + 2:
            return
        if min(entry.timed[0]) < SPEED_MARGIN * min(entry.timed[1]) or hot.KEEP_SLOWER:
            entry.kept = True
        else:
            self.reject(entry, None)         # measured: the tree is as fast here

    def reject(self, entry: _Entry, why: str | None) -> None:
        """The tree runs this signature from now on; ``why`` a kernel fault, warned of
        (None: measured slower)."""
        with self.lock:
            for sig, e in list(self.entries.items()):
                if e is entry:
                    self.entries[sig] = _REJECTED
        if why is not None:
            self.warn(why)

    def warn(self, message: str) -> None:
        if not self.warned:
            self.warned = True
            loc = self.node.loc
            where = f" at line {loc.line}" if loc is not None and loc.line > 0 else ""
            warnings.warn(f"phylanx fusion: {message}{where}; running the tree",
                          FusionWarning, stacklevel=4)


class CompiledWhile(CompiledLoop):
    """A ``while`` loop with a :class:`LoopPlan` from ``translate_while``: taken by a
    compiled run when its guards are False and its condition holds at the start; the
    kernel runs at most a chunk of iterations and says whether the condition still
    holds."""

    leading_args = (1,)     # at most this many iterations

    def interpret(self, frame: list, items: Any) -> tuple[Any, int]:
        """``items``: (the condition's first value,), as :meth:`begin` read it."""
        cond, body = self.plan.cond.choice, self.body.choice   # side-table entries
        result, n = None, 0
        held = truth(items[0])
        while held:
            if PENDING[0]:
                check()
            try:
                result = body.call(frame)
            except BreakSignal:
                break
            except ContinueSignal:
                pass
            n += 1
            held = truth(cond.call(frame))
        return result, n

    def begin(self, frame: list) -> Any:
        """(the condition's first value,), read once as the tree's loop reads it first
        (an error is its located error)."""
        return (self.plan.cond.choice.call(frame),)

    def worth(self, frame: list, items: Any) -> bool:
        if type(items[0]) not in (bool, np.bool_) or not items[0]:
            return False
        for var in self.plan.guards:
            flag = var[1](frame)[var[2]]
            if type(flag) not in (bool, np.bool_) or flag:
                return False
        return True

    def execute(self, kernel: Any, items: Any, values: list) -> tuple[tuple, Any, int]:
        chunk, done, began = FIRST_CHUNK, 0, perf_counter_ns()
        args = list(values)
        while True:
            *outputs, ran, more = kernel(chunk, *args)
            done += ran
            if not more:
                return tuple(outputs), None, done
            if not self.carry_on(args, outputs) and not self.plan.inplace_keys:
                # another numba type: the last chunk again from its start (``args``
                # unchanged), without chunks
                done -= ran
                *outputs, ran, more = kernel(2 ** 62, *args)
                return tuple(outputs), None, done + ran
            spent = max(1, perf_counter_ns() - began)
            chunk = max(1, done * CHUNK_NS // spent)


def _fits(items: range) -> bool:
    """The range's values are exact in float64 (see ``_key``), with room past them."""
    return max(abs(items.start), abs(items.stop), abs(items.step)) < 2 ** 52


def _scalar_type(kind: tuple) -> type | None:
    return SCALAR_TYPES[kind[0]] if kind[1] == 0 else None


#: the loosest relative tolerance of a check (float32, float64): a wrong kernel is off by
#: far more, float32's rounding along a few hundred iterations is not
_LOOSEST = (1e-3, 1e-6)


def disagreement(got: list, expected: list, iterations: int, scale: float = 0.0
                 ) -> str | None:
    """None if the compiled loop's outputs agree with the tree's, else what differs;
    ``scale`` is the magnitude of the data (a difference of nearly equal values, a
    converged step's size, is compared with it: its own digits are rounding)."""
    for g, e in zip(got, expected):
        if isinstance(e, np.ndarray):
            g = np.asarray(g)
            if g.shape != e.shape or g.dtype != e.dtype:
                return f"{g.dtype}{g.shape} instead of {e.dtype}{e.shape}"
        elif type(g) is not type(e):
            return f"a {type(g).__name__} where the tree gave a {type(e).__name__}"
        ea = np.asarray(e)
        ga = np.asarray(g)
        if ea.dtype.kind != "f":
            if not np.array_equal(ga, ea):
                return f"{ga!r} instead of {ea!r}"
            continue
        # differences of a few ulps per iteration can add up along the loop
        tol = min(_LOOSEST[ea.dtype.itemsize >= 8], _tolerance(ea.dtype) * max(1, iterations))
        atol = tol * max(scale, _magnitude([ea]))
        close = np.isclose(ga, ea, rtol=tol, atol=atol, equal_nan=True)
        if not np.all(close):
            bad = int(np.flatnonzero(~np.asarray(close).reshape(-1))[0])
            return f"element {bad}: {ga.reshape(-1)[bad]!r} instead of {ea.reshape(-1)[bad]!r}"
    return None


def analyse(node: Node) -> CompiledLoop | None:
    """A :class:`CompiledLoop` for a ``for_each`` or ``while`` node this module takes,
    else None."""
    if node.primitive == "for_each":
        plan = translate(node)
        return None if plan is None else CompiledLoop(node, plan)
    if node.primitive == "while":
        plan = translate_while(node)
        return None if plan is None else CompiledWhile(node, plan)
    return None
