"""Inlining of small non-recursive helper functions: a call becomes the helper's body.

A call ``h(a1, ..., an)`` of a helper ``h(p1, ..., pn) = body`` is replaced by the body
with fresh names (beta-reduction): each parameter is bound to its argument first, in
order, then the body runs in the caller's frame::

    define(pred, sigmoid(matmul(x, w)))          # sigmoid(z) = 1.0 / (1.0 + exp(-z))
    define(pred, 1.0 / (1.0 + exp(-matmul(x, w))))

so the later passes and the compiled loop (``fusion/loop_plan.py``) see one expression
however the user split it into functions.  The law is beta-reduction of a call with
fresh names; it keeps Python's semantics because

* the arguments are evaluated once, in order, before the body (``block(define(__inl1,
  a1), ..., body)``); an argument is written into the body directly only when that
  cannot be told apart: a variable read or a literal (the body stores no variable the
  caller can see), or a pure argument used exactly once, in parameter order, before
  the body applies any primitive and outside any condition;
* the body's locals and stored parameters get fresh names; every name it reads freely
  must not be bound twice in the caller, nor be a loop or lambda parameter there (so no
  binding at the call site can shadow the one the helper sees);
* only helpers whose bodies call primitives alone are inlined (a leaf: no recursion is
  possible), with at most :data:`MAX_SIZE` nodes, positional parameters, and none of
  ``return``/``lambda``/loops (those keep their call); defaults are never needed, a
  call must pass every parameter; the definition itself stays where it was (defaults
  are still evaluated there).

Helpers are a nested ``def`` (``define(g, nil)`` then one ``store(g, lambda(...))`` in
the function's own block, before the call) and functions defined at the top of the
program; the frontend also passes the decorated helpers a function calls
(``frontend/decorator.py``, :func:`linked`).  Rebuilt nodes keep the helper's source
locations, so an error inside an inlined body still names the helper's line.

This stays a pass beside the rule engine's phases (``engine.Pass``), not a rule: a rule
rewrites one term from what the term and the program's facts show, while inlining a call
needs the callee's definition from elsewhere in the program (or from another decorated
function, :func:`linked`), a call graph to refuse recursion, and names fresh across the
helper and its caller; as a term rewrite it would be a rule whose pattern is the whole
program.
"""
from __future__ import annotations

import contextlib
import contextvars
import dataclasses

from ...language import ast
from .tree import ExprFacts, Names, children, facts, rebuild, walk

#: nodes in a helper's body beyond which it keeps its call
MAX_SIZE = 60
#: rounds: a helper calling a helper is a leaf after the first round
ROUNDS = 3
PREFIX = "__inl"

#: forms a helper's body may not hold (jumps, closures, loops: the call stays)
_REFUSED = frozenset(("return", "lambda", "for_each", "while", "for", "break", "continue",
                      "define_global", "parallel_block", "parallel_map", "async", "fmap",
                      "__pymap", "apply", "yield"))
#: forms whose operands are evaluated conditionally: a use under them is not substituted
_CONTROL = frozenset(("if", "block", "case", "switch", "__and", "__or"))

#: forms whose bodies run concurrently or in another frame: not entered
_OPAQUE = frozenset(("parallel_block", "async", "parallel_map", "fmap", "__pymap", "apply"))

_LINKED: contextvars.ContextVar[dict | None] = contextvars.ContextVar(
    "phylanx_inline_linked", default=None)


@contextlib.contextmanager
def linked(definitions: dict):
    """Within this block, :func:`run` may inline the helpers ``definitions`` (global name
    -> its ``define(name, params..., body)``), compiled elsewhere in the same state."""
    token = _LINKED.set(dict(definitions))
    try:
        yield
    finally:
        _LINKED.reset(token)


class _Helper:
    """A helper the pass may inline: parameters, body, names it reads freely."""

    def __init__(self, params: tuple, body, free: frozenset, stores_free: bool):
        self.params, self.body, self.free, self.stores_free = params, body, free, stores_free


def _helper(params: tuple, body) -> _Helper | None:
    """The helper of a function ``params -> body``, None if it is not one to inline.

    A keyword argument of a call in the body (``sum(c, __arg(axis, 1))``) is inlined like
    any operand: its name is the callee's parameter, never renamed (``tree.children``
    gives only its value); defaults of the helper's own parameters are refused above."""
    if not params or any(type(p) is not ast.Identifier for p in params):
        return None
    from ...primitives import registry
    names = {p.name for p in params}
    bound, read, stored, size = set(names), set(), set(), 0
    for n in walk(body):
        size += 1
        t = type(n)
        if t is ast.Identifier:
            read.add(n.name)
        elif t is ast.Call:
            f = n.func
            if f in _REFUSED or n.attribute is not None:
                return None
            if f in ("define", "store"):
                if len(n.args) != 2 or type(n.args[0]) is not ast.Identifier:
                    return None
                (bound if f == "define" else stored).add(n.args[0].name)
            elif registry.lookup(f) is None:
                return None                        # calls a function: not a leaf
    if size > MAX_SIZE:
        return None
    free = frozenset((read | stored) - bound)
    return _Helper(tuple(p.name for p in params), body, free, bool(stored - bound))


