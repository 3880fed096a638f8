"""Symmetric products rule: a product with outer products of rows, each pair of equal
columns computed once.

Law: ``v[:, :, None] * v[:, None, :]`` is symmetric in its last two axes, so of its
reshape ``yy`` to ``(n, k * k)`` (the normal equations of every row at once, any
least-squares-by-rows program), columns ``(i, j)`` and ``(j, i)`` are equal and half of
``a @ yy``'s work repeats the other half; NumPy cannot know, the tree can.  The
pattern, ``v`` any pure expression (written the same on both sides) and ``a`` any
expression::

    matmul(a, reshape(__subscript(v, :, :, newaxis) * __subscript(v, :, newaxis, :), s))
      -> __matmul_outer_rows(lambda(outer_a, outer_v, outer_s, <the same over them>),
                             a, v, s)

(any product of ``normalize.product``, and the factors in either order.) ``v`` is
evaluated once instead of twice.  A single-use ``define(yy, ...)`` just before the product
is seen through (the engine's ``dataflow`` order).
``primitives/matrixops/outer_products.py`` computes the fast form when the values allow
and calls the lambda otherwise; autodiff compiles the expression back (the primitive's
``restore``).  The phase runs before loop-invariant hoisting (whose lazily initialised
parts would hide a define's value), which moves the rewritten call whole: its registry
flag ``pure_function`` says the lambda reads nothing (``tree.ExprFacts``).  Setting
``symmetric_products``.
"""
from __future__ import annotations

from typing import Any

from ...language import ast
from .dataflow import seeing_offers
from .engine import P, Phase, Rule, Sample, normal
from .normalize import PRODUCTS, product, same_product
from .patterns import pure
from .tree import key

PRIMITIVE = "__matmul_outer_rows"
_PARAMS = ("outer_a", "outer_v", "outer_s")


def _full(e) -> bool:
    return (type(e) is ast.Call and e.func == "list" and e.attribute is None
            and len(e.args) == 2 and all(type(a) is ast.Literal and a.value is None
                                         for a in e.args))


def _newaxis(e) -> bool:
    return type(e) is ast.Call and e.func == "__newaxis" and not e.args and e.attribute is None


def _factor(e) -> tuple[Any, int] | None:
    """``(v, axis of the new axis)`` for ``__subscript(v, :, :, newaxis)`` (axis 2) or
    ``__subscript(v, :, newaxis, :)`` (axis 1), else None."""
    if not (type(e) is ast.Call and e.func == "__subscript" and e.attribute is None
            and len(e.args) == 4):
        return None
    base, first, second, third = e.args
    if _full(first) and _full(second) and _newaxis(third):
        return base, 2
    if _full(first) and _newaxis(second) and _full(third):
        return base, 1
    return None


def _outer_rows(e) -> Any:
    """``v`` if ``e`` is ``v[:, :, None] * v[:, None, :]`` (either order), else None."""
    if not (type(e) is ast.BinOp and e.op == "*"):
        return None
    left, right = _factor(e.left), _factor(e.right)
    if left is None or right is None or {left[1], right[1]} != {1, 2}:
        return None
    if key(left[0]) != key(right[0]) or not pure(left[0]):
        return None
    return left[0]


def match(expr, inline: dict) -> tuple[Any, set[str]] | None:
    """``(rewritten call, names inlined)`` if ``expr`` is the pattern, else None."""
    operands = product(expr)
    if operands is None:
        return None
    a, right = operands
    used: set[str] = set()
    if type(right) is ast.Identifier and right.name in inline:
        used, right = {right.name}, inline[right.name]
    if not (type(right) is ast.Call and right.func == "reshape" and right.attribute is None
            and len(right.args) == 2
            and not any(type(x) is ast.KeywordArg for x in right.args)):
        return None
    v = _outer_rows(right.args[0])
    if v is None:
        return None
    loc = expr.loc
    pa, pv, ps = (ast.Identifier(name, loc) for name in _PARAMS)
    factors = right.args[0]
    left_factor = ast.Call("__subscript", (pv, *factors.left.args[1:]), None, factors.loc)
    right_factor = ast.Call("__subscript", (pv, *factors.right.args[1:]), None, factors.loc)
    body = same_product(expr, pa, ast.Call("reshape", (
        ast.BinOp("*", left_factor, right_factor, factors.loc), ps), None, right.loc), loc)
    function = ast.Call("lambda", (pa, pv, ps, body), None, loc)
    return ast.Call(PRIMITIVE, (function, a, v, right.args[1]), None, loc), used


PHASE = Phase("symmetric_products", (
    Rule("symmetric_outer_products",
         "v[:, :, None] * v[:, None, :] is symmetric in its last two axes (multiplication "
         "commutes), so column (i, j) of its reshape to (n, k*k) equals column (j, i): "
         "a @ that reshape is computed for i <= j and mirrored; v is evaluated once",
         P(*PRODUCTS, name="e"), seeing_offers(match),
         Sample("def sample(a, v):\n    n, k = v.shape\n"
                "    yy = (v[:, :, None] * v[:, None, :]).reshape(n, k * k)\n"
                "    return DOT(a, yy)\n", normal((3, "n"), ("n", 4)),
                ("@", "np.dot", ".dot", "np.matmul", "float32")),
         tolerance="the half product may round differently from the whole one: rtol 1e-12 "
                   "(float64), 1e-5 (float32)",
         rtol=(1e-12, 1e-5),
         setting="symmetric_products"),
), order="dataflow", sealed=frozenset((PRIMITIVE,)),
   wanted=lambda facts: "reshape" in facts.used and not facts.used.isdisjoint(PRODUCTS))

#: the phase alone (tests)
run = PHASE.run
