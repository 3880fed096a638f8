"""Special forms: primitives the compiler builds itself (``define``, ``lambda``, ``store`` ...).

The registry declares their names, patterns and documentation (``special=True``, in
``primitives/core/special_forms.py`` and ``primitives/controls/special_forms.py``) and
holds no implementation; the builders are here, in :data:`SPECIAL_FORMS`, which only
the compiler reads.  A builder receives ``(compiler, call_ast, scope)`` and returns
the node.  :func:`missing_builders` compares the two tables (a test keeps them equal).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import PhylanxCompileError, PhylanxTypeError, PhylanxValueError
from ..language import ast
from ..primitives import indexing, original_index
from ..primitives.controls.control_flow import iterate
from ..primitives.registry import all_specs, lookup
from ..runtime.cancel import PENDING, check
from ..runtime.futures import resolve_deep
from ..runtime.nodes import dispatch_kind, registered_kind
from ..values import BreakSignal, ContinueSignal, Function, write_through_of
from ..values import call as call_fn
from . import scalar_loops, scopes
from .locating import located

#: special form name -> builder ``(compiler, call_ast, scope) -> Node``
SPECIAL_FORMS: dict[str, Callable[..., Any]] = {}


def special_form(name: str) -> Callable:
    """Register the builder of the special form ``name`` (declared in the registry)."""
    def register(builder: Callable) -> Callable:
        if name in SPECIAL_FORMS:
            raise ValueError(f"special form {name!r} has two builders")
        SPECIAL_FORMS[name] = builder
        return builder
    return register


def missing_builders() -> tuple[list[str], list[str]]:
    """(registry specials without a builder, builders without a registry special)."""
    declared = {spec.name for spec in all_specs() if spec.special}
    return sorted(declared - SPECIAL_FORMS.keys()), sorted(SPECIAL_FORMS.keys() - declared)


_SLICE_FORMS = ("__subscript", "slice", "slice_row", "slice_column", "slice_page", "tuple_slice")
#: more store targets, registered by the layers above the compiler (which it must
#: not import): ``name -> store(name, container, indices, value)``; the distributed
#: layer adds ``slice_row_d`` and ``slice_column_d``
SLICE_STORES: dict[str, Callable[[str, Any, list, Any], None]] = {}
#: stores into a slice of a container of a class the layers above define (the
#: distributed layer's tiled array: global indices), by the container's exact class,
#: with the same signature and the store's node last (its errors' location): dispatch
#: on the container's kind, before the plain store
KIND_STORES: dict[type, Callable[[str, Any, list, Any, Any], None]] = {}


class FunctionSource:
    """What compiled a function body, so that autodiff can compile a recording twin of it.

    The body node holds its record (``body.function_source``): the record lives exactly
    as long as the function it describes, whichever compiler object built it.
    """

    __slots__ = ("compiler", "call", "scope", "name", "params", "body_ast", "twin",
                 "placed_key", "linked")

    def __init__(self, compiler, call, scope, name, params, body_ast):
        self.compiler, self.call, self.scope = compiler, call, scope
        self.name, self.params, self.body_ast = name, params, body_ast
        # decorated code: its twin resolves global names as it did (scopes.py)
        self.linked = scopes.root(scope).linking
        self.twin = None      # autodiff's factory of the recording twin, once compiled
        self.placed_key = None  # a top-level definition's key for placed calls (remote_call)


def function_source(body) -> FunctionSource | None:
    return getattr(body, "function_source", None)


def _params(call: ast.Call, items) -> tuple[list[str], list]:
    names, defaults, seen_default = [], [], False
    for p in items:
        if isinstance(p, ast.Identifier):
            if seen_default:
                raise PhylanxCompileError(
                    f"parameter '{p.name}' without a default follows one with a default",
                    p.loc, call.func)
            names.append(p.name)
            defaults.append(None)
        elif isinstance(p, ast.KeywordArg):
            seen_default = True
            names.append(p.name)
            defaults.append(p.value)
        else:
            raise PhylanxCompileError(
                "function parameters must be names or __arg(name, default)",
                getattr(p, "loc", call.loc), call.func)
        if names.count(names[-1]) > 1:
            raise PhylanxCompileError(f"duplicate parameter '{names[-1]}'",
                                      getattr(p, "loc", call.loc), call.func)
    return names, defaults


#: forms whose identifier arguments bind a name: define's and store's target, a
#: function's or loop's parameters (``for_each`` may run its lambda in the enclosing frame)
_BINDING_FORMS = frozenset(("define", "define_global", "store", "lambda", "for_each"))


def future_free_names(body_ast, params) -> frozenset[str]:
    """The locals of a function that never hold a future: every binding of the name in
    ``body_ast`` (at any depth, nested functions included) is ``define(name, value)`` or
    ``store(name, value)`` of a value no kernel gives as a future (:func:`_gives_value`),
    and the parameters so bound or not bound at all (the call binds them to values,
    ``values.Function.invoke``).  Over-approximates what may be a future, by design:
    reads of these names skip the future test (runtime/nodes.py)."""
    values: dict[str, bool] = {}
    stack = [body_ast]
    while stack:
        e = stack.pop()
        t = type(e)
        if t is ast.Call:
            if e.func in _BINDING_FORMS:
                simple = (e.func in ("define", "store") and len(e.args) == 2
                          and type(e.args[0]) is ast.Identifier)
                if simple:
                    name = e.args[0].name
                    values[name] = values.get(name, True) and _gives_value(e.args[1])
                else:
                    for a in e.args:
                        if type(a) is ast.Identifier:
                            values[a.name] = False
            stack.extend(e.args)
        elif t is ast.BinOp:
            stack.extend((e.left, e.right))
        elif t is ast.UnaryOp:
            stack.append(e.operand)
        elif t is ast.KeywordArg:
            stack.append(e.value)
        elif t is ast.QuotedList:
            stack.extend(e.items)
    free = {name for name, ok in values.items() if ok}
    free.update(p for p in params if values.get(p, True))
    return frozenset(free)


def _gives_value(expr) -> bool:
    """True if ``expr`` is a literal or an operator whose kernel gives a value (never a
    future: it is given values, see runtime/nodes.py), so a name bound to it holds none."""
    t = type(expr)
    if t is ast.Literal or t is ast.ArrayLiteral:
        return True
    if t is ast.UnaryOp and ast.UNARY_OPS[expr.op] is None:
        return _gives_value(expr.operand)
    if t is ast.BinOp or t is ast.UnaryOp:
        name = (ast.BINARY_OPS[expr.op][1] if t is ast.BinOp else ast.UNARY_OPS[expr.op])
        spec = lookup(name)
        return spec is not None and not (spec.lazy or spec.special or spec.higher_order
                                         or spec.flags.get("takes_futures"))
    return False


def compile_function(compiler, call: ast.Call, scope, name: str, param_items, body_ast):
    """Compile a function body; returns a factory ``make(frame) -> Function``."""
    params, default_asts = _params(call, param_items)
    fscope = scopes.FunctionScope(scope, name, params)
    fscope.future_free = future_free_names(body_ast, params)
    defaults = [None if d is None else compiler.compile(d, fscope) for d in default_asts]
    body = compiler.compile(body_ast, fscope)
    body.function_source = FunctionSource(compiler, call, scope, name, param_items, body_ast)
    loc = call.loc
    # a function a call makes (a closure, not one of the global frame) reads the global
    # slots of the decorated function compiled, which its drop empties: the closure holds
    # their use (frontend/decorator.py: _SlotUse)
    owner = None if isinstance(scope, scopes.GlobalScope) else compiler.owner

    def make(frame):
        function = Function(name, params, body, frame, fscope.size, defaults, loc,
                             fscope.has_return)
        if owner is not None:
            function.keeps = owner.token
        return function
    return make, body


def _define(compiler, call: ast.Call, scope, global_: bool):
    args = call.args
    if len(args) < 2 or not isinstance(args[0], ast.Identifier):
        raise PhylanxCompileError(
            f"{call.func} needs a name and a body: {call.func}(name, [args...,] body)",
            call.loc, call.func)
    name = args[0].name
    target_scope = scopes.root(scope) if global_ else scope
    if isinstance(target_scope, scopes.GlobalScope):
        target_scope.check_define(name, call.loc)
    slot = target_scope.declare(name)
    g = compiler.globals.frame
    is_global = isinstance(target_scope, scopes.GlobalScope)
    body_ast = args[-1]
    if len(args) > 2 or (isinstance(body_ast, ast.Call) and body_ast.func == "lambda"):
        if len(args) > 2:
            make, body = compile_function(compiler, call, scope, name, args[1:-1], body_ast)
        else:
            make, body = compile_function(compiler, body_ast, scope, name,
                                          body_ast.args[:-1], body_ast.args[-1]) \
                if body_ast.args else (None, None)
            if make is None:
                raise PhylanxCompileError("lambda needs a body", body_ast.loc, "lambda")
        node = compiler.new_node("define-function", call.loc, (body,), instance=name)

        if is_global and isinstance(scope, scopes.GlobalScope):
            # a placed call f{L#n}(...) names this definition: locality n builds its copy
            from . import remote_call
            body.function_source.placed_key = remote_call.publish_definition(
                name, call.loc, make, g)
        if is_global:
            def run(frame):
                fn = g[slot] = make(frame)
                return fn
        else:
            def run(frame):
                fn = frame[slot] = make(frame)
                return fn
        return node.set_run(run)

    body = compiler.compile(body_ast, scope)
    node = compiler.new_node("define-variable", call.loc, (body,), instance=name)
    where = (None, slot) if is_global else (0, slot)
    node.variable = (where, scopes.owner(where, g), slot)
    body_entry = body.choice
    if is_global:
        def run(frame):
            value = g[slot] = body_entry.call(frame)
            return value
    else:
        def run(frame):
            value = frame[slot] = body_entry.call(frame)
            return value
    return node.set_run(run)


@special_form("define")
def define(compiler, call, scope):
    """Build ``define`` (documented in primitives/core/special_forms.py)."""
    return _define(compiler, call, scope, global_=False)


@special_form("define_global")
def define_global(compiler, call, scope):
    """Build ``define_global`` (documented in primitives/core/special_forms.py)."""
    return _define(compiler, call, scope, global_=True)


@special_form("lambda")
def lambda_(compiler, call, scope):
    """Build ``lambda`` (documented in primitives/core/special_forms.py)."""
    if not call.args:
        raise PhylanxCompileError("lambda needs a body: lambda(args..., body)", call.loc, "lambda")
    make, body = compile_function(compiler, call, scope, "lambda", call.args[:-1], call.args[-1])
    node = compiler.new_node("lambda", call.loc, (body,))
    return node.set_run(make)


@special_form("store")
def store(compiler, call, scope):
    """Build ``store`` (documented in primitives/core/special_forms.py)."""
    if len(call.args) != 2:
        raise PhylanxCompileError(
            f"store takes 2 arguments (target, value), got {len(call.args)}", call.loc, "store")
    target, value_ast = call.args
    value = compiler.compile(value_ast, scope)
    if isinstance(target, ast.Identifier):
        found = _variable_slot(compiler, target, scope)
        if found is None:
            raise PhylanxCompileError(
                f"couldn't find variable '{target.name}' in symbol table", target.loc, "store")
        owner, slot = found
        where = scopes.resolve(scope, target.name)
        if where[0] is None:        # (a global: not one decorated code is bound to)
            scopes.root(scope).check_store(target.name, target.loc)
        node = compiler.new_node("store", call.loc, (value,), instance=target.name)
        node.variable = (where, owner, slot)

        value_entry = value.choice

        def run(frame):
            owner(frame)[slot] = value_entry.call(frame)
        return node.set_run(run)
    if isinstance(target, ast.Call) and target.args and (
            target.func in _SLICE_FORMS or target.func in SLICE_STORES):
        kind = target.func
        base = compiler.compile(target.args[0], scope)
        indices = [compiler.compile(a, scope) for a in target.args[1:]]
        node = compiler.new_node("store", call.loc, (base, *indices, value), instance=kind)
        # a 0-d target is replaced: the variable it is read from is stored into
        rebind = _variable_slot(compiler, target.args[0], scope)

        def run(frame):
            # ``async`` values are resolved here, where they are consumed
            container = resolve_deep(base.choice.call(frame))
            idx = [resolve_deep(i.choice.call(frame)) for i in indices]
            v = resolve_deep(value.choice.call(frame))
            tiled = registered_kind()
            if type(container) is not tiled and (type(v) is tiled or tiled in map(type, idx)):
                # a tiled value (or index) stored into a plain array: the store runs on
                # its whole value, as the distributed layer's dispatch gives it
                return dispatch_kind(
                    node, lambda c, *rest: put(frame, c, list(rest[:-1]), rest[-1]),
                    (container, *idx, v))
            put(frame, container, idx, v)

        def put(frame, container, idx, v):
            if kind in SLICE_STORES:
                SLICE_STORES[kind](kind, container, idx, v)
                return
            by_kind = KIND_STORES.get(type(container))
            if by_kind is not None:
                by_kind(kind, container, idx, v, node)
                return
            if type(container) is np.ndarray and not container.flags.writeable and \
                    write_through_of(container) is not None:
                raise PhylanxValueError(
                    "a store into a selection of a tiled array that was gathered into a "
                    "read-only copy (where NumPy gives a view): it would not reach the "
                    "array; store into the array itself (x[2, 0] = v, not y = x[2]; "
                    "y[0] = v)")
            if kind == "__subscript":   # a Python subscript: Python's index checks
                indexing.check_python_indices(container, idx)
            else:   # PhySL's slice forms read indices as the original
                if original_index.is_scalar(container):
                    _store_scalar(kind, container, idx, v, rebind, frame)
                    return
                idx, v = original_index.store_indices(kind, container, idx, v)
            indexing.put(container, idx, v)
        return node.set_run(located(node, run))
    raise PhylanxCompileError(
        "store target must be a variable or a slice of one "
        "(slice, slice_row, slice_column, slice_page, tuple_slice, __subscript, "
        "slice_row_d, slice_column_d)",
        getattr(target, "loc", call.loc), "store")


def _variable_slot(compiler, target, scope):
    """(frame -> owning frame, slot) of a variable named ``target``, else None."""
    if not isinstance(target, ast.Identifier):
        return None
    where = scopes.resolve(scope, target.name)
    return None if where is None else (scopes.owner(where, compiler.globals.frame), where[1])


def _store_scalar(kind, container, idx, v, rebind, frame):
    """``store(slice(s, 0), v)`` with a 0-d ``s``: its one element is replaced."""
    new = original_index.store_scalar(kind, container, idx, v)
    if isinstance(container, np.ndarray):
        container[()] = new
    elif rebind is None:
        raise PhylanxTypeError("a store into a slice of a 0-d value needs a variable as "
                               "the target (store(slice(x, 0), v) with x a variable)")
    else:
        owner, slot = rebind
        owner(frame)[slot] = new


@special_form("return")
def return_(compiler, call, scope):
    """Build ``return`` (documented in primitives/controls/special_forms.py)."""
    from ..values import ReturnSignal
    if len(call.args) > 1:
        raise PhylanxCompileError("return takes at most one value", call.loc, "return")
    if not isinstance(scope, scopes.FunctionScope):
        raise PhylanxCompileError("return outside of a function", call.loc, "return")
    scope.has_return = True
    value = compiler.compile(call.args[0], scope) if call.args else None
    node = compiler.new_node("return", call.loc, (value,) if value else ())

    loc = call.loc

    def run(frame):
        raise ReturnSignal(value.choice.call(frame) if value is not None else None, loc)
    return node.set_run(run)


def _items(node, value: Any):
    """What ``for_each`` iterates over.  A tiled array means the whole array, so its
    items are the global rows, NumPy's answer, as ``enumerate(x)`` gives: its dispatcher
    gathers the whole array (the gather fallback, with its performance warning; every
    rank runs the same loop, so every rank gathers) -- never this rank's tile's rows."""
    if type(value) is registered_kind():
        return dispatch_kind(node, iterate, (value,))
    return iterate(value)


@special_form("for_each")
def for_each(compiler, call, scope):
    """Build ``for_each`` (documented in primitives/controls/special_forms.py)."""
    if len(call.args) != 2:
        raise PhylanxCompileError(
            f"for_each takes 2 arguments (function, iterable), got {len(call.args)}",
            call.loc, "for_each")
    fn_ast, it_ast = call.args
    iterable = compiler.compile(it_ast, scope)
    if (isinstance(fn_ast, ast.Call) and fn_ast.func == "lambda" and len(fn_ast.args) == 2
            and isinstance(fn_ast.args[0], ast.Identifier)):
        var = fn_ast.args[0].name
        if isinstance(scope, scopes.GlobalScope):   # (a global loop variable: a define)
            scope.check_define(var, fn_ast.args[0].loc)
        slot = scope.declare(var)
        body = compiler.compile(fn_ast.args[1], scope)
        node = compiler.new_node("for_each", call.loc, (iterable, body), instance=var)
        where = (None if isinstance(scope, scopes.GlobalScope) else 0, slot)
        frame_of = scopes.owner(where, compiler.globals.frame)
        node.variable = (where, frame_of, slot)

        body_entry = body.choice

        def run_inline(frame):
            target = frame_of(frame)
            result = None
            for item in _items(node, iterable.choice.call(frame)):
                if PENDING[0]:
                    check()   # a cancelled branch stops at its next iteration
                target[slot] = item
                try:
                    result = body_entry.call(frame)
                except BreakSignal:
                    break
                except ContinueSignal:
                    continue
            return result
        tree_run = located(node, run_inline)   # iterate() errors
        if scalar_loops.enabled(compiler):
            translated = scalar_loops.build(node, tree_run)
            if translated is not None:
                return node.set_run(translated)
        return node.set_run(tree_run)

    fn = compiler.compile(fn_ast, scope)
    node = compiler.new_node("for_each", call.loc, (fn, iterable))

    def run(frame):
        f = fn.choice.call(frame)
        result = None
        for item in _items(node, iterable.choice.call(frame)):
            if PENDING[0]:
                check()
            try:
                result = call_fn(f, item)
            except BreakSignal:
                break
            except ContinueSignal:
                continue
        return result
    return node.set_run(located(node, run))


@special_form("__arg")
def arg_marker(compiler, call, scope):
    """Build ``__arg`` (documented in primitives/core/special_forms.py)."""
    raise PhylanxCompileError("__arg(name, value) is only valid as an argument of a call",
                              call.loc, "__arg")
