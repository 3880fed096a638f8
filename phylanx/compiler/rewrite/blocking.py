"""Cache blocking: rewrite expressions that read a tall matrix twice into one tiled pass.

Two patterns, where ``x`` is a variable and ``f`` an element-wise expression (operators
and primitives declared ``elementwise``) of products ``matmul(x, m)`` and of operands
that do not mention ``x``::

    matmul(transpose(x), f(...))  ->  __rows_gram(lambda(t, m.., v.., matmul(transpose(t), f')),
                                                  x, #m, m.., v..)
    argmin(f(...), 1)             ->  __rows_concat(lambda(t, m.., v.., argmin(f', 1)), x, #m, ...)

(``argmax`` too, axis 1 or -1.)  ``f'`` is ``f`` with ``x`` replaced by the tile
parameter ``t`` and every maximal subexpression without ``x`` by a parameter; those
subexpressions (pure: no side effects, no calls of unknown functions) are evaluated once,
before the tiles, as the primitive's operands.  The lambda's body is the original
expression over its parameters, so calling it on the whole ``x`` is the original
evaluation: ``primitives/matrixops/blocked.py`` does that whenever the values do not
allow tiling (row alignment, distributed arrays ...), and the rewrite never changes a
result beyond float rounding.

Logistic regression and k-means name the element-wise part first
(``pred = sigmoid(x @ w)`` then ``x.T @ (pred - y)``; ``dist = ...`` then
``argmin(dist, 1)``).  Inside a function, a ``define(v, e)`` immediately followed by the
statement that uses ``v`` is inlined into a matched pattern when that is ``v``'s only use
in the whole program (no other define, store or read of the name anywhere), ``e`` is pure
and the using statement is pure too (it changes nothing before it reads ``v``; a
``store``/``define`` of the statement binds only after its value is computed); the define
is then dropped.

Autodiff: the primitives' ``restore`` flag gives the expression back (with ``v``
inlined), which the recording compiler compiles in its place.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from ... import config
from ...language import ast
from ...primitives import registry

#: reductions of each row whose tiles' values are concatenated (``__rows_concat``)
ARG_REDUCTIONS = ("argmin", "argmax")
GRAM, CONCAT = "__rows_gram", "__rows_concat"
_DEFINES = ("define", "store")


class _NoMatch(Exception):
    pass


# -- facts about names and purity --------------------------------------------------------

def _walk(expr):
    yield expr
    t = type(expr)
    if t is ast.Call:
        for a in expr.args:
            yield from _walk(a)
    elif t is ast.BinOp:
        yield from _walk(expr.left)
        yield from _walk(expr.right)
    elif t is ast.UnaryOp:
        yield from _walk(expr.operand)
    elif t is ast.KeywordArg:
        yield from _walk(expr.value)
    elif t is ast.QuotedList:
        for a in expr.items:
            yield from _walk(a)


def name_uses(program: ast.Program) -> Counter:
    """How often each name occurs anywhere in ``program`` (reads, defines, stores, params)."""
    uses: Counter = Counter()
    for top in program.body:
        for e in _walk(top):
            if type(e) is ast.Identifier:
                uses[e.name] += 1
            elif type(e) is ast.KeywordArg:
                uses[e.name] += 1
    return uses


def _spec(name: str):
    spec = registry.lookup(name)
    if spec is None or spec.special or spec.lazy or spec.side_effects or spec.higher_order:
        return None
    return spec


def pure(expr) -> bool:
    """True if evaluating ``expr`` reads variables and calls side-effect-free primitives only."""
    for e in _walk(expr):
        t = type(e)
        if t is ast.Call and (e.attribute is not None or _spec(e.func) is None):
            return False
        if t is ast.BinOp and _spec(ast.BINARY_OPS[e.op][1]) is None:
            return False
        if t is ast.UnaryOp and ast.UNARY_OPS[e.op] and _spec(ast.UNARY_OPS[e.op]) is None:
            return False
    return True


def _elementwise(name: str | None) -> bool:
    spec = _spec(name) if name else None
    return spec is not None and spec.elementwise


def _mentions(expr, x: str, inline: dict) -> bool:
    for e in _walk(expr):
        if type(e) is ast.Identifier and (
                e.name == x or (e.name in inline and _mentions(inline[e.name], x, {}))):
            return True
    return False


# -- splitting f into its tile function and operands -------------------------------------

class _Split:
    """``f`` as a lambda body over ``t`` (the tile), products ``m..`` and operands ``v..``."""

    def __init__(self, x: str, inline: dict) -> None:
        self.x, self.inline = x, inline
        self.products: list = []
        self.operands: list = []
        self.inlined: set[str] = set()

    def param(self, kind: str, index: int, loc) -> ast.Identifier:
        return ast.Identifier(f"tile_{kind}{index}", loc)

    def leaf(self, expr):
        if type(expr) in (ast.Literal, ast.ArrayLiteral):
            return expr
        if not pure(expr):
            raise _NoMatch
        self.operands.append(expr)
        return self.param("v", len(self.operands) - 1, expr.loc)

    def body(self, expr):
        x, t = self.x, type(expr)
        if t is ast.Identifier:
            if expr.name == x:
                raise _NoMatch            # x itself outside a product: not row-wise here
            if expr.name in self.inline and _mentions(self.inline[expr.name], x, {}):
                self.inlined.add(expr.name)
                return self.body(self.inline[expr.name])
            return self.leaf(expr)
        if not _mentions(expr, x, self.inline):
            return self.leaf(expr)
        if t is ast.Call and expr.func == "matmul" and len(expr.args) == 2 \
                and expr.attribute is None and expr.args[0] == ast.Identifier(x) \
                and type(expr.args[1]) is not ast.KeywordArg \
                and not _mentions(expr.args[1], x, self.inline) and pure(expr.args[1]):
            self.products.append(expr.args[1])
            product = self.param("m", len(self.products) - 1, expr.args[1].loc)
            return ast.Call("matmul", (ast.Identifier("tile_x", expr.loc), product),
                            None, expr.loc)
        if t is ast.BinOp and _elementwise(ast.BINARY_OPS[expr.op][1]):
            return ast.BinOp(expr.op, self.body(expr.left), self.body(expr.right), expr.loc)
        if t is ast.UnaryOp:
            prim = ast.UNARY_OPS[expr.op]
            if prim is None or _elementwise(prim):
                return ast.UnaryOp(expr.op, self.body(expr.operand), expr.loc)
        if t is ast.Call and expr.attribute is None and _elementwise(expr.func) \
                and not any(type(a) is ast.KeywordArg for a in expr.args):
            return ast.Call(expr.func, tuple(self.body(a) for a in expr.args), None, expr.loc)
        raise _NoMatch

    def function(self, body, loc) -> ast.Call:
        params = [ast.Identifier("tile_x", loc)]
        params += [self.param("m", i, loc) for i in range(len(self.products))]
        params += [self.param("v", i, loc) for i in range(len(self.operands))]
        return ast.Call("lambda", (*params, body), None, loc)

    def tail(self, loc) -> tuple:
        return (ast.Identifier(self.x, loc), ast.Literal(len(self.products), loc),
                *self.products, *self.operands)


def _first_product_operand(expr, inline: dict) -> str | None:
    """The variable ``x`` of the first ``matmul(x, ...)`` in ``expr`` (through ``inline``)."""
    for e in _walk(expr):
        if type(e) is ast.Call and e.func == "matmul" and len(e.args) == 2 \
                and type(e.args[0]) is ast.Identifier:
            return e.args[0].name
        if type(e) is ast.Identifier and e.name in inline:
            found = _first_product_operand(inline[e.name], {})
            if found is not None:
                return found
    return None


def _axis(args) -> Any:
    """The axis literal of ``argmin(e, 1)`` / ``argmin(e, __arg(axis, 1))``, else None."""
    if len(args) != 2:
        return None
    a = args[1]
    if type(a) is ast.KeywordArg:
        if a.name != "axis":
            return None
        a = a.value
    if type(a) is ast.Literal and type(a.value) is int and a.value in (1, -1):
        return a
    if type(a) is ast.UnaryOp and a.op == "-" and type(a.operand) is ast.Literal \
            and a.operand.value == 1 and type(a.operand.value) is int:
        return ast.Literal(-1, a.loc)
    return None


def _inlined(expr, names: set[str], inline: dict):
    """``expr`` with the identifiers in ``names`` replaced by their ``inline`` values."""
    from .tree import children, rebuild
    if type(expr) is ast.Identifier and expr.name in names:
        return inline[expr.name]
    return rebuild(expr, tuple(_inlined(c, names, inline) for c in children(expr)))


def gram_wanted() -> bool:
    """Rewrite the gram pattern: NumPy tiles asked for (``blocking_gram``), or a fused
    row pass may compute it (``fusion_rows`` with numba installed, ``fusion/rowpass.py``)."""
    if config.get("blocking_gram"):
        return True
    if not config.get("fusion_rows"):
        return False
    from ...fusion import backend_available
    return backend_available()


def match(expr, inline: dict) -> tuple[Any, set[str]] | None:
    """``(rewritten call, names inlined)`` if ``expr`` is one of the patterns, else None."""
    if type(expr) is not ast.Call or expr.attribute is not None:
        return None
    loc = expr.loc
    try:
        if expr.func == "matmul" and len(expr.args) == 2:
            if not gram_wanted():
                return None
            left, right = expr.args
            if not (type(left) is ast.Call and left.func == "transpose"
                    and len(left.args) == 1 and left.attribute is None
                    and type(left.args[0]) is ast.Identifier):
                return None
            split = _Split(left.args[0].name, inline)
            inner = split.body(right)
            if split.products and not config.get("blocking_gram"):
                # a fused row pass computes it (fusion/rowpass.py finds the pattern in
                # the compiled tree): the expression stays, the define read in it inlined
                return ast.Call("matmul", (left, _inlined(right, split.inlined, inline)),
                                None, loc), split.inlined
            tile = ast.Call("transpose", (ast.Identifier("tile_x", left.loc),), None, left.loc)
            body = ast.Call("matmul", (tile, inner), None, loc)
            name = GRAM
        elif expr.func in ARG_REDUCTIONS:
            axis = _axis(expr.args)
            if axis is None or type(expr.args[0]) is ast.KeywordArg:
                return None
            x = _first_product_operand(expr.args[0], inline)
            if x is None:
                return None
            split = _Split(x, inline)
            body = ast.Call(expr.func, (split.body(expr.args[0]), axis), None, loc)
            name = CONCAT
        else:
            return None
    except _NoMatch:
        return None
    if not split.products:
        return None
    call = ast.Call(name, (split.function(body, loc), *split.tail(loc)), None, loc)
    return call, split.inlined


# -- the pass ----------------------------------------------------------------------------

class _Rewriter:
    def __init__(self, uses: Counter) -> None:
        self.uses = uses
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
        found = match(e, inline)
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


def run(program: ast.Program) -> ast.Program:
    """``program`` with the patterns of the module docstring rewritten (config
    ``cache_blocking``); the same object when nothing matched."""
    from ... import config
    if not config.get("cache_blocking"):
        return program
    rewriter = _Rewriter(name_uses(program))
    body = tuple(rewriter.expr(e) for e in program.body)
    if not rewriter.changed:
        return program
    return ast.Program(body, program.loc)
