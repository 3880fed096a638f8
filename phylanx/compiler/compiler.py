"""PhySL AST -> execution tree.

:class:`Compiler` resolves every name lexically (scopes.py), binds arguments
against each primitive's declared signature (binding.py) and builds a
:class:`~phylanx.runtime.nodes.Node` per primitive call whose ``run`` closure
evaluates it.  Special forms (``define``, ``lambda``, ``store`` ...) are compiled
by their builders in ``special_forms.py`` (the registry holds only their docs).
Every compile error is a :class:`PhylanxCompileError` with ``file:line:col``, the line and a caret.
"""
from __future__ import annotations

import math
import sys
import threading
from typing import Any

import numpy as np

from .. import config
from ..errors import PhylanxCompileError, PhylanxError
from ..language import ast
from ..primitives import registry
from ..runtime import hooks, measure, overlap
from ..runtime.futures import Future, waited
from ..runtime.nodes import Node, build_eager, constant, node_failed, slot_op
from ..source import SourceLoc
from ..values import Builtin, ControlSignal, Function, call_function
from . import binding, dependencies, scalar_loops, scopes
from .locating import located
from .special_forms import SPECIAL_FORMS

#: named constants of §2.1 (a local variable of the same name shadows them)
CONSTANTS: dict[str, Any] = {
    "nil": None, "true": np.True_, "false": np.False_,
    # Python's booleans (what the frontend writes for True/False): True + True is 2
    "True": True, "False": False,
    "inf": math.inf, "ninf": -math.inf, "nan": math.nan,
    "NZERO": -0.0, "PZERO": 0.0,
    "euler": math.e, "euler_gamma": float(np.euler_gamma),
    "pi": math.pi,
    "int": "int64", "float": "float64", "bool": "bool",
}

#: primitives whose operands run concurrently in the enclosing frame (branch scopes)
_BRANCHES = frozenset(("parallel_block", "async"))

_ARRAY_DTYPES = {"bool": np.bool_, "int": np.int64, "float": np.float64}


def literal_value(value: Any) -> Any:
    """A literal as the PhySL value it denotes.

    Numbers stay Python ``int``/``float``: NumPy treats them as *weak* scalars,
    so ``x * 2`` keeps a float32 array float32, exactly as the same expression
    in NumPy code does, and reach Python as the Python numbers they are.
    ``true``/``false`` are ``np.bool_`` (``true + true`` is ``true``, as in NumPy);
    Python's ``True``/``False`` are the named constants of that spelling.
    """
    if isinstance(value, bool):
        return np.bool_(value)
    return value


def with_dtype(impl, dtype: str, data_args: tuple[int, ...] | None = None):
    """The ``name__int``-style variant of ``impl``: compute and return in ``dtype``.

    ``data_args`` (the spec flag ``dtype_args``) names the argument positions that
    hold data; the others (counts, sizes) are passed unchanged.  None: all.
    """
    target = np.dtype(dtype)

    def cast(v):
        if isinstance(v, (np.ndarray, np.generic, int, float, bool)):
            out = np.asarray(v).astype(target)
            return out[()] if out.ndim == 0 else out
        if isinstance(v, list):
            return [cast(x) for x in v]
        return v

    def variant(*args):
        if data_args is None:
            return cast(impl(*[cast(a) for a in args]))
        return cast(impl(*[cast(a) if i in data_args else a for i, a in enumerate(args)]))

    variant.__name__ = getattr(impl, "__name__", "variant") + "_" + dtype
    return variant


#: the recursion limit while a tree is evaluated: every level of a recursive PhySL
#: function is a few Python frames, so Python's default (1000) would stop at ~200 levels
DEEP_RECURSION_LIMIT = 20000


