"""Row pass of a gram product: an expression that reads a tall matrix twice, row by row,
in one pass (a rule of the AST).

Where ``x`` is a variable and ``f`` an element-wise expression (operators and primitives
declared ``elementwise``) of products ``matmul(x, m)`` and of operands that do not
mention ``x``::

    matmul(transpose(x), f(...))  ->  __rows_gram(lambda(t, m.., v.., matmul(transpose(t), f')),
                                                  x, #m, m.., v..)

(its sibling for ``argmin(f(...), 1)``, ``__rows_concat``, is a rule of the IR:
``row_blocks.py``).  Products and transposes are the canonical forms of
``normalize.py`` (``matmul`` stands for either product primitive, each kept as written:
the tiles are matrices, where both are one function).

``f'`` is ``f`` with ``x`` replaced by the tile parameter ``t`` and every maximal
subexpression without ``x`` by a parameter; those subexpressions (pure: no side effects,
no calls of unknown functions) are evaluated once, before the tiles, as the primitive's
operands.  The lambda's body is the original expression over its parameters, so calling it
on the whole ``x`` is the original evaluation: ``primitives/matrixops/blocked.py`` does
that whenever the values do not allow tiling (row alignment, distributed arrays ...), and
the rewrite never changes a result beyond float rounding.

Programs often name the element-wise part first (``pred = sigmoid(x @ w)`` then
``x.T @ (pred - y)``); the phase runs in the
engine's ``dataflow`` order, where such a single-use define is offered to the rules as
its expression (``dataflow.py`` says when).

Autodiff: the primitives' ``restore`` flag gives the expression back (with ``v``
inlined), which the recording compiler compiles in its place.
"""
from __future__ import annotations

from typing import Any

from ... import config
from ...language import ast
from .dataflow import seeing_offers
from .engine import P, Phase, Rule, Sample
from .normalize import PRODUCTS, product, same_product, transposed
from .patterns import inlined, plain_spec, pure, walk_in_order

GRAM = "__rows_gram"


class _NoMatch(Exception):
    pass


def _elementwise(name: str | None) -> bool:
    spec = plain_spec(name) if name else None
    return spec is not None and spec.elementwise


def _mentions(expr, x: str, inline: dict) -> bool:
    for e in walk_in_order(expr):
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
        operands = product(expr)
        if operands is not None and operands[0] == ast.Identifier(x) \
                and not _mentions(operands[1], x, self.inline) and pure(operands[1]):
            self.products.append(operands[1])
            m = self.param("m", len(self.products) - 1, operands[1].loc)
            return same_product(expr, ast.Identifier("tile_x", expr.loc), m)
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
        if product(expr) is not None:
            if not gram_wanted():
                return None
            left, right = expr.args
            x = transposed(left)
            if type(x) is not ast.Identifier:
                return None
            split = _Split(x.name, inline)
            inner = split.body(right)
            if split.products and not config.get("blocking_gram"):
                # a fused row pass computes it (fusion/rowpass.py finds the pattern in
                # the compiled tree): the expression stays, the define read in it inlined
                if not split.inlined:
                    return None
                return same_product(expr, left, inlined(right, split.inlined, inline)), \
                    split.inlined
            tile = ast.Call("transpose", (ast.Identifier("tile_x", left.loc),), None, left.loc)
            body = same_product(expr, tile, inner)
        else:
            return None
    except _NoMatch:
        return None
    if not split.products:
        return None
    call = ast.Call(GRAM, (split.function(body, loc), *split.tail(loc)), None, loc)
    return call, split.inlined


def _regression(rng, dtype, n):
    x = rng.normal(size=(n, 3)).astype(dtype)
    return x, (rng.uniform(size=n) > 0.5).astype(dtype), rng.normal(size=3).astype(dtype)


PHASE = Phase("gram_row_passes", (
    Rule("row_pass_of_a_gram_product",
         "x.T @ f(x @ m) is a sum over row blocks of x[rows].T @ f(x[rows] @ m) (the "
         "product contracts over the rows, f reads each row alone); the variable naming "
         "f(x @ m), bound once and read once, is its expression (a dataflow edge), so "
         "the row pass (fusion/rowpass.py, or NumPy tiles with blocking_gram) sees it",
         P(*PRODUCTS, name="e"), seeing_offers(match),
         Sample("def sample(x, y, w):\n    p = 1.0 / (1.0 + np.exp(-DOT(x, w)))\n"
                "    g = DOT(x.T, p - y)\n    return g\n", _regression,
                ("@", "np.dot", ".dot", "np.matmul", "float32"),
                settings=(("blocking_gram", True),)),
         tolerance="exact as rewritten by default (the product stays); with blocking_gram "
                   "the sum over blocks rounds differently, as the fused row pass it "
                   "lets run does: rtol 1e-12 (float64), 1e-5 (float32)",
         rtol=(1e-12, 1e-5),
         setting="cache_blocking"),
), order="dataflow", sealed=frozenset((GRAM,)),
   wanted=lambda facts: not facts.used.isdisjoint(PRODUCTS))

#: the phase alone (tests)
run = PHASE.run
