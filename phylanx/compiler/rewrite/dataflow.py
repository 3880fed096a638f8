"""The ``dataflow`` order of the rewrite engine: statements of a block, with a variable
bound once and read once offered to the rules as the expression it names.

Users name the parts of a pattern first (``pred = sigmoid(x @ w)`` then
``x.T @ (pred - y)``).  In the IR such a variable is only an edge from one equation to
the next; on the AST the engine shows it as one: inside a function, a ``define(v, e)``
immediately followed by the statement that uses ``v`` is offered to the rules matching
in that statement (``Context.offered``, ``{v: e}``) when that is ``v``'s only use in
the whole program (no other define, store or read of the name anywhere), ``e`` is pure
and the using statement is pure too (it changes nothing before it reads ``v``; a
``store``/``define`` of the statement binds only after its value is computed, and
``store(w, __inplace(w, e2))``, ``w -= ...``, changes ``w`` only after ``e2``).  A rule
that reads the offer adds ``v`` to ``Context.consumed``; the define is then dropped.
"""
from __future__ import annotations

from ...language import ast
from .patterns import name_uses, pure

_DEFINES = ("define", "store")


def rewrite_statements(body: tuple, rnd) -> tuple:
    """``body`` (a program's top-level expressions) after one round of ``rnd``'s rules."""
    return _Statements(rnd).program(body)


def seeing_offers(match):
    """A rule's builder from ``match(term, offered) -> (replacement, names read from
    offered) | None``: the names it read are marked consumed (their defines go)."""
    def build(bound: dict, ctx):
        found = match(bound["e"], ctx.offered)
        if found is None:
            return None
        ctx.consumed |= found[1]
        return found[0]
    return build


def _in_place_update(value, target):
    """``e`` if ``value`` is ``__inplace(target, e)`` (``target += ...`` on an array)."""
    if type(value) is ast.Call and value.func == "__inplace" and value.attribute is None \
            and len(value.args) == 2 and value.args[0] == target:
        return value.args[1]
    return None


class _Statements:
    def __init__(self, rnd) -> None:
        self.rnd = rnd
        self.ctx = rnd.ctx
        self.sealed = rnd.phase.sealed
        self.uses = name_uses(self.ctx.program)

    def program(self, body: tuple) -> tuple:
        return tuple(self.expr(e) for e in body)

    def inlinable(self, stmt) -> dict:
        """``{v: e}`` if ``stmt`` is ``define(v, e)`` that may be inlined into the next one."""
        if not (type(stmt) is ast.Call and stmt.func == "define" and len(stmt.args) == 2
                and type(stmt.args[0]) is ast.Identifier and stmt.attribute is None):
            return {}
        name, value = stmt.args[0].name, stmt.args[1]
        # two occurrences: the define's target and the one read
        if self.uses[name] != 2 or not pure(value):
            return {}
        return {name: value}

    def matched(self, e, offered: dict):
        ctx = self.ctx
        ctx.offered = offered
        try:
            new = self.rnd.rewritten(e)
        finally:
            ctx.offered = {}
        return e if new is None else new

    def expr(self, e):
        """``e`` rewritten, nothing offered."""
        t = type(e)
        if t is ast.Call:
            if e.func in self.sealed:
                return e
            if e.func == "block":
                return ast.Call(e.func, self.block(e.args), e.attribute, e.loc)
            function = e.func == "lambda" or (e.func == "define" and len(e.args) > 2)
            was = self.ctx.in_function
            self.ctx.in_function = was or function
            args = tuple(self.expr(a) for a in e.args)
            self.ctx.in_function = was
            e = ast.Call(e.func, args, e.attribute, e.loc) if args != e.args else e
            return self.matched(e, {})
        if t is ast.BinOp:
            return ast.BinOp(e.op, self.expr(e.left), self.expr(e.right), e.loc)
        if t is ast.UnaryOp:
            return ast.UnaryOp(e.op, self.expr(e.operand), e.loc)
        if t is ast.KeywordArg:
            return ast.KeywordArg(e.name, self.expr(e.value), e.loc)
        if t is ast.QuotedList:
            return ast.QuotedList(tuple(self.expr(a) for a in e.items), e.loc)
        return e

    def statement(self, stmt, offered: dict):
        """A statement, with ``offered`` seen only in its value (``store``/``define``'s
        value, or itself).  Both evaluate the value before they bind, so the value may
        read the target; a value that is not pure may change what ``offered`` reads."""
        if type(stmt) is ast.Call and stmt.func in _DEFINES and len(stmt.args) == 2 \
                and type(stmt.args[0]) is ast.Identifier and stmt.attribute is None:
            value = stmt.args[1]
            update = _in_place_update(value, stmt.args[0])
            if update is not None:
                # ``w -= e``: e is computed before w changes in place, as ``w = w - e`` is
                offered = offered if pure(update) else {}
                value = ast.Call(value.func, (value.args[0], self.value(update, offered)),
                                 None, value.loc)
                return ast.Call(stmt.func, (stmt.args[0], value), stmt.attribute, stmt.loc)
            offered = offered if pure(value) else {}
            return ast.Call(stmt.func, (stmt.args[0], self.value(value, offered)),
                            stmt.attribute, stmt.loc)
        return self.value(stmt, offered if pure(stmt) else {})

    def value(self, e, offered: dict):
        """``e`` rewritten, with ``offered`` seen by the rules (pure ``e``: no nested
        blocks, lambdas or defines, which ``pure`` rejects as special forms)."""
        if not offered:
            return self.expr(e)
        t = type(e)
        if t is ast.Call:
            args = tuple(ast.KeywordArg(a.name, self.value(a.value, offered), a.loc)
                         if type(a) is ast.KeywordArg else self.value(a, offered)
                         for a in e.args)
            e = ast.Call(e.func, args, e.attribute, e.loc) if args != e.args else e
            return self.matched(e, offered)
        if t is ast.BinOp:
            return ast.BinOp(e.op, self.value(e.left, offered),
                             self.value(e.right, offered), e.loc)
        if t is ast.UnaryOp:
            return ast.UnaryOp(e.op, self.value(e.operand, offered), e.loc)
        return self.expr(e)

    def block(self, stmts: tuple) -> tuple:
        ctx = self.ctx
        outer = ctx.consumed
        out: list = []
        pending: dict = {}
        for stmt in stmts:
            ctx.consumed = set()
            new = self.statement(stmt, pending) if pending else self.expr(stmt)
            if ctx.consumed & pending.keys():
                out.pop()             # the define was inlined into its only use
            out.append(new)
            # a define outside functions may be a global that later programs read
            pending = self.inlinable(new) if ctx.in_function else {}
        ctx.consumed = outer
        return tuple(out)
