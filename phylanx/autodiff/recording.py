"""Recording copies ("twins") of compiled functions: their primitives append to a tape.

The normal execution tree is never slowed down: a function being differentiated is
compiled a second time, from the source its compiler remembered
(``body.function_source``, set by ``compiler.special_forms``), by
:class:`RecordingCompiler`, which wraps the kernel of every eager primitive so that it
appends ``(primitive, operands, output, node)`` to the active :class:`~.tape.Tape`: the
tape of the evaluation the thread works for (:func:`record` attaches it to the ``grad``
call's evaluation scope, ``runtime/evaluation.py``; tasks of that evaluation inherit it,
other evaluations, on other Python threads, have their own).  Control flow (``if``,
``while``, ``for``, recursion) needs nothing special: only what runs is recorded.

The twin shares the original's scopes and global frame, so it reads the same globals;
functions it calls, and function values handed to kernels (``fmap(f, xs)``), are replaced
by their own twins, compiled once per function body and kept while the body lives.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from ..compiler import scopes
from ..compiler.compiler import Compiler, make_call
from ..compiler.special_forms import compile_function, function_source
from ..language import ast
from ..primitives import registry
from ..primitives.original_index import store_indices
from ..runtime import evaluation
from ..runtime.futures import holds_future, resolve_deep
from ..runtime.nodes import Node, build_eager
from ..values import Builtin, Function
from . import tape as tapes
from .containers import carries_gradient
from .rule_helpers import index_tuple, put
from .saved import KEEPING

#: primitives that change their first operand in place; one missing here gives a silently
#: wrong gradient for an array (the tape keeps the value before the change); a changed
#: list or dict needs nothing (each use reads its items: containers.py)
MUTATORS = frozenset({
    "__inplace", "__fill", "__sort_inplace", "shuffle", "__list_append", "__list_extend",
    "__list_insert", "__list_remove", "__list_reverse", "__list_pop", "__pop",
    "add_at", "ufunc_at", "fill_diagonal",
})

_SLICE_FORMS = ("__subscript", "slice", "slice_row", "slice_column", "slice_page", "tuple_slice")

#: the key of the tape in the state of the evaluation being differentiated
#: (``runtime/evaluation.py``): each ``grad`` call's own, seen by its worker threads too
TAPE = "autodiff.tape"


#: operand kinds that are neither futures, containers nor function values: an
#: application whose operands are all of these kinds is recorded by the short path
#: (``Tape.record_plain``; about a third of a recorded application's Python frames)
PLAIN_OPERANDS = frozenset({
    np.ndarray, float, int, bool, complex, str, type(None), np.float16, np.float32,
    np.float64, np.complex64, np.complex128, np.int8, np.int16, np.int32, np.int64,
    np.uint8, np.uint16, np.uint32, np.uint64, np.bool_})


def active_tape() -> tapes.Tape | None:
    """The tape of the evaluation this thread works for (None: not differentiating)."""
    return evaluation.lookup(TAPE)


def record(tape: tapes.Tape, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` as an evaluation recording on ``tape``; inside the evaluation of an
    outer ``grad`` (``grad(grad(f))``), on the outer tapes too (``Tape.outer``): they
    then see the inner function's values and, later, the inner reverse pass."""
    tape.outer = active_tape()
    return evaluation.run_with({TAPE: tape}, fn, *args)