class _DeepRecursion:
    """Raise the recursion limit for the evaluations inside, restore it after the last.

    The limit is process-wide, so concurrent evaluations (several Python threads calling
    compiled code) share one raise: a count under a lock restores the limit only when
    the last of them ends.  Used at every entry from Python into a tree (compiler state
    runs, ``execution_tree.invoke``, decorated-function calls) and around compiling;
    nesting is cheap.  One shared instance, :data:`deep_recursion`; state in a list, not
    on the class (setting a class attribute would flush the type cache on every call).
    """

    __slots__ = ()
    _lock = threading.Lock()
    _count_and_saved = [0, 0]

    def __call__(self) -> _DeepRecursion:   # ``with deep_recursion():`` reads naturally
        return self

    def __enter__(self) -> None:
        state = self._count_and_saved
        with self._lock:
            if state[0] == 0:
                state[1] = sys.getrecursionlimit()
                if state[1] < DEEP_RECURSION_LIMIT:
                    sys.setrecursionlimit(DEEP_RECURSION_LIMIT)
            state[0] += 1

    def __exit__(self, *exc) -> None:
        state = self._count_and_saved
        with self._lock:
            state[0] -= 1
            # restore unless the program set its own limit meanwhile
            if state[0] == 0 and sys.getrecursionlimit() == DEEP_RECURSION_LIMIT:
                sys.setrecursionlimit(state[1])


deep_recursion = _DeepRecursion()