def _function_parts(e) -> tuple | None:
    """(name, params, body) of ``define(name, params..., body)``, else None."""
    if type(e) is ast.Call and e.func == "define" and len(e.args) >= 3 \
            and type(e.args[0]) is ast.Identifier:
        return e.args[0].name, e.args[1:-1], e.args[-1]
    return None


def run(program: ast.Program) -> ast.Program:
    for _ in range(ROUNDS):
        changed = _round(program)
        if changed is program:
            break
        program = changed
    return program


def _round(program: ast.Program) -> ast.Program:
    helpers: dict[str, _Helper] = {}
    for name, definition in (_LINKED.get() or {}).items():
        parts = _function_parts(definition)
        made = parts and _helper(parts[1], parts[2])
        if made:
            helpers[name] = made
    for e in program.body:
        parts = _function_parts(e)
        made = parts and _helper(parts[1], parts[2])
        if made:
            helpers[parts[0]] = made
    names = Names(program, PREFIX)
    for h in helpers.values():
        names.used.update(n.name for n in walk(h.body) if type(n) is ast.Identifier)
    purity = ExprFacts(facts(program).defined)
    body = []
    for e in program.body:
        parts = _function_parts(e)
        if parts is None:
            body.append(e)
            continue
        visible = {k: h for k, h in helpers.items() if k != parts[0]}
        fn = _Function(parts[1], parts[2], visible, names, purity)
        body.append(rebuild(e, (*e.args[:-1], fn.visit_body(parts[2]))))
    if all(a is b for a, b in zip(body, program.body)):
        return program
    return dataclasses.replace(program, body=tuple(body))


class _Function:
    """Inlining within one function: which helpers its calls may take."""

    def __init__(self, params: tuple, body, helpers: dict, names: Names, purity: ExprFacts):
        self.names, self.purity = names, purity
        self.bindings: dict[str, int] = {}      # name -> definitions in the function
        self.loop_params: set[str] = set()      # names bound by a lambda (loop) parameter
        self.stores: dict[str, int] = {}
        for p in params:
            if type(p) is ast.Identifier:
                self.bindings[p.name] = self.bindings.get(p.name, 0) + 1
        for n in walk(body):
            if type(n) is ast.Call and n.args:
                if n.func == "define" and type(n.args[0]) is ast.Identifier:
                    self.bindings[n.args[0].name] = self.bindings.get(n.args[0].name, 0) + 1
                elif n.func == "lambda":
                    for p in n.args[:-1]:
                        if type(p) is ast.Identifier:
                            self.loop_params.add(p.name)
                            self.bindings[p.name] = self.bindings.get(p.name, 0) + 1
                elif n.func == "store" and type(n.args[0]) is ast.Identifier:
                    self.stores[n.args[0].name] = self.stores.get(n.args[0].name, 0) + 1
        # functions defined at the top: the free names they read must not be bound here
        self.helpers = {k: h for k, h in helpers.items()
                        if k not in self.bindings and not (h.free & self.bindings.keys())}
        # the let-blocks built here, by id: the dict holds each one, so that no other node
        # can be allocated at a spliced let's address and be taken for a let (an ``if``
        # among a block's statements flattened into its test and branches)
        self.spliced: dict[int, ast.Call] = {}

    def visit_body(self, body):
        if type(body) is ast.Call and body.func == "block":
            return self.block(body, top=True)
        return self.visit(body)

    def block(self, e, top: bool = False):
        """A block's statements, nested ``def`` helpers taken in order, let-blocks of an
        inlined call spliced into the statement list (a block shares its frame)."""
        out = []
        added: list[str] = []
        for stmt in e.args:
            new = self.visit(stmt)
            out.extend(self.splice(new))
            if top:
                nested = self.nested_helper(new)
                if nested is not None:
                    self.helpers[nested[0]] = nested[1]
                    added.append(nested[0])
        for name in added:
            del self.helpers[name]
        return rebuild(e, tuple(out))

    def nested_helper(self, stmt) -> tuple | None:
        """(name, helper) of ``store(g, lambda(...))`` for a ``g`` defined once and stored
        once, whose free names are not rebound in the function, else None."""
        if not (type(stmt) is ast.Call and stmt.func in ("store", "define")
                and len(stmt.args) == 2 and type(stmt.args[0]) is ast.Identifier):
            return None
        fn = stmt.args[1]
        if type(fn) is not ast.Call or fn.func != "lambda":
            return None
        name = stmt.args[0].name
        if self.bindings.get(name) != 1 or self.stores.get(name, 0) != (
                1 if stmt.func == "store" else 0):
            return None
        made = _helper(fn.args[:-1], fn.args[-1])
        if made is None or any(self.bindings.get(n, 0) > 1 or n in self.loop_params
                               for n in made.free):
            return None
        return name, made

    def is_let(self, e) -> bool:
        """``e`` is a let-block this pass built (the very object, not one at its address)."""
        return self.spliced.get(id(e)) is e

    def splice(self, stmt) -> list:
        """``define(v, let)``/``store(v, let)``/``let`` as a statement: the let-block's
        statements in line, then the binding of its value."""
        if self.is_let(stmt):
            return [*stmt.args]
        if type(stmt) is ast.Call and stmt.func in ("define", "store") \
                and len(stmt.args) == 2 and self.is_let(stmt.args[1]):
            let = stmt.args[1]
            return [*let.args[:-1], rebuild(stmt, (stmt.args[0], let.args[-1]))]
        return [stmt]

    def visit(self, e):
        t = type(e)
        if t is ast.Call and e.func == "block":
            return self.block(e)
        if t is ast.Call and e.func in _OPAQUE:
            return e        # run concurrently or in another frame: calls stay calls
        parts = children(e)
        if not parts:
            return e
        e = rebuild(e, tuple(self.visit(c) for c in parts))
        if t is ast.Call and e.func in self.helpers:
            return self.inline(e, self.helpers[e.func])
        return e

    def inline(self, call, h: _Helper):
        args = call.args
        if len(args) != len(h.params) or any(type(a) is ast.KeywordArg for a in args):
            return call
        stored_params = {n.args[0].name for n in walk(h.body)
                         if type(n) is ast.Call and n.func in ("define", "store")}
        direct = _substitutable(h, args, stored_params, self.purity)
        renames, lets = {}, []
        for p, a in zip(h.params, args):
            if p in direct:
                renames[p] = a
            else:
                fresh = self.names.fresh()
                renames[p] = ast.Identifier(fresh, a.loc)
                lets.append(ast.Call("define", (ast.Identifier(fresh, a.loc), a), loc=a.loc))
        for n in walk(h.body):
            if type(n) is ast.Call and n.func == "define" and n.args[0].name not in renames:
                renames[n.args[0].name] = ast.Identifier(self.names.fresh(), n.args[0].loc)
        body = _rename(h.body, renames)
        statements = list(body.args) if type(body) is ast.Call and body.func == "block" \
            else [body]
        if not lets and len(statements) == 1:
            return statements[0]
        let = ast.Call("block", (*lets, *statements), loc=call.loc)
        self.spliced[id(let)] = let
        return let


