"""Whole loops compiled: ``for_each(lambda(i, body), range(...))`` as one numba function.

A loop of many small steps (logistic regression on 569 x 30: 750 iterations of a dozen
nodes each) spends most of its time between the NumPy calls, in the tree and in NumPy's
own per-call overhead, where fusing one expression at a time cannot help.  When a
``for_each`` over a ``range`` has a body made only of ``define``/``store`` of variables
whose values are expressions of

* the element-wise primitives that fuse (``rules.py``) whose scalar code is also NumPy
  array code (``np.exp(x)``, ``x + y``, comparisons ...; ``maximum``/``minimum``/
  ``fmax``/``fmin``/``absolute``/``sign`` through their ``np.`` ufuncs),
* ``dot``/``matmul`` (``np.dot``), ``transpose`` of one operand, whole-array
  ``sum``/``mean``,
* variables and int/float/bool literals,

:func:`analyse` turns it into the source of one numba function that runs every
iteration (numba fuses each element-wise array expression into one loop and calls
BLAS for the products)::

    def kernel_par(r_start, r_stop, r_step, v_x, v_w, v_alpha, v_y):
        i = r_start
        v_w = (v_w - (v_alpha * np.dot(np.transpose(v_x), ...)))   # iteration one,
        for i in range(r_start + r_step, r_stop, r_step):           # peeled: every
            v_w = (v_w - (v_alpha * np.dot(np.transpose(v_x), ...)))  # variable bound
        return (v_w, i)

:class:`CompiledLoop` runs it under the fusion policy: interpreted (the same nodes as
always, timed) until that time reaches the expected compile cost (a tenth when numba's
disk cache holds the module), then compiled in the background per signature of the
inputs (float64 arrays of 1 or 2 dimensions, Python or NumPy float64/int/bool scalars:
the types whose promotion numba and NumPy agree on), and only for calls whose nodes
took at most ``MAX_NS_PER_NODE`` each on average (small steps, where the overhead between
NumPy calls is the cost); the first compiled run is checked
against the interpreted run of the same inputs (types, shapes, values within a tolerance
growing with the iterations), and the compiled loop is kept only if it is faster.  A
compiled run that raises falls back to the interpreted loop from the same values (the
kernel never writes its inputs), which raises the located error if the program is
wrong, or gives its result and one ``FusionWarning`` if the kernel was.  Setting
``fusion_loops`` switches it.
"""
from __future__ import annotations

import re
import threading
import warnings
import weakref
from time import perf_counter_ns
from typing import Any

import numpy as np

from ..runtime.cancel import PENDING, check
from ..runtime.nodes import Node
from . import codegen, hot
from .hot import FusionWarning, Settings, _compiles, _tolerance
from .regions import _classify

#: element-wise rules whose scalar code would call a scalar-only helper: their ufunc
_ARRAY_FORMS = {"maximum": "np.maximum({0}, {1})", "minimum": "np.minimum({0}, {1})",
                "fmax": "np.fmax({0}, {1})", "fmin": "np.fmin({0}, {1})",
                "absolute": "np.abs({0})", "sign": "np.sign({0})"}
_CALL = re.compile(r"([A-Za-z_][\w.]*)\s*\(")
_BINDERS = ("define-variable", "store")
SPEED_MARGIN = 0.95     # kept only if its best is below this fraction of the tree's best
#: a loop whose nodes take longer than this on average is not compiled: what a compiled
#: loop saves is the tree's and NumPy's per-call overhead, a few microseconds per node;
#: beyond, the work itself dominates, and the tree's row passes and fused regions do it
#: at least as well (W1 large, 200,000 x 100: 0.43-0.61 s per call in the tree, 1.06-1.27
#: s compiled, while developing)
MAX_NS_PER_NODE = 50_000
TIMED_RUNS = 4          # after the check: compiled, tree, compiled, tree


def _array_code(name: str, rule) -> str | None:
    """The rule's code if it is NumPy array code as well as scalar code."""
    if name in _ARRAY_FORMS:
        return _ARRAY_FORMS[name]
    code = rule.code
    if code is None or " and " in code or " or " in code:
        return None
    if any(not f.startswith("np.") for f in _CALL.findall(code)):
        return None
    return code