class Compiler:
    """Compiles PhySL ASTs within one compiler state (shared global scope)."""

    def __init__(self, file_name: str = "<physl>") -> None:
        self.file_name = file_name
        self.globals = scopes.GlobalScope()
        # what the closures of the decorated function being compiled hold, its ``token``
        # (execution_tree.py: compile_text's owner), else None
        self.owner = None
        self.compile_id = 0
        self.plan_key = 0       # (config.plan_key when the program began compiling)
        self._seq: dict[str, int] = {}

    # -- entry points -------------------------------------------------------
    def compile_program(self, program: ast.Program) -> Node:
        """Compile top-level expressions into one node returning the last value."""
        self.compile_id += 1
        self.plan_key = config.plan_key()
        # the rewrite passes and compiling recurse along the AST's depth: both run under
        # the evaluation's raised limit, and a program deeper still is a located error
        try:
            with deep_recursion():
                program = self.rewrite(program)
                body = [self.compile(e, self.globals) for e in program.body]
        except RecursionError:
            raise self.error("the program is nested too deep to compile", program.loc,
                             "compiler") from None
        self.fuse(body)
        dependencies.mark_local_work(body)   # the side table's local work, once
        hooks.compiled(body)   # a timeline recording (now or later) reaches this code
        if config.get("tracing"):
            if measure.TRACE_LOG not in hooks.active():
                hooks.install(measure.TRACE_LOG)   # tracing switched on by the environment
            for stmt in body:
                measure.enable(stmt)
        node = self.new_node("block", program.loc, body)
        if not body:
            return node.set_run(lambda frame: None)
        if len(body) == 1:
            only = body[0]
            return node.set_run(lambda frame: only.choice.call(frame))
        plan = dependencies.overlap_plan(body)
        if plan:
            return node.set_run(overlap.sequence(body, plan))

        def run(frame):
            result = None
            for stmt in body:
                result = stmt.choice.call(frame)
            return result
        return node.set_run(run)

    def fuse(self, body: list[Node]) -> None:
        """Mark the element-wise chains of ``body`` for fusion (phylanx/fusion), unless
        ``build_eager`` is overridden: a recording compiler must see every primitive."""
        if (config.get("fusion") or config.get("fusion_rows") or config.get("fusion_loops")) \
                and type(self).build_eager is Compiler.build_eager:
            from ..fusion import install
            # a loop translated to Python (scalar_loops.py) holding a node fusion took
            # calls that node's closure: the compiled loop, region or row pass is kept
            scalar_loops.yield_to_fusion([made.node for made in install(body)])

    def rewrite(self, program: ast.Program) -> ast.Program:
        """``program`` after the whole-program rewrites (compiler/rewrite)."""
        # the former pipeline, for one release ('tree' its former name, as config.set takes it)
        if config.get("pipeline") in ("ast", "tree"):
            from .rewrite import optimize
            return optimize(program)
        from .through_ir import optimize_through_ir
        return optimize_through_ir(program)

    def new_node(self, primitive: str, loc: SourceLoc | None, children=(),
                 instance: str | None = None) -> Node:
        node = Node(primitive, loc, tuple(children), instance)
        node.seq = self._seq.get(primitive, 0)
        self._seq[primitive] = node.seq + 1
        node.compile_id = self.compile_id
        node.plan = self.plan_key
        return node

    def error(self, message: str, loc: SourceLoc | None, primitive: str | None = None):
        return PhylanxCompileError(message, loc, primitive)

    # -- expressions --------------------------------------------------------
    def compile(self, expr: Any, scope: scopes.Scope) -> Node:
        t = type(expr)
        if t is ast.Literal:
            return constant(literal_value(expr.value), expr.loc)
        if t is ast.Identifier:
            return self.compile_name(expr.name, expr.loc, scope)
        if t is ast.Call:
            return self.compile_call(expr, scope)
        if t is ast.BinOp:
            prim = ast.BINARY_OPS[expr.op][1]
            return self.compile_primitive(prim, (expr.left, expr.right), expr.loc, scope)
        if t is ast.UnaryOp:
            prim = ast.UNARY_OPS[expr.op]
            if prim is None:
                return self.compile(expr.operand, scope)
            return self.compile_primitive(prim, (expr.operand,), expr.loc, scope)
        if t is ast.ArrayLiteral:
            return self.compile_array(expr)
        if t is ast.QuotedList:
            return self.compile_primitive("list", expr.items, expr.loc, scope)
        if t is ast.KeywordArg:
            raise self.error(f"keyword argument '{expr.name}' outside of a call", expr.loc)
        raise self.error(f"cannot compile {t.__name__}", getattr(expr, "loc", None))

    def compile_array(self, expr: ast.ArrayLiteral) -> Node:
        arr = np.array(expr.value, dtype=_ARRAY_DTYPES[expr.kind])
        if arr.size == 0:
            arr = arr.reshape((0,) * expr.ndim) if arr.ndim != expr.ndim else arr
        node = self.new_node("array", expr.loc)
        # a fresh copy per evaluation: stores into a slice must not change the literal
        return node.set_run(lambda frame: arr.copy())

    def compile_name(self, name: str, loc: SourceLoc | None, scope: scopes.Scope) -> Node:
        where = scopes.resolve(scope, name)
        if where is not None:
            node = self.new_node("access-variable", loc, instance=name)
            if where[0] == 0:
                node.slot = where[1]  # parents read frame[slot] themselves (see build_eager)
                # a local that never holds a future (its function's main slot for the
                # name, not a branch's private one): no future test where it is read
                node.future_free = (isinstance(scope, scopes.FunctionScope)
                                    and name in scope.future_free
                                    and scope.slots.get(name) == where[1])
            node.variable = (where, scopes.owner(where, self.globals.frame), where[1])
            return node.set_run(scopes.reader(where, self.globals.frame))
        if name in CONSTANTS:
            return constant(CONSTANTS[name], loc)
        spec = registry.lookup(name)
        if spec is not None and not spec.special and not spec.lazy:
            return constant(self.builtin_value(name, spec, loc), loc)
        if spec is not None:
            raise self.error(f"'{name}' is a special form and cannot be used as a value", loc)
        raise self.error(f"couldn't find variable '{name}' in symbol table", loc)

    def builtin_value(self, name: str, spec, loc) -> Builtin:
        impl = spec.impl
        with_plan = getattr(impl, "with_plan", None)
        if with_plan is not None:       # (as below: the plan of the program using it)
            impl = with_plan(self.plan_key)
        suffix = registry.dtype_suffix(name)
        if suffix:
            impl = with_dtype(impl, suffix, spec.flags.get("dtype_args"))

        def call(*args, **kwargs):
            try:
                return impl(*args, **kwargs)
            except (PhylanxError, ControlSignal) as e:
                if isinstance(e, PhylanxError) and e.primitive is None:
                    e.primitive = name
                raise
            except Exception as e:
                fake = Node(name, loc)
                raise fake.wrap(e) from e
        return Builtin(name, call)

    def compile_call(self, call: ast.Call, scope: scopes.Scope) -> Node:
        name = call.func
        if call.attribute is not None:
            self.check_attribute(call)
        where = scopes.resolve(scope, name)
        if call.attribute is not None:   # f{L#n}(...): placed on locality n
            from . import remote_call
            return remote_call.compile_placed_call(self, call, where, scope,
                                                   remote_call.placement(call))
        if where is not None:
            return self.compile_function_call(call, where, scope)
        return self.compile_primitive(name, call.args, call.loc, scope, call)

    def check_attribute(self, call: ast.Call) -> None:
        attr = call.attribute.strip()
        if attr.startswith("L#"):
            from ..runtime.locality import here
            try:
                target = int(attr[2:])
            except ValueError:
                raise self.error(f"bad locality attribute '{{{attr}}}'", call.loc,
                                 call.func) from None
            if not 0 <= target < here().count():
                raise self.error(
                    f"locality {target} does not exist ({here().count()} localities)",
                    call.loc, call.func)
            return
        raise self.error(f"unknown attribute '{{{attr}}}' (only L#<locality> is known)",
                         call.loc, call.func)

    def compile_branch(self, expr: Any, scope: scopes.Scope) -> Node:
        """Compile one branch of ``parallel_block``/``async``: it runs concurrently with
        its siblings in the same frame, so every name it declares gets a slot of its
        own (scopes.py, "branch-local slots") — except the name a branch that *is* a
        ``define`` defines (``with parallel: a = ...``), which stays visible after."""
        saved = scope.private, scope.in_loop
        private = dict(saved[0] or {})
        if (isinstance(expr, ast.Call) and expr.func == "define" and expr.args
                and isinstance(expr.args[0], ast.Identifier)):
            name = expr.args[0].name
            if isinstance(scope, scopes.GlobalScope):   # (refused before it is declared)
                scope.check_define(name, expr.loc)
            private[name] = scope.declare(name)     # declared as outside the branch
        scope.private, scope.in_loop = private, True
        try:
            return self.compile(expr, scope)
        finally:
            scope.private, scope.in_loop = saved

    def compile_primitive(self, name: str, args: tuple, loc, scope, call=None) -> Node:
        spec = registry.lookup(name)
        if spec is None:
            raise self.error(f"couldn't find function '{name}' in symbol table", loc)
        if spec.special:
            if call is None:
                call = ast.Call(name, tuple(args), None, loc)
            return SPECIAL_FORMS[spec.name](self, call, scope)
        slots, _ = binding.bind(spec, name, tuple(args), loc)
        children = []
        compile_child = self.compile_branch if name in _BRANCHES else self.compile
        for i, a in enumerate(slots):
            if a is None:
                children.append(constant(binding.default_for(spec, i, name, loc), loc))
            else:
                children.append(compile_child(a, scope))
        node = self.new_node(name, loc, children)
        node.blas = bool(spec.flags.get("blas"))     # runtime/policy.py reads it
        # how the closures treat tiled operands (runtime/nodes.py: dispatch by kind)
        node.takes_tiled, node.elementwise = spec.takes_tiled, spec.elementwise
        # a kernel is given values and gives one, never a future, unless it holds what
        # it is given (takes_futures) or returns what functions it calls return
        node.future_free = not (spec.lazy or spec.higher_order
                                or spec.flags.get("takes_futures"))
        if spec.lazy:
            run = spec.impl(node, node.children)
            if not spec.flags.get("locates_errors"):
                run = located(node, run)
            if name == "block":
                plan = dependencies.overlap_plan(children)
                if plan:
                    run = overlap.sequence(children, plan)
            elif name == "while" and scalar_loops.enabled(self):
                run = scalar_loops.build(node, run) or run
            return node.set_run(run)
        impl = spec.impl
        with_plan = getattr(impl, "with_plan", None)
        if with_plan is not None:
            # (a distributed operation: its messages carry the plan key of the node,
            # which the ranks compare, distributed/lockstep.py)
            impl = with_plan(node.plan)
        suffix = registry.dtype_suffix(name)
        if suffix:
            impl = with_dtype(impl, suffix, spec.flags.get("dtype_args"))
        elif len(children) == 2 and "binary" in spec.flags:
            impl = spec.flags["binary"]   # two operands: the operator itself, no wrapper
        return self.build_eager(node, impl, spec)

    def build_eager(self, node: Node, impl, spec) -> Node:
        """The evaluation closure of an eager primitive's node (a hook: autodiff's
        recording compiler wraps ``impl`` to append each application to its tape)."""
        if config.get("optimize"):
            # element-wise nodes that write into dead operands (runtime/inplace.py)
            from ..runtime import inplace
            if inplace.build(node, impl, spec) is not None:
                return node
        return build_eager(node, impl)

    def compile_function_call(self, call: ast.Call, where, scope) -> Node:
        get = scopes.reader(where, self.globals.frame)
        positional = [a for a in call.args if not isinstance(a, ast.KeywordArg)]
        keywords = [a for a in call.args if isinstance(a, ast.KeywordArg)]
        args = [self.compile(a, scope) for a in positional]
        kwargs = {k.name: self.compile(k.value, scope) for k in keywords}
        node = self.new_node("call-function", call.loc, args, instance=call.func)
        gframe = self.globals.frame if where[0] is None and \
            not scopes.is_per_evaluation(self.globals.frame, where[1]) else None
        return node.set_run(make_call(node, call.func, get, args, kwargs, gframe, where[1]))


