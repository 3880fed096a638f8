"""Common-subexpression elimination within one statement of a function body.

``define(y, exp(-x) / (1 + exp(-x)))`` becomes
``block(define(__cse1, exp(-x)), define(y, __cse1 / (1 + __cse1)))``.

A statement qualifies when its value assigns nothing and is pure (registry flags: no
side effects, randomness, communication or call of unknown code): then every variable
keeps its value while it is evaluated, so two equal subexpressions compute equal
values.  "Equal" is structural, with literal types kept (``x * 1`` is not ``x * 1.0``).
A subexpression is shared only if one occurrence is evaluated unconditionally (not
under ``if``, ``&&``/``||``, a loop or a ``lambda``), so computing it first raises no
error the statement would not raise; the statement then evaluates it before its other
parts (an error may come from a different operand than before, never from nowhere).
Nothing is shared in a program that may change arrays in place, nor at the top level
(a new name there would be a global variable).
"""
from __future__ import annotations

import dataclasses

from ...language import ast
from .tree import ExprFacts, Names, children, facts, key, rebuild

#: forms whose operands (after the first, for if) are evaluated conditionally or elsewhere
_CONDITIONAL = frozenset(("if", "while", "for", "for_each", "lambda", "parallel_block",
                          "async", "parallel_map", "fmap", "__pymap", "apply", "case", "define",
                          "define_global", "store", "block"))
_STATEMENT_HOLDERS = ("block",)


def run(program: ast.Program) -> ast.Program:
    known = facts(program)
    if known.mutates or not known.defined:
        return program
    names = Names(program, "__cse")
    purity = ExprFacts(known.defined)
    body = tuple(_visit(e, names, purity, False) for e in program.body)
    if all(a is b for a, b in zip(body, program.body)):
        return program
    return dataclasses.replace(program, body=body)


def _visit(e, names, purity, in_function):
    t = type(e)
    if t not in (ast.Call, ast.BinOp, ast.UnaryOp, ast.KeywordArg, ast.QuotedList):
        return e
    if t is ast.Call and e.args and (e.func == "lambda"
                                     or (e.func == "define" and len(e.args) > 2)):
        # a function: its body (last argument) is a statement of a function
        new = list(e.args)
        new[-1] = _statement(_visit(new[-1], names, purity, True), names, purity)
        return rebuild(e, tuple(new))
    if in_function and t is ast.Call and e.func in _STATEMENT_HOLDERS:
        return rebuild(e, tuple(_statement(_visit(c, names, purity, True), names, purity)
                                for c in e.args))
    if in_function and t is ast.Call and e.func == "for_each" and len(e.args) == 2:
        fn = e.args[0]
        if type(fn) is ast.Call and fn.func == "lambda" and len(fn.args) == 2:
            body = _statement(_visit(fn.args[1], names, purity, True), names, purity)
            it = _visit(e.args[1], names, purity, True)
            return rebuild(e, (rebuild(fn, (fn.args[0], body)), it))
    if in_function and t is ast.Call and e.func == "while" and len(e.args) == 2:
        body = _statement(_visit(e.args[1], names, purity, True), names, purity)
        return rebuild(e, (_visit(e.args[0], names, purity, True), body))
    return rebuild(e, tuple(_visit(c, names, purity, in_function) for c in children(e)))


def _statement(s, names, purity):
    """``s`` with its common subexpressions bound to variables first, or ``s``."""
    target = None
    if (type(s) is ast.Call and s.func in ("define", "store") and len(s.args) == 2
            and type(s.args[0]) is ast.Identifier):
        target, value = s.args[0], s.args[1]
    else:
        value = s
    if type(value) not in (ast.Call, ast.BinOp, ast.UnaryOp):
        return s
    if not purity(value)[1]:
        return s                         # assigns, jumps, or is impure
    bindings: list = []                      # (name, expr), inner ones first
    for _ in range(8):                       # each round shares the largest repeat
        best = _largest_repeat(value, bindings)
        if best is None:
            break
        name = names.fresh()
        k = key(best)
        value = _substitute(value, k, name)
        bindings = [(n, _substitute(x, k, name)) for n, x in bindings]
        bindings.insert(0, (name, best))
    if not bindings:
        return s
    loc = s.loc
    stmt = rebuild(s, (target, value)) if target is not None else value
    defines = [ast.Call("define", (ast.Identifier(n, x.loc), x), None, x.loc)
               for n, x in bindings]
    return ast.Call("block", (*defines, stmt), None, loc)


def _largest_repeat(value, bindings):
    """The largest subexpression occurring twice or more (one occurrence evaluated
    unconditionally) in ``value`` and the bound expressions, or None."""
    counts: dict = {}
    uncond: set = set()
    first: dict = {}
    memo: dict = {}

    def scan(e, unconditional):
        t = type(e)
        if t not in (ast.Call, ast.BinOp, ast.UnaryOp, ast.KeywordArg, ast.QuotedList):
            return
        if t in (ast.Call, ast.BinOp, ast.UnaryOp) and _shareable(e):
            k = key(e, memo)
            counts[k] = counts.get(k, 0) + 1
            first.setdefault(k, e)
            if unconditional:
                uncond.add(k)
        if t is ast.Call and e.func in _CONDITIONAL:
            if e.func == "lambda":
                return
            for i, c in enumerate(e.args):
                scan(c, unconditional and e.func == "if" and i == 0)
            return
        if t is ast.BinOp and e.op in ("&&", "||"):
            scan(e.left, unconditional)
            scan(e.right, False)
            return
        for c in children(e):
            scan(c, unconditional)

    scan(value, True)
    for _n, x in bindings:
        scan(x, True)
    repeats = [k for k, n in counts.items() if n >= 2 and k in uncond]
    if not repeats:
        return None
    return first[max(repeats, key=_weight)]


def _weight(k) -> int:
    return len(repr(k))


def _shareable(e) -> bool:
    return not (type(e) is ast.Call and e.func in _CONDITIONAL)


def _substitute(e, k, name, memo=None):
    if memo is None:
        memo = {}
    t = type(e)
    if t not in (ast.Call, ast.BinOp, ast.UnaryOp, ast.KeywordArg, ast.QuotedList):
        return e
    if t in (ast.Call, ast.BinOp, ast.UnaryOp) and key(e, memo) == k:
        return ast.Identifier(name, e.loc)
    if t is ast.Call and e.func == "lambda":
        return e
    return rebuild(e, tuple(_substitute(c, k, name, memo) for c in children(e)))