class _Source:
    """The translation of one loop body: names of variables, reads before writes."""

    def __init__(self, index_key: Any):
        self.index_key = index_key
        self.names: dict[Any, str] = {}
        self.readers: dict[Any, tuple] = {}     # key -> node.variable of a read
        self.writers: dict[Any, tuple] = {}     # key -> node.variable of a binding
        self.inputs: list[Any] = []             # read before bound in an iteration
        self.bound: set[Any] = set()
        self.typing: list[tuple] = []          # (key, typing term) per statement

    def name(self, key: Any, instance: str | None) -> str:
        if key not in self.names:
            clean = re.sub(r"\W", "_", instance or "")
            self.names[key] = f"v{len(self.names)}_{clean}"
        return self.names[key]

    def expr(self, node: Node) -> tuple[str, tuple] | None:
        """(numba code, typing term) of an expression, None if not translatable."""
        if node.is_const:
            v = node.value
            if type(v) is bool or (type(v) in (int, float) and np.isfinite(v)
                                   and abs(v) < 2 ** 62):
                return repr(v), ("value", v)
            return None
        p = node.primitive
        if p == "access-variable":
            if node.variable is None:
                return None
            key = node.variable[0]
            if key == self.index_key:
                return "i_", ("value", 0)
            if key not in self.bound and key not in self.inputs:
                self.inputs.append(key)
                self.readers[key] = node.variable
            return self.name(key, node.instance), ("var", key)
        if p in ("dot", "matmul", "transpose"):
            args = self.operands(node.children)
            if args is None:
                return None
            codes, terms = args
            if p == "transpose":
                return (f"np.transpose({codes[0]})", ("transpose", terms[0])) \
                    if len(codes) == 1 else None
            return (f"np.dot({codes[0]}, {codes[1]})", ("dot", *terms)) \
                if len(codes) == 2 else None
        info = _classify(node)
        if info is None:
            return None
        name, impl, rule, params = info
        args = self.operands([c for i, c in enumerate(node.children) if i not in params])
        if args is None:
            return None
        codes, terms = args
        if rule is None:                        # whole-array sum / mean
            return f"np.{name}({codes[0]})", ("reduce", terms[0])
        code = _array_code(name, rule)
        if code is None:
            return None
        term = ("apply", impl, params, *terms)
        if rule.fold and len(codes) > 2:
            out = code.format(codes[0], codes[1])
            for c in codes[2:]:
                out = code.format(out, c)
            return out, term
        return code.format(*codes), term

    def operands(self, nodes) -> tuple[list, list] | None:
        made = [self.expr(c) for c in nodes]
        if None in made:
            return None
        return [m[0] for m in made], [m[1] for m in made]

    def statement(self, node: Node) -> str | None:
        if node.primitive not in _BINDERS or len(node.children) != 1 \
                or node.variable is None or node.variable[0] is None:
            return None
        made = self.expr(node.children[0])
        if made is None:
            return None
        key = node.variable[0]
        self.bound.add(key)
        self.writers[key] = node.variable
        self.typing.append((key, made[1]))
        return f"{self.name(key, node.instance)} = {made[0]}"


# -- typing: which input types a compiled loop computes exactly as the tree -------------

def _sample(kind: tuple) -> Any:
    """A value of ``kind`` ((letter, ndim)) for running a primitive's own kernel."""
    letter, ndim = kind
    scalar = {"f": 0.5, "i": 3, "b": True}[letter]
    return scalar if ndim == 0 else np.full((1,) * ndim, scalar)


def _kind_of(value: Any) -> tuple | None:
    """(letter, ndim) of a value: float64 ``f``, Python/NumPy int ``i``, bool ``b``."""
    if isinstance(value, np.ndarray):
        letter = {"f8": "f", "b1": "b"}.get(value.dtype.str[1:])
        return None if letter is None or value.ndim == 0 else (letter, value.ndim)
    t = type(value)
    if t is bool or t is np.bool_:
        return "b", 0
    if t is float or t is np.float64:
        return "f", 0
    if t is int or t is np.int64:
        return "i", 0
    return None


def infer(typing: list, kinds: dict) -> bool:
    """True if every statement has a float or bool type, the same in every iteration,
    for variables of ``kinds`` (key -> (letter, ndim)); integer arithmetic is the
    tree's (Python ints do not overflow, int64 does), so it stays there."""
    known = dict(kinds)

    def kind(term) -> tuple | None:
        tag = term[0]
        if tag == "value":
            return _kind_of(term[1])
        if tag == "var":
            return known.get(term[1])
        parts = [kind(t) for t in term[1:] if type(t) is tuple]
        if None in parts:
            return None
        if tag == "transpose":
            return parts[0] if parts[0][0] == "f" else None
        if tag == "dot":
            (la, na), (lb, nb) = parts
            return ("f", na + nb - 2) if la == lb == "f" and na and nb else None
        if tag == "reduce":
            return ("f", 0) if parts[0][0] == "f" else None
        impl, params = term[1], term[2]
        args = [_sample(k) for k in parts]
        for slot in sorted(params):
            args.insert(slot, params[slot])
        try:
            with np.errstate(all="ignore"):
                result = _kind_of(impl(*args))
        except Exception:   # a kernel that refuses these kinds: the tree decides
            return None
        if result is None or result[0] == "i":
            return None
        return result[0], max(k[1] for k in parts)

    for key, term in typing:
        got = kind(term)
        if got is None or known.get(key, got) != got:
            return False
        known[key] = got
    for key, term in typing:      # the next iteration reads what this one bound
        if kind(term) != known[key]:
            return False
    return True