def make_call(node: Node, name: str, get, args: list, kwargs: dict,
              globals_frame: list | None = None, slot: int = 0):
    """The closure of a ``call-function`` node (fast path for one plain argument).

    ``globals_frame``: the function is the global in that frame's ``slot``, read there
    directly (a recursive call would otherwise pay one more Python call for ``get``).
    """
    loc = node.loc
    g = globals_frame

    def fail(e: PhylanxError):
        if e.loc is None:
            e.loc = loc
        e.add_frame(name, loc)
        return e

    if len(args) == 1 and not kwargs:
        a0 = args[0]
        a_run, ai, a_impl, a_const = slot_op(a0)   # ``fib(n - 1)``: ``n - 1`` in place
        a0e = a0.choice
        # the last function called that takes one plain parameter; first a sentinel no
        # value is (None would let a nil bound to the name past the check below)
        plain: Any = object()

        def run1(frame):
            nonlocal plain
            fn = g[slot] if g is not None else get(frame)
            if a0e.call is a_run:      # (a local that is never a future, see slot_op)
                x = frame[ai]
                try:
                    value = a_impl(x, a_const)
                except Exception as e:  # also ControlSignal: node_failed passes it on
                    value = node_failed(a0, a_impl, (x, a_const), e)
            else:
                value = a0e.call(frame)
                if type(value) is Future:       # parameters are bound to values
                    value = waited(value)
            try:
                if fn is not plain:
                    if type(fn) is not Function or fn.nparams != 1 or fn.catches_return:
                        return call_function(fn, [value], None, name)
                    plain = fn   # (a Function's parameters and frame size never change)
                if fn.frame_size == 2:
                    return fn.entry.call([fn.closure, value])
                new = [None] * fn.frame_size
                new[0] = fn.closure
                new[1] = value
                return fn.entry.call(new)
            except PhylanxError as e:
                raise fail(e)
            except ControlSignal:
                raise
            except RecursionError as e:
                raise fail(node.wrap(e)) from None
            except Exception as e:
                raise fail(node.wrap(e)) from e
        return run1

    arg_entries = tuple(a.choice for a in args)

    def run(frame):
        fn = get(frame)
        values = [a.call(frame) for a in arg_entries]
        kw = {k: v.choice.call(frame) for k, v in kwargs.items()} if kwargs else None
        try:
            return call_function(fn, values, kw, name)
        except PhylanxError as e:
            raise fail(e)
        except ControlSignal:
            raise
        except RecursionError as e:
            raise fail(node.wrap(e)) from None
        except Exception as e:
            raise fail(node.wrap(e)) from e
    return run
