"""AST plumbing shared by the rewrite passes: children, rebuilding, names, purity.

The AST is frozen dataclasses, so a pass rebuilds the path to what it changes and
returns the very same objects where nothing changed (``optimize`` relies on identity to
tell a pass did nothing).  Rebuilt nodes keep the location of the node they replace.
"""
from __future__ import annotations

import dataclasses
import itertools

from ...language import ast
from ..dependencies import summarize_expr


def children(e) -> tuple:
    t = type(e)
    if t is ast.Call:
        return e.args
    if t is ast.BinOp:
        return (e.left, e.right)
    if t is ast.UnaryOp:
        return (e.operand,)
    if t is ast.KeywordArg:
        return (e.value,)
    if t is ast.QuotedList:
        return e.items
    return ()


def rebuild(e, new: tuple):
    """``e`` with children ``new`` (``e`` itself when they are the same objects)."""
    old = children(e)
    if len(old) == len(new) and all(a is b for a, b in zip(old, new)):
        return e
    t = type(e)
    if t is ast.Call:
        return dataclasses.replace(e, args=tuple(new))
    if t is ast.BinOp:
        return dataclasses.replace(e, left=new[0], right=new[1])
    if t is ast.UnaryOp:
        return dataclasses.replace(e, operand=new[0])
    if t is ast.KeywordArg:
        return dataclasses.replace(e, value=new[0])
    if t is ast.QuotedList:
        return dataclasses.replace(e, items=tuple(new))
    return e


def walk(e):
    """``e`` and everything below it (function bodies included)."""
    stack = [e]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(children(n))


def defined_names(program: ast.Program) -> frozenset:
    """Every name the program binds: variables, functions, parameters, loop variables."""
    names = set()
    for body in program.body:
        for n in walk(body):
            if type(n) is ast.Call and n.func in ("define", "define_global", "lambda"):
                for a in n.args[:-1] if n.func == "lambda" else n.args[:-1] or n.args:
                    if type(a) is ast.Identifier:
                        names.add(a.name)
                    elif type(a) is ast.KeywordArg:
                        names.add(a.name)
    return frozenset(names)


class Names:
    """Fresh variable names no part of the program uses (``__licm1``, ``__cse2`` ...)."""

    def __init__(self, program: ast.Program, prefix: str):
        used = set()
        for body in program.body:
            for n in walk(body):
                if type(n) is ast.Identifier:
                    used.add(n.name)
                elif type(n) is ast.Call:
                    used.add(n.func)
        self.used = used
        self.prefix = prefix
        self.counter = itertools.count(1)

    def fresh(self) -> str:
        while True:
            name = f"{self.prefix}{next(self.counter)}"
            if name not in self.used:
                self.used.add(name)
                return name


def is_pure(e, user_names: frozenset) -> tuple[set, bool]:
    """(variables read, True) if evaluating ``e`` assigns nothing and is pure."""
    reads, writes, impure = summarize_expr(e, user_names)
    return reads, not writes and not impure


def size(e) -> int:
    """Primitive applications in ``e`` (what evaluating it costs in nodes, roughly)."""
    return sum(1 for n in walk(e) if type(n) in (ast.Call, ast.BinOp, ast.UnaryOp))


#: side-effect primitives that change no array or list they are given
_NON_MUTATING = frozenset(("cout", "random", "randn", "random_integers", "random_sample",
                           "random_d", "set_seed"))


def may_mutate(program: ast.Program, user_names: frozenset) -> bool:
    """True if some code may change an array or list in place (a store into a slice,
    an in-place primitive, a call of a function defined elsewhere): then two
    evaluations of one expression must stay two objects, and CSE/hoisting keep off."""
    from ...primitives import registry
    for body in program.body:
        for n in walk(body):
            if type(n) is not ast.Call:
                continue
            if n.func == "store" and n.args and type(n.args[0]) is not ast.Identifier:
                return True
            spec = registry.lookup(n.func)
            if n.func in user_names or spec is None:
                if n.func not in user_names:
                    return True          # a function of another program: unknown code
                continue
            if spec.side_effects and n.func not in _NON_MUTATING:
                return True
    return False


def key(e):
    """A structural key of ``e``: equal for expressions that compute the same thing
    (locations ignored, literal types kept: ``1`` and ``1.0`` differ)."""
    t = type(e)
    if t is ast.Literal:
        return ("L", type(e.value).__name__, repr(e.value))
    if t is ast.ArrayLiteral:
        return ("A", e.kind, e.ndim, repr(e.value))
    if t is ast.Identifier:
        return ("I", e.name)
    if t is ast.Call:
        return ("C", e.func, e.attribute, tuple(key(a) for a in e.args))
    if t is ast.BinOp:
        return ("B", e.op, key(e.left), key(e.right))
    if t is ast.UnaryOp:
        return ("U", e.op, key(e.operand))
    if t is ast.KeywordArg:
        return ("K", e.name, key(e.value))
    if t is ast.QuotedList:
        return ("Q", tuple(key(i) for i in e.items))
    return ("?", id(e))
