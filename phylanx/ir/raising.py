"""Raising: IR -> PhySL AST, so today's compiler runs a program that went through the IR.

Variables go back to the PhySL names they are versions of: the first binding of a name
in a PhySL function is a ``define``, the later ones ``store`` (blocks and loop bodies
open no scope, so this is what the lowering read).  A temporary read once is nested back
into its reader, so an expression comes back as one expression (the passes after
normalize and fusion see the shapes they know); one read more than once is bound to a
fresh name ``__ir<id>``.  Opaque equations give back the statement they hold.  Every
built node keeps the source location of its equation.
"""
from __future__ import annotations

from collections import Counter

from ..language import ast
from ..source import UNKNOWN
from .core import Eqn, Function, Literal, Var, regions
from .scan import assigned

_INFIX = {prim: op for op, (_, prim) in ast.BINARY_OPS.items()}
_PREFIX = {prim: op for op, prim in ast.UNARY_OPS.items() if prim is not None}
_NONE = Literal(None)


def _uses(fn: Function, counts: Counter) -> Counter:
    for eqn in fn.eqns:
        for a in eqn.ins:
            if type(a) is Var:
                counts[a.id] += 1
        for region in regions(eqn):
            _uses(region, counts)
    for r in fn.results:
        if type(r) is Var:
            counts[r.id] += 1
    return counts


class _Raising:
    def __init__(self, fn: Function):
        self.uses = _uses(fn, Counter())
        self.pending: dict[int, object] = {}
        self.named: dict[int, str] = {}

    def atom(self, a, loc=None):
        loc = UNKNOWN if loc is None else loc
        if type(a) is Literal:
            return ast.Literal(a.value, loc)
        if a.id in self.pending:
            return self.pending.pop(a.id)
        return ast.Identifier(self.named.get(a.id, a.name), loc)

    def operands(self, eqn: Eqn) -> list:
        locs = eqn.in_locs or (None,) * len(eqn.ins)
        return [self.atom(a, loc) for a, loc in zip(eqn.ins, locs)]

    def body(self, fn: Function, bound: set, value_needed: bool = True) -> list:
        """The statements of ``fn`` (a function body or a region)."""
        stmts: list = []
        last = object()
        for eqn in fn.eqns:
            made = self.eqn(eqn, bound)
            if made is None:
                continue
            stmt, value = made
            stmts.append(stmt)
            last = value
        result = fn.results[0] if fn.results else _NONE
        if value_needed and (not stmts or not _same(last, result)):
            stmts.append(self.atom(result))
        return stmts

    def block(self, fn: Function, bound: set, loc=None):
        stmts = self.body(fn, bound)
        if len(stmts) == 1:
            return stmts[0]
        return ast.Call("block", tuple(stmts), None, loc) if loc is not None \
            else ast.Call("block", tuple(stmts))

    def eqn(self, eqn: Eqn, bound: set):
        """``(statement, its value)``, or None when the equation is nested into a later
        one (a temporary read once)."""
        out = eqn.outs[0]
        loc = eqn.loc
        if eqn.prim == "update":
            base, *idx, value = eqn.ins
            target = ast.Call(eqn.param("indexer"), (ast.Identifier(base.name),
                                                     *(self.atom(i) for i in idx)), None, loc)
            return ast.Call("store", (target, self.atom(value)), None, loc), _NONE
        if eqn.prim == "function":
            fn = eqn.param("fn")
            inner = {p.name for p in fn.params}
            body = self.block(fn, inner, loc)
            bound.add(out.name)
            # a parameter with a default (lower.py: a PhySL constant) is __arg(name, it)
            defaults = eqn.param("defaults") or (None,) * len(fn.params)
            names = tuple(ast.Identifier(p.name) if d is None
                          else ast.KeywordArg(p.name, d, getattr(d, "loc", loc))
                          for p, d in zip(fn.params, defaults))
            args = (ast.Identifier(out.name), *names, body)
            return ast.Call("define", args, None, loc), out
        if eqn.prim == "opaque":
            held = eqn.param("ast")
            bound |= assigned(held)
            return held, out
        expr = self.expr(eqn, bound, loc)
        if out.name:
            binder = "store" if out.name in bound else "define"
            bound.add(out.name)
            return (ast.Call(binder, (ast.Identifier(out.name), expr), None, loc),
                    out if binder == "define" else _NONE)
        uses = self.uses[out.id]
        if uses == 1:
            self.pending[out.id] = expr
            return None
        if uses > 1:
            name = f"__ir{out.id}"
            self.named[out.id] = name
            bound.add(name)
            return ast.Call("define", (ast.Identifier(name), expr), None, loc), out
        return expr, out

    def expr(self, eqn: Eqn, bound: set, loc):
        p = eqn.prim
        if p == "read":
            return ast.Identifier(eqn.param("name"), loc)
        if p == "array_literal":
            return ast.ArrayLiteral(eqn.param("value"), eqn.param("kind"), eqn.param("ndim"),
                                    loc)
        if p == "cond":
            pred = self.atom(eqn.ins[0])
            then = self.block(eqn.param("then"), bound)
            other = eqn.param("other")
            rest = () if other is None else (self.block(other, bound),)
            return ast.Call("if", (pred, then, *rest), None, loc)
        if p == "async":
            return ast.Call("async", (self.block(eqn.param("body"), bound),), None, loc)
        if p == "lambda":
            fn = eqn.param("fn")
            body = self.block(fn, {q.name for q in fn.params})
            return ast.Call("lambda", (*(ast.Identifier(q.name) for q in fn.params), body),
                            None, loc)
        if p == "while":
            cond = self.block(eqn.param("cond"), bound)
            body = self.block(eqn.param("body"), bound)
            return ast.Call("while", (cond, body), None, loc)
        if p == "for_each":
            it = self.atom(eqn.ins[0])
            fn = eqn.param("body")
            var = fn.params[0].name
            bound.add(var)
            body = self.block(fn, bound)
            lam = ast.Call("lambda", (ast.Identifier(var), body), None, loc)
            return ast.Call("for_each", (lam, it), None, loc)
        ins = self.operands(eqn)
        if p == "bind":
            return ins[0]
        if p == "return":
            return ast.Call("return", tuple(ins), None, loc)
        if p == "list" and eqn.param("quoted"):
            return ast.QuotedList(tuple(ins), loc)
        if p in _INFIX and len(ins) == 2 and not eqn.params:
            return ast.BinOp(_INFIX[p], ins[0], ins[1], loc)
        if p in _PREFIX and len(ins) == 1 and not eqn.params:
            return ast.UnaryOp(_PREFIX[p], ins[0], loc)
        if p == "dot_general":
            return ast.Call(eqn.param("rule"), tuple(ins), None, loc)
        if p == "call":
            name = eqn.param("name")
            if name is None:
                name, ins = eqn.ins[0].name, ins[1:]
        else:
            name = p
        kw = eqn.param("kw")
        if kw is not None:
            locs = eqn.in_locs[len(eqn.ins) - len(kw):] or (loc,) * len(kw)
            ins = [ast.KeywordArg(k, a, where or UNKNOWN) if k else a
                   for k, a, where in zip(kw, ins, locs)]
        return ast.Call(name, tuple(ins), eqn.param("attribute"), loc)


def _same(value, result) -> bool:
    if type(value) is Var and type(result) is Var:
        return value.id == result.id
    return type(value) is Literal and value == result


def raise_program(fn: Function) -> ast.Program:
    """The PhySL program of a lowered program (``lower.lower``)."""
    raising = _Raising(fn)
    return ast.Program(tuple(raising.body(fn, set())))