def recording_kernel(name: str, impl: Callable[..., Any], node: Any) -> Callable[..., Any]:
    """``impl`` that also records its application on the active tape."""
    spec = registry.lookup(name)
    if spec is not None and spec.zero_gradient:
        # piecewise constant (floor, sign ...): its result is a constant for the tape, so
        # gradients through it are zeros, as JAX's
        return impl
    mutates = name in MUTATORS or name.startswith("__inplace")
    keeping = KEEPING.get(name)      # a form that keeps what the rule needs (saved.py)
    plain = not mutates and keeping is None

    def recorded(*args):
        tape = active_tape()
        if tape is None:
            return impl(*args)
        if tape.outer is not None:       # nested grad: every tape records the application
            return record_nested(tape.chain(), args)
        return record_on(tape, args)

    def record_nested(chain, args):
        if any(holds_future(a) for a in args):
            args = tuple(resolve_deep(a) for a in args)
        if any(type(a) is Function or type(a) is Builtin for a in args) or mutates:
            raise tapes.PhylanxGradientError(
                f"nested differentiation through '{name}' is not supported (it calls a "
                "function value or changes its operand in place)",
                getattr(node, "loc", None), name)
        out = impl(*args)
        for tape in chain:
            tape.record(name, args, out, node)
        return out

    def record_on(tape, args):
        if plain and PLAIN_OPERANDS.issuperset(map(type, args)):
            # no future, container or function value among the operands (the usual
            # case): none of the checks below applies, and the tape's short path records
            out = impl(*args)
            tape.record_plain(name, args, out, node)
            return out
        if any(holds_future(a) for a in args):
            # ``async`` values: what the kernel consumes is the future's value, which is
            # what the tape tracks (NumPy would read a future through __array__ unseen)
            args = tuple(resolve_deep(a) for a in args)
        calls_functions = any(type(a) is Function or type(a) is Builtin for a in args)
        if calls_functions:
            args = tuple(tape.twin_of(a) if type(a) is Function else a for a in args)
            # the kernel may hand the function rows of a tracked array (fmap, fold_left):
            # new objects the tape does not know, so what the function computes from them
            # would look constant; the result then depends on this application as a whole
            opaque = any(isinstance(a, np.ndarray) and a.ndim and tape.tracked(a) is not None
                         for a in args)
            before = len(tape.entries)
            out = impl(*args)
            if len(tape.entries) > before:
                # the function it called computed with tracked values: the result depends on
                # them in a way only a rule for this primitive could say
                tape.record(name, args, out, node, hidden=tape.entries[-1], opaque=opaque)
            else:
                tape.record(name, args, out, node, opaque=opaque)
            return out
        if mutates and args:
            target = args[0]
            tape.before_mutation(target)
            # an operand that is the target itself (np.add.at(y, i, y)) is recorded as
            # the value it had: the change overwrites it
            operands = [a.copy() if a is target and isinstance(a, np.ndarray) else a
                        for a in args[1:]]
            aliased = [a is target for a in args[1:]]
            out = impl(*args)
            changed = out is target or out is None   # None: the in-place methods return nil
            if changed or type(target) is list:
                tape.after_mutation(name, target, operands, node, aliased)
            if changed:
                return out
        elif keeping is not None and keeping.applies(tape.tracked, args):
            out, saved = keeping.forward(*args)
            tape.record(name, args, out, node, saved=saved)
            return out
        else:
            out = impl(*args)
        tape.record(name, args, out, node)
        return out

    recorded.__name__ = getattr(impl, "__name__", name)
    return recorded


def _rewritten_norm(name: str, args: tuple, loc) -> ast.Call | None:
    """``__npnorm(v[, axis=k])`` for ``sqrt(sum(power(absolute(v), 2.0)[, axis=k]))``,
    the compiler's rewrite of the plain ``np.linalg.norm`` (rule
    ``norm_is_root_of_sum_of_squares``, the same value), else None.  Recorded as
    written, the norm is differentiated by its own rules: through ``absolute``, whose
    sign is a constant of the derivative and 0 at 0, a nested derivative lost the
    curvature of ``|v_i|**2`` at ``v_i = 0`` (the Hessian of ``norm(x)**2`` had a 0
    where it is 2)."""
    if name != "sqrt" or len(args) != 1:
        return None
    total = args[0]
    if type(total) is not ast.Call or total.func != "sum" or total.attribute is not None:
        return None
    squares, *rest = total.args or (None,)
    if len(rest) > 1 or (rest and not (type(rest[0]) is ast.KeywordArg
                                       and rest[0].name == "axis")):
        return None
    if (type(squares) is not ast.Call or squares.func != "power" or len(squares.args) != 2
            or type(squares.args[1]) is not ast.Literal or squares.args[1].value != 2.0
            or type(squares.args[1].value) is not float):
        return None
    magnitude = squares.args[0]
    if (type(magnitude) is not ast.Call or magnitude.func != "absolute"
            or len(magnitude.args) != 1 or type(magnitude.args[0]) is ast.KeywordArg):
        return None
    return ast.Call("__npnorm", (magnitude.args[0], *rest), None, loc)


