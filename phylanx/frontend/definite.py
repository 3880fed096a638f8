"""Definite assignment: the reads of a local that may run before the local is assigned.

Python raises ``UnboundLocalError`` at such a read; PhySL frame slots start as
nil, so the translated read would silently give None.  :func:`unbound_reads`
walks the Python AST of one ``def`` along its control flow (if/elif/else,
for/while with their ``else`` and zero iterations, break/continue, return and
raise, with, try) keeping the set of locals assigned on *every* path, and
returns the reads of locals outside that set.  Only those reads are checked at
run time (``__bound``), and only their locals start as ``__unbound()``; every
other read stays a plain variable read, so the common case costs nothing.

Nested scopes: a comprehension runs where it stands, a nested ``def`` or
``lambda`` when it is called; a read there of an enclosing local is flagged when
the local is not definitely assigned where the comprehension or function is
*created* (it may still be assigned before a call, so the check happens at run
time and raises only if it is really unset).  Each nested ``def`` is analysed on
its own for its own locals.  ``global``/``nonlocal`` names are not locals.
"""
from __future__ import annotations

import ast

from .scopes import scope_names

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def key(node: ast.AST) -> tuple:
    """Identifies a read by position and name: ``x += 1`` reads ``x`` through a copy of
    the target node made by the translator, which keeps the position."""
    return node.lineno, node.col_offset, node.id


class Unbound:
    """Result for one function: the flagged reads and the locals they read."""

    def __init__(self):
        self.reads: dict[tuple, bool] = {}   # key -> read from a nested scope (free)
        self.names: set[str] = set()


def unbound_reads(fn) -> Unbound:
    """The reads in ``fn`` (a def; a lambda has only parameters) of ``fn``'s own locals
    that are not definitely assigned where they run."""
    out = Unbound()
    if isinstance(fn, ast.Lambda):
        return out
    locals_, _, _, params = scope_names(fn)
    flow = _Flow(locals_, out)
    flow.block(fn.body, frozenset(params))
    return out


def _meet(*states):
    """Assigned on every path reaching here (None: no path does, the code is unreachable)."""
    live = [s for s in states if s is not None]
    if not live:
        return None
    first = live[0]
    return first.intersection(*live[1:]) if len(live) > 1 else first


def _add(state, names):
    return None if state is None else state | names


class _Loop:
    def __init__(self):
        self.breaks: list = []
        self.continues: list = []