def _substitutable(h: _Helper, args: tuple, stored: set, purity: ExprFacts) -> set:
    """Parameters whose argument may be written into the body in place of a binding."""
    trivial = {p for p, a in zip(h.params, args)
               if type(a) in (ast.Identifier, ast.Literal) and p not in stored
               and not h.stores_free}
    rest = [p for p in h.params if p not in trivial]
    if not rest or stored & set(rest):
        return trivial
    if any(not purity(a)[1] for p, a in zip(h.params, args) if p in rest):
        return trivial
    # the order the body evaluates its leaves and applies its primitives in
    events: list = []
    if not _events(h.body, set(h.params), events, conditional=False):
        return trivial
    uses = [x for x in events if x != "op"]
    if [x for x in uses if x in rest] != rest:
        return trivial                         # used once each, in parameter order
    last = max(i for i, x in enumerate(events) if x in rest)
    if "op" in events[:last]:
        return trivial                         # a primitive would run before an argument
    return trivial | set(rest)


def _events(e, params: set, out: list, conditional: bool) -> bool:
    """Append ``e``'s evaluation events (a parameter read, ``"op"``) in order; False if a
    parameter is read under a condition or the body binds anything."""
    t = type(e)
    if t is ast.Identifier:
        if e.name in params:
            if conditional:
                return False
            out.append(e.name)
        return True
    if t is ast.Call and e.func in ("define", "store"):
        return False
    control = conditional or (t is ast.Call and e.func in _CONTROL) or (
        t is ast.BinOp and e.op in ("&&", "||"))
    for c in children(e):
        if not _events(c, params, out, control):
            return False
    if t in (ast.Call, ast.BinOp, ast.UnaryOp):
        out.append("op")
    return True


def _rename(e, renames: dict):
    """``e`` with its identifiers renamed (a parameter may become an argument)."""
    t = type(e)
    if t is ast.Identifier:
        new = renames.get(e.name)
        return e if new is None else new
    parts = children(e)
    if not parts:
        return e
    return rebuild(e, tuple(_rename(c, renames) for c in parts))