def _unseen_call(fn: Callable[..., Any], name: str, loc: Any) -> Callable[..., Any]:
    """A Python callable other than a Phylanx function (``np.sin``, ``math.exp`` passed as
    an argument or a default) runs unseen by the tape: what it computes from tracked
    values would be a constant, a silently wrong gradient.  So a located error then
    (unless the tape saw it: a callable that runs Phylanx functions records them)."""
    def checked(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        tape = active_tape()
        if tape is not None and carries_gradient(out) and tape.tracked(out) is None and any(
                tape.tracked(a) is not None for a in (*args, *kwargs.values())):
            raise tapes.PhylanxGradientError(
                f"cannot differentiate through '{name}', a "
                f"{getattr(fn, '__name__', type(fn).__name__)} passed as a value: the tape "
                "does not see inside a Python callable; call the NumPy function by name "
                "or pass a Python function (compiled and followed)", loc, name)
        return out
    return checked


class RecordingCompiler(Compiler):
    """A compiler whose eager primitives record on the active tape (see module doc)."""

    def __init__(self, original: Compiler, twins: TwinCache) -> None:
        super().__init__(original.file_name)
        self.globals = original.globals     # same global frame: the twin reads the same values
        self.twins = twins

    def build_eager(self, node, impl, spec):
        return build_eager(node, recording_kernel(node.primitive, impl, node))

    def builtin_value(self, name, spec, loc) -> Builtin:
        plain = super().builtin_value(name, spec, loc)
        where = Node(name, loc)          # for the location of errors of the backward pass
        return Builtin(name, recording_kernel(name, plain.call, where))

    def compile_function_call(self, call: ast.Call, where, scope):
        read = scopes.reader(where, self.globals.frame)
        twins = self.twins

        def get(frame):
            fn = read(frame)
            if type(fn) is Function:
                return twins.twin(fn)
            if type(fn) is Builtin or not callable(fn):
                return fn
            return _unseen_call(fn, call.func, call.loc)

        positional = [a for a in call.args if not isinstance(a, ast.KeywordArg)]
        keywords = [a for a in call.args if isinstance(a, ast.KeywordArg)]
        args = [self.compile(a, scope) for a in positional]
        kwargs = {k.name: self.compile(k.value, scope) for k in keywords}
        node = self.new_node("call-function", call.loc, args, instance=call.func)
        return node.set_run(make_call(node, call.func, get, args, kwargs))

    def compile_name(self, name, loc, scope):
        node = super().compile_name(name, loc, scope)
        if node.primitive == "access-variable":
            read, twins = node.choice.call, self.twins

            def run(frame):     # a function read from a variable: its twin records too
                value = read(frame)
                return twins.twin(value) if type(value) is Function else value
            node.set_run(run)
        return node

    def compile_primitive(self, name, args, loc, scope, call=None):
        spec = registry.lookup(name)
        restore = spec.flags.get("restore") if spec is not None else None
        if restore is not None:   # a rewrite's primitive: record the expression it replaced
            return self.compile(restore(tuple(args), loc), scope)
        norm = _rewritten_norm(name, args, loc)
        if norm is not None:      # np.linalg.norm as it was written (see _rewritten_norm)
            return self.compile(norm, scope)
        if (name == "store" and len(args) == 2 and isinstance(args[0], ast.Call)
                and args[0].func in _SLICE_FORMS and args[0].args):
            return self.compile_store_into_slice(args[0], args[1], loc, scope)
        node = super().compile_primitive(name, args, loc, scope, call)
        if name == "for_each" and len(node.children) == 2:
            iterable = node.children[0] if node.instance is not None else node.children[1]
            record_items(iterable, node)
        return node

    def compile_store_into_slice(self, target: ast.Call, value_ast, loc, scope):
        """``store(slice(x, i...), v)`` that records the change of ``x`` (the same
        evaluation as the special form ``store``)."""
        kind = target.func
        base = self.compile(target.args[0], scope)
        indices = [self.compile(a, scope) for a in target.args[1:]]
        value = self.compile(value_ast, scope)
        node = self.new_node("store", loc, (base, *indices, value), instance=kind)

        def run(frame):
            container = resolve_deep(base.choice.call(frame))
            idx = [resolve_deep(i.choice.call(frame)) for i in indices]
            v = resolve_deep(value.choice.call(frame))
            if kind != "__subscript":   # PhySL's slice forms read indices as the original
                idx, v = store_indices(kind, container, idx, v)
            tape = active_tape()
            if tape is not None and tape.outer is not None:
                raise tapes.PhylanxGradientError(
                    "nested differentiation through a store into a slice is not supported",
                    loc, "store")
            if tape is not None and isinstance(container, np.ndarray) \
                    and tape.stores_its_changed_view(container, _region(container, idx), v):
                # ``b[i] op= v``: the memory already holds v, nothing the tape keeps changes
                put(container, idx, v)
                tape.after_mutation("store", container, [v, *idx], node)
                return
            if tape is not None:
                tape.before_mutation(container)
            put(container, idx, v)
            if tape is not None:
                tape.after_mutation("store", container, [v, *idx], node)

        from ..compiler.compiler import located
        return node.set_run(located(node, run))


def _region(container: np.ndarray, idx: list) -> Any:
    """``container[idx]`` as the store reads the indices (None if they select no view)."""
    try:
        return container[index_tuple(idx)]
    except (IndexError, TypeError, ValueError):
        return None


def record_items(iterable, loop) -> None:
    """Make the rows a ``for_each`` takes from a tracked array tracked too (each is
    ``slice(iterable, i)``), wrapping the iterable's closure.  (The items of a list or
    tuple are tracked, or not, as themselves: ``containers.py``.)"""
    produce = iterable.choice.call

    def run(frame):
        value = produce(frame)
        tape = active_tape()
        if tape is None or type(value) is not np.ndarray or value.ndim == 0 \
                or tape.tracked(value) is None:
            return value
        items = [tape.item(value, i, loop) for i in range(len(value))]
        for outer in tape.chain()[1:]:        # nested grad: the outer tapes see them too
            for i, item in enumerate(items):
                outer.record("slice", [value, np.int64(i)], item, loop)
        return items
    iterable.set_run(run)


class TwinCache:
    """Recording twins of functions, compiled once per function body.

    The twin's factory is kept on the body's :class:`FunctionSource`, which its compiler
    owns: nothing here keeps a compiler state alive.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()

    def twin(self, fn: Function) -> Function:
        source = function_source(fn.body)
        if source is None:
            raise tapes.PhylanxGradientError(
                f"cannot differentiate through function '{fn.name}': its source is not "
                "known (it was not compiled by phylanx's compiler)", fn.loc, fn.name)
        if isinstance(source.compiler, RecordingCompiler):
            return fn      # compiled by a recorder already (a lambda inside a twin)
        make = source.twin
        if make is None:
            with self._lock:
                if source.twin is None:
                    recorder = RecordingCompiler(source.compiler, self)
                    # the twin is the recorded program's plan: its distributed
                    # operations carry that program's plan key (ranks compare it,
                    # distributed/lockstep.py), not 0, which no rank checks
                    recorder.plan_key = fn.body.plan
                    # (a decorated function's names bound as its own code binds them:
                    # PhySL text may have defined one of them again, compiler/scopes.py)
                    root = scopes.root(source.scope)
                    outer, root.linking = root.linking, source.linked
                    try:
                        source.twin, _ = compile_function(
                            recorder, source.call, source.scope, source.name,
                            source.params, source.body_ast)
                    finally:
                        root.linking = outer
                make = source.twin
        return make(fn.closure)


#: the process-wide cache of twins
TWINS = TwinCache()