class LoopPlan:
    """A translated loop: its source and the variables it reads and binds."""

    def __init__(self, source: str, inputs: list, outputs: list, names: dict,
                 result_key: Any, typing: list):
        self.source = source
        self.typing = typing          # [(key, typing term)] per statement (:func:`infer`)
        self.inputs = inputs          # [(key, node.variable)] in the kernel's order
        self.outputs = outputs        # [(key, node.variable)] in the returned tuple's order
        self.names = names
        self.result_key = result_key  # the last statement's variable if it is a define


def translate(node: Node) -> LoopPlan | None:
    """The plan of a ``for_each`` node, or None if it is not a loop this module takes."""
    if node.primitive != "for_each" or node.variable is None or len(node.children) != 2:
        return None
    iterable, body = node.children
    if iterable.primitive != "range":
        return None
    statements = list(body.children) if body.primitive == "block" else [body]
    if not statements:
        return None
    src = _Source(node.variable[0])
    lines = []
    for stmt in statements:
        line = src.statement(stmt)
        if line is None:
            return None
        lines.append(line)
    inputs = [(k, src.readers[k]) for k in src.inputs]
    outputs = [(k, src.writers[k]) for k in src.writers]
    last = statements[-1]
    result_key = last.variable[0] if last.primitive == "define-variable" else None
    params = ", ".join(["r_start", "r_stop", "r_step"] + [src.names[k] for k, _ in inputs])
    returned = ", ".join([src.names[k] for k, _ in outputs] + ["i_"])
    head = "    i_ = r_start\n"
    iteration = "\n".join(lines)
    source = (f"{codegen.PRELUDE}\n\n"
              f'@njit(cache=True, error_model="numpy", nogil=True)\n'
              f"def kernel_par({params}):\n{head}"
              + _indent(iteration, 4)
              + "\n    for i_ in range(r_start + r_step, r_stop, r_step):\n"
              + _indent(iteration, 8)
              + f"\n    return ({returned},)\n")
    return LoopPlan(source, inputs, outputs, src.names, result_key, src.typing)


def _indent(text: str, n: int) -> str:
    return "\n".join(" " * n + line for line in text.splitlines())


def _key(value: Any) -> Any:
    """A value's part of a kernel signature, None if no compiled loop takes it."""
    t = type(value)
    if t is np.ndarray:
        if value.dtype != np.float64 or not 1 <= value.ndim <= 2:
            return None
        layout = "C" if value.flags.c_contiguous else "F" if value.flags.f_contiguous else "A"
        return ("a", value.ndim, layout, value.flags.writeable)
    if t is float or t is np.float64:
        return "f"
    if t is bool:
        return "b"
    if t is int:
        return "i" if value.bit_length() <= 62 else None
    return None


def _arrival(value: Any, carried: bool) -> Any:
    """An input as the kernel takes it: a strided array as a contiguous copy (numba's
    np.dot would warn, and BLAS wants one), a read-only array the loop rebinds as a
    writeable copy (numba types the two apart and could not unify them); the kernel
    never writes its inputs, so copies change nothing the program can see."""
    if type(value) is np.ndarray and value.dtype == np.float64 and value.ndim:
        flags = value.flags
        if not (flags.c_contiguous or flags.f_contiguous):
            return np.ascontiguousarray(value)
        if carried and not flags.writeable:
            return value.copy()
    return value


_PENDING, _REJECTED = "pending", "rejected"


class _Entry:
    """A compiled loop for one signature and what was measured of it."""

    def __init__(self, kernel: Any):
        self.kernel = kernel
        self.checked = False
        self.types: list[type] = []           # the tree's output types, from the check
        self.timed = [[], []]                 # ns: compiled runs, tree runs
        self.kept = False
        self.calls = 0                        # compiled runs whose outputs were used


_LIVE: weakref.WeakSet = weakref.WeakSet()


