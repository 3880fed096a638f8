"""Python scoping facts for the translator: locals, globals, predeclarations, returns.

``scope_names`` finds what a ``def``/``lambda`` assigns (its locals), declares
``global`` or ``nonlocal``; ``needs_predeclare`` the locals that are read
before their first assignment or by nested functions (they are defined as nil
at the start, so every reference compiles); ``always_returns`` whether a
statement list ends in a return on every path.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..language import ast as past

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.DictComp,
           ast.SetComp, ast.GeneratorExp)

@dataclass
class Translation:
    """The result of translating one function."""

    program: past.Program
    state_name: str
    deps: list = field(default_factory=list)            # decorators compiled before this one
    externals: dict = field(default_factory=dict)       # PhySL name -> (getter, setter | None)
    params: list = field(default_factory=list)
    bound: dict = field(default_factory=dict)           # the resolver's names -> objects


class Scope:
    def __init__(self, kind: str, parent: Scope | None, params=(), locals_=(),
                 globals_=(), nonlocals=()):
        self.kind = kind                   # "function" or "lambda"
        self.parent = parent
        self.locals = set(locals_) | set(params)
        self.declared = set(params)
        self.globals = set(globals_)
        self.nonlocals = set(nonlocals)
        self.accumulators: set[str] = set()   # see scalar_accumulators


def scope_names(fn) -> tuple[set, set, set, list]:
    """(locals, globals, nonlocals, params) of a def or lambda, as Python sees them."""
    a = fn.args
    params = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    stored, globals_, nonlocals = set(), set(), set()
    body = fn.body if isinstance(fn.body, list) else [fn.body]
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Global):
            globals_.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            nonlocals.update(node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stored.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            stored.add(node.name)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stored.add(node.name)
            stack.extend(node.args.defaults + [d for d in node.args.kw_defaults if d])
            continue
        if isinstance(node, _NESTED) and node not in body:
            if isinstance(node, (ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp)):
                stack.append(node.generators[0].iter)   # evaluated in the enclosing scope
            continue
        stack.extend(ast.iter_child_nodes(node))
    locals_ = (stored | set(params)) - globals_ - nonlocals
    return locals_, globals_, nonlocals, params


def needs_predeclare(fn, locals_: set, params) -> list[str]:
    """Locals read before their first assignment, or read by nested functions."""
    first: dict[str, tuple] = {}
    nested_reads: set[str] = set()

    def visit(node, nested):
        for child in ast.iter_child_nodes(node):
            inner = nested or isinstance(child, _NESTED)
            if isinstance(child, ast.Name) and child.id in locals_:
                if inner and isinstance(child.ctx, ast.Load):
                    nested_reads.add(child.id)
                elif not inner:
                    pos = (child.lineno, child.col_offset)
                    load = isinstance(child.ctx, ast.Load)
                    if child.id not in first or pos < first[child.id][0]:
                        first[child.id] = (pos, load)
            visit(child, inner)
    for stmt in (fn.body if isinstance(fn.body, list) else [fn.body]):
        visit(stmt, False)
    out = {n for n, (_, load) in first.items() if load} | nested_reads
    return sorted(out - set(params))


def always_returns(stmts) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return always_returns(last.body) and always_returns(last.orelse)
    return False




def own_nodes(fn):
    stack = list(fn.body) if isinstance(fn.body, list) else [fn.body]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _NESTED):
            stack.extend(ast.iter_child_nodes(node))


#: calls that never keep a reference to their arguments
_NON_ALIASING_CALLS = frozenset({"print", "len", "range", "float", "int", "bool", "str", "abs",
                                 "round"})


def scalar_accumulators(fn) -> set[str]:
    """Locals that ``x += v`` may rebind instead of changing in place: first bound to a
    number literal, only ever updated by augmented assignment and read where no second
    reference to their value can be made (operands, tests, indices, return, print).

    For any other name ``x += v`` goes through ``__inplace`` so an array shared with
    another name changes in place, as in Python; these counters skip that cost.
    """
    parents: dict = {}
    nodes = list(own_nodes(fn))
    for node in nodes:
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    candidates, rejected = set(), set()
    a = fn.args
    rejected.update(x.arg for x in a.posonlyargs + a.args + a.kwonlyargs)
    for node in nodes:
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            rejected.update(node.names)
        elif isinstance(node, _NESTED):
            rejected.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Name):
            parent = parents.get(node)
            if isinstance(node.ctx, ast.Store):
                if isinstance(parent, ast.Assign) and parent.targets == [node] and \
                        _is_number(parent.value):
                    candidates.add(node.id)
                elif not (isinstance(parent, ast.AugAssign) and parent.target is node):
                    rejected.add(node.id)
            elif not _harmless_read(node, parent, parents):
                rejected.add(node.id)
    return candidates - rejected


def _is_number(node) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and \
        not isinstance(node.value, bool)


def _harmless_read(node, parent, parents) -> bool:
    if isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.FormattedValue,
                           ast.Assert, ast.AugAssign)):
        return True
    if isinstance(parent, (ast.If, ast.While, ast.IfExp)):
        return parent.test is node
    if isinstance(parent, ast.Subscript):
        return parent.slice is node
    if isinstance(parent, ast.Tuple):
        outer = parents.get(parent)
        return isinstance(outer, ast.Return) or isinstance(outer, ast.Subscript) and \
            outer.slice is parent
    if isinstance(parent, ast.Return):
        return True
    if isinstance(parent, ast.Call):
        return isinstance(parent.func, ast.Name) and parent.func.id in _NON_ALIASING_CALLS \
            and node in parent.args
    return False