class _Flow:
    def __init__(self, locals_: set, out: Unbound):
        self.locals = locals_
        self.out = out
        self.loops: list[_Loop] = []

    def read(self, node: ast.Name, state, free: bool = False):
        # unreachable code (state None) never runs, so it never raises
        if state is not None and node.id in self.locals and node.id not in state:
            self.out.reads[key(node)] = free
            self.out.names.add(node.id)

    # -- statements -----------------------------------------------------------
    def block(self, stmts, state):
        for s in stmts:
            state = self.stmt(s, state)
        return state

    def stmt(self, node, state):
        method = getattr(self, "s_" + type(node).__name__, None)
        if method is not None:
            return method(node, state)
        # a statement this analysis does not know: every read in it is checked and
        # nothing counts as assigned, which is safe (checks are exact at run time)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self.stmt(child, state)
            else:
                self.expr(child, state)
        return state

    def s_Expr(self, node, state):
        self.expr(node.value, state)
        return state

    def s_Assert(self, node, state):
        self.expr(node.test, state)
        self.expr(node.msg, state)
        return state

    def s_Pass(self, node, state):
        return state

    s_Global = s_Nonlocal = s_Pass

    def s_Assign(self, node, state):
        self.expr(node.value, state)
        for t in node.targets:
            state = self.target(t, state)
        return state

    def s_AnnAssign(self, node, state):
        if node.value is None:
            return state          # ``x: int`` alone binds nothing
        self.expr(node.value, state)
        return self.target(node.target, state)

    def s_AugAssign(self, node, state):
        if isinstance(node.target, ast.Name):
            self.read(node.target, state)   # ``x += v`` reads x first
        else:
            self.expr(node.target, state)
        self.expr(node.value, state)
        return self.target(node.target, state)

    def s_Delete(self, node, state):
        for t in node.targets:
            if isinstance(t, ast.Name):
                self.read(t, state)            # ``del x`` of an unset x raises too
                state = None if state is None else state - {t.id}
            else:
                self.expr(t, state)
        return state

    def s_Return(self, node, state):
        self.expr(node.value, state)
        return None

    def s_Raise(self, node, state):
        self.expr(node.exc, state)
        self.expr(node.cause, state)
        return None

    def s_Break(self, node, state):
        if self.loops:
            self.loops[-1].breaks.append(state)
        return None

    def s_Continue(self, node, state):
        if self.loops:
            self.loops[-1].continues.append(state)
        return None

    def s_FunctionDef(self, node, state):
        for e in node.decorator_list + node.args.defaults + node.args.kw_defaults:
            self.expr(e, state)
        # the body runs after the def bound the name, so its own name is no problem
        self.nested(node, state, exclude=node.name)
        return _add(state, {node.name})

    s_AsyncFunctionDef = s_FunctionDef

    def s_If(self, node, state):
        self.expr(node.test, state)
        return _meet(self.block(node.body, state), self.block(node.orelse, state))

    def s_While(self, node, state):
        forever = isinstance(node.test, ast.Constant) and bool(node.test.value)
        return self.loop(node, state, lambda head: (self.expr(node.test, head), head)[1],
                         forever)

    def s_For(self, node, state):
        self.expr(node.iter, state)
        return self.loop(node, state, lambda head: self.target(node.target, head), False)

    s_AsyncFor = s_For

    def loop(self, node, state, enter, forever: bool):
        """Iterate to the fixpoint of the loop head (assigned before the loop and at the end
        of every iteration); reads flagged on the way stay flagged, as the head only shrinks."""
        head = state
        while True:
            ctx = _Loop()
            self.loops.append(ctx)
            try:
                end = self.block(node.body, enter(head))
            finally:
                self.loops.pop()
            new = _meet(state, end, *ctx.continues)
            if new == head:
                break
            head = new
        # normal exit (the test is false, possibly before any iteration) runs ``else``
        after_else = self.block(node.orelse, None if forever else head)
        return _meet(after_else, *ctx.breaks)

    def s_With(self, node, state):
        for item in node.items:
            self.expr(item.context_expr, state)
            if item.optional_vars is not None:
                state = self.target(item.optional_vars, state)
        return self.block(node.body, state)

    s_AsyncWith = s_With

    def s_Try(self, node, state):
        # an exception may leave the body anywhere: handlers start from the entry state
        body = self.block(node.body, state)
        ends = [self.block(h.body, _add(state, {h.name} if h.name else set()))
                for h in node.handlers]
        normal = _meet(self.block(node.orelse, body), *ends)
        final = self.block(node.finalbody, state)
        if final is None or normal is None:
            return None if final is None else normal
        return normal | final

    s_TryStar = s_Try

    def s_Import(self, node, state):
        return _add(state, {(a.asname or a.name).split(".")[0] for a in node.names})

    s_ImportFrom = s_Import

    # -- assignment targets ---------------------------------------------------
    def target(self, t, state):
        if isinstance(t, ast.Name):
            return _add(state, {t.id})
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                state = self.target(e, state)
            return state
        if isinstance(t, ast.Starred):
            return self.target(t.value, state)
        self.expr(t, state)       # a subscript or attribute target reads its base
        return state

    # -- expressions ----------------------------------------------------------
    def expr(self, node, state):
        if node is None:
            return
        stack = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, ast.Name):
                if isinstance(n.ctx, ast.Load):
                    self.read(n, state)
            elif isinstance(n, ast.Lambda):
                stack.extend(n.args.defaults + [d for d in n.args.kw_defaults if d])
                self.nested(n, state)
            elif isinstance(n, _COMPS):
                stack.append(n.generators[0].iter)   # evaluated in this scope, first
                self.nested(n, state)
            else:
                stack.extend(ast.iter_child_nodes(n))

    def nested(self, scope, state, exclude: str | None = None):
        for name in _free_reads(scope):
            if name.id != exclude:
                self.read(name, state, free=True)


def _own_names(scope) -> set:
    if isinstance(scope, _FUNCS):
        locals_, globals_, _, _ = scope_names(scope)
        return locals_ | globals_
    return {n.id for g in scope.generators for n in ast.walk(g.target)
            if isinstance(n, ast.Name)}


def _inner_parts(scope) -> list:
    """The parts of a nested scope evaluated inside it."""
    if isinstance(scope, ast.Lambda):
        return [scope.body]
    if isinstance(scope, _FUNCS):
        return list(scope.body)
    first, *rest = scope.generators
    elts = [scope.key, scope.value] if isinstance(scope, ast.DictComp) else [scope.elt]
    return elts + [first.target, *first.ifs, *rest]


def _outer_parts(scope) -> list:
    """The parts of a nested scope evaluated where it is created."""
    if isinstance(scope, _FUNCS):
        a = scope.args
        return [*getattr(scope, "decorator_list", []), *a.defaults,
                *[d for d in a.kw_defaults if d]]
    return [scope.generators[0].iter]


def _free_reads(scope) -> list:
    """Name reads inside ``scope`` (and scopes nested in it) of names it does not own."""
    own = _own_names(scope)
    out = []
    stack = _inner_parts(scope)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Load) and n.id not in own:
                out.append(n)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            if n.target.id not in own:       # ``nonlocal x; x += 1`` reads x first
                out.append(n.target)
            stack.append(n.value)
        elif isinstance(n, _FUNCS + _COMPS):
            stack.extend(_outer_parts(n))
            out.extend(r for r in _free_reads(n) if r.id not in own)
        else:
            stack.extend(ast.iter_child_nodes(n))
    return out
