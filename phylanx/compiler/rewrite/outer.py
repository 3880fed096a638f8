"""Symmetric products rule: a product with outer products of rows, each pair of equal
columns computed once (a rule of the IR, on the canonical product ``dot_general``).

Law: ``v[:, :, None] * v[:, None, :]`` is symmetric in its last two axes, so of its
reshape ``yy`` to ``(n, k * k)`` (the normal equations of every row at once, any
least-squares-by-rows program), columns ``(i, j)`` and ``(j, i)`` are equal and half of
``a @ yy``'s work repeats the other half; NumPy cannot know, the IR can.  The pattern,
over equations (``v`` any value: both factors read the same SSA variable, or equal
pure equations of the same operands; ``a`` any value)::

    dot_general(a, reshape(__subscript(v, :, :, newaxis) * __subscript(v, :, newaxis, :), s))
      -> __matmul_outer_rows(lambda(outer_a, outer_v, outer_s, <the same over them>),
                             a, v, s)

whatever spelling produced the product (``@``, ``np.dot``, ``.dot``, ``np.matmul``: one
``dot_general``, its ``rule`` kept in the lambda), the factors in either order, and
``yy`` named or not (an SSA edge is an edge).  The equations of ``yy`` are absorbed: they
go when nothing else reads them (``IrTerms.absorb``).
``primitives/matrixops/outer_products.py`` computes the fast form when the values allow
and calls the lambda otherwise; autodiff compiles the expression back (the primitive's
``restore``).  The phase runs before loop-invariant hoisting, which moves the rewritten
call whole: the call is pure and its function value reads nothing the loop binds.
Setting ``symmetric_products``.
"""
from __future__ import annotations

from ...ir.core import Eqn, Function, Var, params
from .cse import _ir_value
from .engine import P, Phase, Rule, Sample, normal

PRIMITIVE = "__matmul_outer_rows"
_PARAMS = ("outer_a", "outer_v", "outer_s")


def _full(e) -> bool:
    return (type(e) is Eqn and e.prim == "list" and not e.params
            and all(type(a) is not Var and a.value is None for a in e.ins) and len(e.ins) == 2)


def _newaxis(e) -> bool:
    return type(e) is Eqn and e.prim == "__newaxis" and not e.ins and not e.params


def _factor(e, terms):
    """``(v, axis of the new axis)`` for ``__subscript(v, :, :, newaxis)`` (axis 2) or
    ``__subscript(v, :, newaxis, :)`` (axis 1), else None."""
    if not (type(e) is Eqn and e.prim == "__subscript" and not e.params and len(e.ins) == 4):
        return None
    base, first, second, third = terms.children(e)
    if _full(first) and _full(second) and _newaxis(third):
        return e.ins[0], 2
    if _full(first) and _newaxis(second) and _full(third):
        return e.ins[0], 1
    return None


def _same_value(a, b, terms) -> bool:
    """``a`` and ``b`` are one value: one variable, or equal pure equations of one value."""
    if a == b:
        return True
    if type(a) is not Var or type(b) is not Var:
        return False
    ea, eb = terms.defining(a), terms.defining(b)
    if ea is None or eb is None or (ea.prim, ea.params) != (eb.prim, eb.params) \
            or len(ea.ins) != len(eb.ins) or not _ir_value(ea.prim):
        return False
    return all(_same_value(x, y, terms) for x, y in zip(ea.ins, eb.ins))


def _built_here(v) -> bool:
    """A product this rule built: the lambda's own fallback, never rewritten again."""
    return type(v) is Var and v.name == _PARAMS[1]


def _rewrite(bound: dict, ctx):
    e, reshape, m = bound["e"], bound["r"], bound["m"]
    terms = ctx.terms
    if reshape.params or m.params:
        return None
    left, right = terms.children(m)
    fl, fr = _factor(left, terms), _factor(right, terms)
    if fl is None or fr is None or {fl[1], fr[1]} != {1, 2}:
        return None
    if not _same_value(fl[0], fr[0], terms) or _built_here(fl[0]):
        return None
    loc = e.loc
    pa, pv, ps = (Var.new(n) for n in _PARAMS)
    body = []

    def copy(eqn, ins):
        made = Eqn(eqn.prim, eqn.params, tuple(ins), (Var.new(),), eqn.loc, eqn.in_locs)
        body.append(made)
        return made.outs[0]

    factors = []
    for f in (left, right):
        idx = [copy(i, i.ins) for i in terms.children(f)[1:]]
        factors.append(copy(f, (pv, *idx)))
    outer = copy(m, factors)
    shaped = copy(reshape, (outer, ps))
    product = copy(e, (pa, shaped))
    fn = Function((pa, pv, ps), tuple(body), (product,))
    closure = Var.new()
    lam = Eqn("lambda", params(fn=fn), (), (closure,), loc)
    call = Eqn(PRIMITIVE, (), (closure, e.ins[0], fl[0], reshape.ins[1]), e.outs, loc)
    terms.absorb((reshape, m, left, right, *terms.children(left)[1:],
                  *terms.children(right)[1:]))
    return [lam, call]


PHASE = Phase("symmetric_products", (
    Rule("symmetric_outer_products",
         "v[:, :, None] * v[:, None, :] is symmetric in its last two axes (multiplication "
         "commutes), so column (i, j) of its reshape to (n, k*k) equals column (j, i): "
         "a @ that reshape is computed for i <= j and mirrored; v is evaluated once",
         P("dot_general", args=(P(), P("reshape", args=(P("__mul", name="m"), P()),
                                       name="r")), name="e"),
         _rewrite,
         Sample("def sample(a, v):\n    n, k = v.shape\n"
                "    yy = (v[:, :, None] * v[:, None, :]).reshape(n, k * k)\n"
                "    return DOT(a, yy)\n", normal((3, "n"), ("n", 4)),
                ("@", "np.dot", ".dot", "np.matmul", "float32", "helper"),
                helper="def sample(a, v):\n    def pairs(u):\n        return (u[:, :, None] "
                       "* u[:, None, :]).reshape(u.shape[0], -1)\n"
                       "    return DOT(a, pairs(v))\n"),
         tolerance="the half product may round differently from the whole one: rtol 1e-12 "
                   "(float64), 1e-5 (float32)",
         rtol=(1e-12, 1e-5),
         setting="symmetric_products", substrate="ir"),
))

#: the phase alone (tests)
run = PHASE.run
