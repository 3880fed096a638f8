"""Scans of the PhySL AST the lowering needs: which names a statement binds or reads,
which names of a function are bound again (late binding), a body as statements.

Blocks open no scope in PhySL (``compiler/scopes.py``), nested functions and lambdas
do: every scan stops at them.
"""
from __future__ import annotations

from collections import Counter

from ..language import ast


def rebound(body) -> frozenset:
    """Names a function body binds more than once, or inside a loop, or by ``store``
    (of a variable or of an element of it): the names whose value may change after a
    nested function is defined."""
    counts: Counter = Counter()

    def visit(x, weight: int) -> None:
        if type(x) is not ast.Call:
            for c in ast.children(x):
                visit(c, weight)
            return
        f, args = x.func, x.args
        if f == "lambda":
            return                      # a nested function: its names are its own
        if f in ("define", "define_global") and args and type(args[0]) is ast.Identifier:
            counts[args[0].name] += weight
            if len(args) > 2:
                return
        elif f == "store" and args:
            target = args[0].args[0] if type(args[0]) is ast.Call and args[0].args \
                else args[0]
            if type(target) is ast.Identifier:
                counts[target.name] += 2
        elif f == "for_each" and len(args) == 2 and type(args[0]) is ast.Call \
                and args[0].func == "lambda" and args[0].args:
            if type(args[0].args[0]) is ast.Identifier:
                counts[args[0].args[0].name] += 2
            for c in args[0].args[1:]:
                visit(c, 2)
            visit(args[1], weight)
            return
        for c in args:
            visit(c, 2 if f == "while" else weight)

    for stmt in (body if type(body) is tuple else (body,)):
        visit(stmt, 1)
    return frozenset(n for n, k in counts.items() if k > 1)


def assigned(e) -> set[str]:
    """Names ``e`` binds in its own function (not inside nested lambdas/definitions)."""
    out: set[str] = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if type(x) is ast.Call:
            if x.func in ("define", "define_global") and x.args \
                    and type(x.args[0]) is ast.Identifier:
                out.add(x.args[0].name)
                if len(x.args) > 2:
                    continue              # a function: its body is another scope
            elif x.func == "lambda":
                continue
            elif x.func == "store" and x.args:
                target = x.args[0]
                if type(target) is ast.Call and target.args:
                    target = target.args[0]
                if type(target) is ast.Identifier:
                    out.add(target.name)
            elif x.func == "for_each" and x.args and type(x.args[0]) is ast.Call \
                    and x.args[0].func == "lambda" and x.args[0].args \
                    and type(x.args[0].args[0]) is ast.Identifier:
                out.add(x.args[0].args[0].name)
                stack.extend(x.args[0].args[1:])
                stack.extend(x.args[1:])
                continue
            stack.extend(x.args)
        elif type(x) in (ast.BinOp, ast.UnaryOp, ast.QuotedList, ast.KeywordArg):
            stack.extend(ast.children(x))
    return out


def read_names(e) -> set[str]:
    """Every identifier and called name in ``e`` (a superset of what it reads)."""
    out: set[str] = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if type(x) is ast.Identifier:
            out.add(x.name)
        elif type(x) is ast.Call:
            out.add(x.func)
        stack.extend(ast.children(x))
    return out


def statements(e) -> tuple:
    """A body as statements: a ``block`` is its statements (blocks open no scope)."""
    if type(e) is ast.Call and e.func == "block" and e.attribute is None \
            and not any(type(a) is ast.KeywordArg for a in e.args):
        return tuple(s for a in e.args for s in statements(a))
    return (e,)
