"""Rules' plumbing: an in-order walk of the AST, and the registry's plain (pure,
non-special) primitives."""
from __future__ import annotations

from ...language import ast
from ...primitives import registry


def walk_in_order(expr):
    yield expr
    t = type(expr)
    if t is ast.Call:
        for a in expr.args:
            yield from walk_in_order(a)
    elif t is ast.BinOp:
        yield from walk_in_order(expr.left)
        yield from walk_in_order(expr.right)
    elif t is ast.UnaryOp:
        yield from walk_in_order(expr.operand)
    elif t is ast.KeywordArg:
        yield from walk_in_order(expr.value)
    elif t is ast.QuotedList:
        for a in expr.items:
            yield from walk_in_order(a)


def plain_spec(name: str):
    spec = registry.lookup(name)
    if spec is None or spec.special or spec.lazy or spec.side_effects or spec.higher_order:
        return None
    return spec