def settling() -> bool:
    """True while a compiled loop is compiling or being checked and timed: the calls
    made now are not the steady state (benchmarks wait for this to end)."""
    return any(loop.settling() for loop in list(_LIVE))


class CompiledLoop:
    """The evaluation closure of a ``for_each`` node with a :class:`LoopPlan`."""

    def __init__(self, node: Node, plan: LoopPlan):
        _LIVE.add(self)
        self.node = node
        self.plan = plan
        self.original = node.inline
        self.iterable, self.body = node.children
        self.index_owner, self.index_slot = node.variable[1], node.variable[2]
        self.entries: dict[tuple, Any] = {}
        self.lock = threading.Lock()
        self.warned = False
        self.cached: bool | None = None
        self.nodes = sum(1 for _ in self.body.walk())
        bound = {key for key, _ in plan.outputs}
        self.carried = [key in bound for key, _ in plan.inputs]

    def __repr__(self) -> str:
        loc = self.node.loc
        return f"<CompiledLoop at line {loc.line if loc else '?'}>"

    def settling(self) -> bool:
        return any(
            e == _PENDING or (type(e) is _Entry and not e.kept) for e in self.entries.values())

    # -- the tree's loop, as for_each runs it ------------------------------------------
    def interpret(self, frame: list, items: range) -> Any:
        target = self.index_owner(frame)
        slot, body = self.index_slot, self.body
        result = None
        for item in items:
            if PENDING[0]:
                check()   # a cancelled branch stops at its next iteration
            target[slot] = item
            result = body.run(frame)
        return result

    def run(self, frame: list) -> Any:
        items = self.iterable.run(frame)
        if type(items) is not range or len(items) == 0 or not Settings.loops:
            return self.interpret(frame, items) if type(items) is range \
                else self.original(frame)
        values = [_arrival(var[1](frame)[var[2]], carried)
                  for (_, var), carried in zip(self.plan.inputs, self.carried)]
        types = tuple(_key(v) for v in values)
        if None in types:
            return self.interpret(frame, items)
        # sizes by factors of 4 are measured apart: a loop compiled for small steps
        # must not run big ones, where the tree's row passes win
        elements = sum(v.size for v in values if type(v) is np.ndarray)
        sig = (elements.bit_length() // 2,) + types
        entry = self.entries.get(sig)
        if entry is None:
            entry = self.entries[sig] = self.first_entry(types, values)
        if type(entry) is _Entry:
            if entry.kept:
                return self.compiled(frame, items, values, entry)
            return self.trial(frame, items, values, sig, entry)
        if type(entry) is not int:             # pending or rejected
            return self.interpret(frame, items)
        start = perf_counter_ns()
        result = self.interpret(frame, items)
        elapsed = perf_counter_ns() - start
        if elapsed > MAX_NS_PER_NODE * self.nodes * len(items):
            return result      # big steps: the tree's overhead is not what takes the time
        kernel = self.compiled_for(types)
        if kernel is not None:   # compiled at another size: checked and timed at this one
            with self.lock:
                if self.entries.get(sig) == entry:
                    self.entries[sig] = _Entry(kernel)
            return result
        spent = entry + elapsed
        with self.lock:
            if type(self.entries.get(sig, 0)) is int:
                self.entries[sig] = spent
        if spent >= self.cost():
            self.start_compile(sig, values)
        return result

    def first_entry(self, types: tuple, values: list) -> Any:
        """What a new signature starts with: rejected if the types do not compute as
        the tree's, else no time spent yet."""
        kinds = {key: _kind_of(v) for (key, _), v in zip(self.plan.inputs, values)}
        return 0 if infer(self.plan.typing, kinds) else _REJECTED

    def compiled_for(self, types: tuple) -> Any:
        """The kernel compiled for these types at another size, or None."""
        for sig, e in list(self.entries.items()):
            if sig[1:] == types and type(e) is _Entry:
                return e.kernel
        return None

    def cost(self) -> int:
        cost = Settings.compile_cost_ns
        if self.cached is None and codegen.initialized():
            self.cached = codegen.is_cached(self.plan.source)
        return cost // 10 if self.cached else cost

    def start_compile(self, sig: tuple, values: list) -> None:
        with self.lock:
            if type(self.entries.get(sig, 0)) is not int:
                return
            self.entries[sig] = _PENDING
        samples = (0, 1, 1) + tuple(values)

        def work() -> None:
            try:
                kernel = codegen.compile_kernel(codegen.Plan(self.plan.source, None),
                                                samples, serial=False)[0]
            except Exception as e:  # any failure: the tree keeps the loop
                self.entries[sig] = _REJECTED
                text = (str(e).strip().splitlines() or [""])[0]
                self.warn(f"could not compile the loop ({type(e).__name__}: {text})")
                return
            self.entries[sig] = _Entry(kernel)

        if Settings.background:
            thread = threading.Thread(target=work, name="phylanx-loop-compile", daemon=True)
            _compiles.append(thread)
            thread.start()
        else:
            work()

    # -- compiled ------------------------------------------------------------------------
    def write_back(self, frame: list, outputs: tuple, types: list) -> Any:
        result = None
        for (key, var), value, t in zip(self.plan.outputs, outputs, types):
            if type(value) is not t and t is not np.ndarray:
                value = t(value)
            var[1](frame)[var[2]] = value
            if key == self.plan.result_key:
                result = value
        self.index_owner(frame)[self.index_slot] = outputs[-1]
        return result

    def compiled(self, frame: list, items: range, values: list, entry: _Entry) -> Any:
        try:
            outputs = entry.kernel(items.start, items.stop, items.step, *values)
        except Exception as e:  # the tree decides: a located error, or a kernel bug
            result = self.interpret(frame, items)
            self.reject(entry, f"the compiled loop raised {type(e).__name__}: {e}")
            return result
        entry.calls += 1
        return self.write_back(frame, outputs, entry.types)

    def trial(self, frame: list, items: range, values: list, sig: tuple,
              entry: _Entry) -> Any:
        """The check (compiled and tree on the same inputs), then the timed turns."""
        if entry.checked and (len(entry.timed[0]) + len(entry.timed[1])) % 2:
            start = perf_counter_ns()
            result = self.interpret(frame, items)
            entry.timed[1].append(perf_counter_ns() - start)
            self.decide(entry)
            return result
        start = perf_counter_ns()
        try:
            outputs = entry.kernel(items.start, items.stop, items.step, *values)
            failure = None
        except Exception as e:
            outputs, failure = None, f"{type(e).__name__}: {e}"
        compiled_ns = perf_counter_ns() - start
        if entry.checked:
            if failure is not None:
                result = self.interpret(frame, items)
                self.reject(entry, f"the compiled loop raised {failure}")
                return result
            entry.timed[0].append(compiled_ns)
            entry.calls += 1
            result = self.write_back(frame, outputs, entry.types)
            self.decide(entry)
            return result
        start = perf_counter_ns()
        result = self.interpret(frame, items)      # raises the located error if any
        tree_ns = perf_counter_ns() - start
        if failure is not None:
            self.reject(entry, f"the compiled loop raised {failure}")
            return result
        expected = [var[1](frame)[var[2]] for _, var in self.plan.outputs]
        problem = disagreement(outputs[:-1], expected, len(items))
        if problem is not None:
            self.reject(entry, f"the compiled loop disagrees with the tree ({problem})")
            return result
        entry.types = [type(v) for v in expected]
        entry.checked = True
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


def disagreement(got: tuple, expected: list, iterations: int) -> str | None:
    """None if the compiled loop's outputs agree with the tree's, else what differs."""
    for g, e in zip(got, expected):
        if isinstance(e, np.ndarray):
            g = np.asarray(g)
            if g.shape != e.shape or g.dtype != e.dtype:
                return f"{g.dtype}{g.shape} instead of {e.dtype}{e.shape}"
        elif not isinstance(e, (bool, int, float, np.generic)):
            return f"the tree gave a {type(e).__name__}"
        ea = np.asarray(e)
        ga = np.asarray(g)
        if ea.dtype.kind != "f":
            if not np.array_equal(ga, ea):
                return f"{ga!r} instead of {ea!r}"
            continue
        # differences of a few ulps per iteration can add up along the loop
        tol = min(1e-6, _tolerance(ea.dtype) * max(1, iterations))
        finite = np.abs(ea[np.isfinite(ea)])
        atol = tol * (float(finite.max()) if finite.size else 0.0)
        close = np.isclose(ga, ea, rtol=tol, atol=atol, equal_nan=True)
        if not np.all(close):
            bad = int(np.flatnonzero(~np.asarray(close).reshape(-1))[0])
            return f"element {bad}: {ga.reshape(-1)[bad]!r} instead of {ea.reshape(-1)[bad]!r}"
    return None


def analyse(node: Node) -> CompiledLoop | None:
    """A :class:`CompiledLoop` for a ``for_each`` node this module takes, else None."""
    if node.primitive != "for_each":
        return None
    plan = translate(node)
    return None if plan is None else CompiledLoop(node, plan)

