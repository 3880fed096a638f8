"""Pattern passes' plumbing: purity, name counts, and a rewriter that inlines a
single-use ``define`` into the pattern that reads it (``blocking.py``, ``outer.py``).

Users name the parts of a pattern first (``pred = sigmoid(x @ w)`` then
``x.T @ (pred - y)``).  Inside a function, a ``define(v, e)`` immediately followed by the
statement that uses ``v`` is offered to the matches in that statement when that is
``v``'s only use in the whole program (no other define, store or read of the name
anywhere), ``e`` is pure and the using statement is pure too (it changes nothing before
it reads ``v``; a ``store``/``define`` of the statement binds only after its value is
computed, and ``store(w, __inplace(w, e2))``, ``w -= ...``, changes ``w`` only after
``e2``); a match that inlines it drops the define.
"""
from __future__ import annotations

from collections import Counter

from ...language import ast
from ...primitives import registry

_DEFINES = ("define", "store")


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


def _in_place_update(value, target):
    """``e`` if ``value`` is ``__inplace(target, e)`` (``target += ...`` on an array)."""
    if type(value) is ast.Call and value.func == "__inplace" and value.attribute is None \
            and len(value.args) == 2 and value.args[0] == target:
        return value.args[1]
    return None


def inlined(expr, names: set[str], inline: dict):
    """``expr`` with the identifiers in ``names`` replaced by their ``inline`` values."""
    from .tree import children, rebuild
    if type(expr) is ast.Identifier and expr.name in names:
        return inline[expr.name]
    return rebuild(expr, tuple(inlined(c, names, inline) for c in children(expr)))


class InliningRewriter:
    """A pass over a program replacing what ``match(expr, inline)`` recognises; a
    single-use define just before a statement is offered to the matches in it as
    ``inline`` ({name: value}) and dropped when a match inlined it."""

    def __init__(self, match) -> None:
        self.match = match
        self.uses: Counter = Counter()
        self.changed = False
        self.used: set[str] = set()    # names of the pending define a match inlined
        self.functions = 0             # function bodies being rewritten, nested

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

    def expr(self, e):
        """``e`` rewritten (no inlining)."""
        t = type(e)
        if t is ast.Call:
            if e.func == "block":
                return ast.Call(e.func, self.block(e.args), e.attribute, e.loc)
            function = e.func == "lambda" or (e.func == "define" and len(e.args) > 2)
            self.functions += function
            args = tuple(self.expr(a) for a in e.args)
            self.functions -= function
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

    def matched(self, e, inline: dict):
        found = self.match(e, inline)
        if found is None:
            return e
        self.changed = True
        self.used |= found[1]
        return found[0]

    def statement(self, stmt, inline: dict):
        """A statement, matched with ``inline`` only in its value (``store``/``define``'s
        value, or itself).  Both evaluate the value before they bind, so the value may
        read the target; a value that is not pure may change what ``inline`` reads."""
        if type(stmt) is ast.Call and stmt.func in _DEFINES and len(stmt.args) == 2 \
                and type(stmt.args[0]) is ast.Identifier and stmt.attribute is None:
            value = stmt.args[1]
            update = _in_place_update(value, stmt.args[0])
            if update is not None:
                # ``w -= e``: e is computed before w changes in place, as ``w = w - e`` is
                inline = inline if pure(update) else {}
                value = ast.Call(value.func, (value.args[0], self.value(update, inline)),
                                 None, value.loc)
                return ast.Call(stmt.func, (stmt.args[0], value), stmt.attribute, stmt.loc)
            inline = inline if pure(value) else {}
            return ast.Call(stmt.func, (stmt.args[0], self.value(value, inline)),
                            stmt.attribute, stmt.loc)
        return self.value(stmt, inline if pure(stmt) else {})

    def value(self, e, inline: dict):
        """``e`` rewritten, with ``inline`` offered to matches (pure ``e``: no nested
        blocks, lambdas or defines, which ``pure`` rejects as special forms)."""
        if not inline:
            return self.expr(e)
        t = type(e)
        if t is ast.Call:
            args = tuple(ast.KeywordArg(a.name, self.value(a.value, inline), a.loc)
                         if type(a) is ast.KeywordArg else self.value(a, inline)
                         for a in e.args)
            e = ast.Call(e.func, args, e.attribute, e.loc) if args != e.args else e
            return self.matched(e, inline)
        if t is ast.BinOp:
            return ast.BinOp(e.op, self.value(e.left, inline), self.value(e.right, inline),
                             e.loc)
        if t is ast.UnaryOp:
            return ast.UnaryOp(e.op, self.value(e.operand, inline), e.loc)
        return self.expr(e)

    def block(self, stmts: tuple) -> tuple:
        outer = self.used
        out: list = []
        pending: dict = {}
        for stmt in stmts:
            self.used = set()
            new = self.statement(stmt, pending) if pending else self.expr(stmt)
            if self.used & pending.keys():
                out.pop()             # the define was inlined into its only use
            out.append(new)
            # a define outside functions may be a global that later programs read
            pending = self.inlinable(new) if self.functions else {}
        self.used = outer
        return tuple(out)

    def run(self, program: ast.Program) -> ast.Program:
        """``program`` rewritten; the same object when nothing matched."""
        self.uses = name_uses(program)
        body = tuple(self.expr(e) for e in program.body)
        if not self.changed:
            return program
        return ast.Program(body, program.loc)
