"""Rules' plumbing over the AST: an in-order walk, name counts, purity by the registry
flags, and substitution of variables by the expressions they name."""
from __future__ import annotations

from collections import Counter

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


def name_uses(program: ast.Program) -> Counter:
    """How often each name occurs anywhere in ``program`` (reads, defines, stores, params)."""
    uses: Counter = Counter()
    for top in program.body:
        for e in walk_in_order(top):
            if type(e) is ast.Identifier:
                uses[e.name] += 1
            elif type(e) is ast.KeywordArg:
                uses[e.name] += 1
    return uses


def plain_spec(name: str):
    spec = registry.lookup(name)
    if spec is None or spec.special or spec.lazy or spec.side_effects or spec.higher_order:
        return None
    return spec


def pure(expr) -> bool:
    """True if evaluating ``expr`` reads variables and calls side-effect-free primitives only."""
    for e in walk_in_order(expr):
        t = type(e)
        if t is ast.Call and (e.attribute is not None or plain_spec(e.func) is None):
            return False
        if t is ast.BinOp and plain_spec(ast.BINARY_OPS[e.op][1]) is None:
            return False
        if t is ast.UnaryOp and ast.UNARY_OPS[e.op] and plain_spec(ast.UNARY_OPS[e.op]) is None:
            return False
    return True


def inlined(expr, names: set[str], inline: dict):
    """``expr`` with the identifiers in ``names`` replaced by their ``inline`` values."""
    from .tree import children, rebuild
    if type(expr) is ast.Identifier and expr.name in names:
        return inline[expr.name]
    return rebuild(expr, tuple(inlined(c, names, inline) for c in children(expr)))
