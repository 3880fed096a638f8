"""Row pass of a gram product, a rule of the IR: ``x.T @ f(x @ m, ...)`` reads ``x`` once.

Where ``f`` is element-wise (operators and primitives declared ``elementwise``) of
products ``dot_general(x, m)`` and of operands that do not read ``x``::

    dot_general(transpose(x), f(...))
        ->  __rows_gram(lambda(tile_x, tile_m.., tile_v.., dot_general(transpose(tile_x), f')),
                        x, #m, m.., v..)

``f'`` is ``f`` over the lambda's parameters (``row_blocks.RowSplit``, shared with the
argmin's row blocks): ``x`` becomes the tile ``tile_x``, each product's right operand a
``tile_m``, every maximal value without ``x`` a ``tile_v`` (computed where it stands,
passed whole).  Law: the product contracts over the rows of ``x`` and ``f`` reads each
row alone, so ``x.T @ f(x @ m) = sum over row blocks of x[rows].T @ f(x[rows] @ m)``.
The lambda's body is the original expression over its parameters, so calling it on the
whole ``x`` is the original evaluation: ``primitives/matrixops/blocked.py`` does that
whenever the values do not allow tiling (row alignment, distributed arrays ...).  The
sum over blocks rounds differently from one product: NumPy tiles are asked for by
``blocking_gram`` (off by default, measured slower than untiled).

By default (``blocking_gram`` off) a fused row pass computes the gram instead
(``fusion/rowpass.py``, with ``fusion_rows`` and numba), finding the pattern as one
expression in the compiled tree: the rule then keeps the product and makes the named
parts of ``f`` temporaries (``pred = sigmoid(x @ w)`` then ``x.T @ (pred - y)`` is raised
as ``x.T @ (sigmoid(x @ w) - y)``), which changes no value.  The gram written
``f @ x`` (``err @ x``, ``np.dot(err, x)``), which the fused row pass computes too, has
its named parts raised alike (never a ``__rows_gram``: a matrix ``f`` would contract
its columns with ``x``'s rows).

``f`` is followed through the equations of the product's region as the row blocks
follow theirs: an SSA edge is an edge, taken where a value is read once and only pure or
binding equations stand between its equation and the product (nothing changes ``x``,
``m`` or an operand in place in between: the tiles read them when the gram runs), none
of them binding again a name the moved evaluation reads (``w = w * 3.0`` there: raising
reads a variable by its name); the equations followed are absorbed
(``IrTerms.absorb``).  A product spelled ``@``, ``np.dot``, ``.dot`` or ``np.matmul`` is
one ``dot_general``, its rule kept; ``x.T`` and ``np.transpose(x)`` are one
``transpose``.  Setting ``cache_blocking``.

Autodiff: ``__rows_gram``'s ``restore`` gives the expression back.
"""
from __future__ import annotations

from ... import config
from ...ir.core import Eqn, Function, Literal, Var, params
from .engine import P, Phase, Rule, Sample
from .row_blocks import TILE, NoMatch, RowSplit

GRAM = "__rows_gram"


def gram_wanted() -> bool:
    """Rewrite the gram pattern: NumPy tiles asked for (``blocking_gram``), or a fused
    row pass may compute it (``fusion_rows`` with numba installed, ``fusion/rowpass.py``)."""
    if config.get("blocking_gram"):
        return True
    if not config.get("fusion_rows"):
        return False
    from ...fusion import backend_available
    return backend_available()


def _transposed(a, split: RowSplit) -> tuple[Var, Eqn] | None:
    """``(x, its transpose's equation)`` when ``a`` is ``transpose(x)`` of a variable,
    followed as the other equations are."""
    d = split.followable(a)
    if d is None or d.prim != "transpose" or d.params or len(d.ins) != 1 \
            or type(d.ins[0]) is not Var:
        return None
    return d.ins[0], d


def _named(eqns) -> bool:
    return any(o.name for q in eqns for o in q.outs)


def _raised_at_the_left(e: Eqn, ctx):
    """``f @ x`` (``x`` a variable, ``f`` element-wise of products ``x @ m``), which the
    fused row pass computes as it does ``x.T @ f`` (``RowPass.x_right``): the named
    parts of ``f`` raised into the product.  Not a ``__rows_gram``: its law is for a
    vector ``f`` only (a matrix ``f`` contracts its columns with ``x``'s rows)."""
    split = RowSplit(e, ctx.terms, ctx.in_function, whole=True)
    split.x = e.ins[1]
    try:
        inner = split.value(e.ins[0])
    except NoMatch:
        return None
    if not split.products or not split.movable() or not _named(split.followed):
        return None
    ctx.terms.absorb(split.followed)
    return [*split.body, Eqn(e.prim, e.params, (inner, split.x), e.outs, e.loc, e.in_locs)]


def _gram(bound: dict, ctx):
    e, terms = bound["e"], ctx.terms
    if len(e.ins) != 2 or len(e.outs) != 1 or type(e.ins[0]) is not Var:
        return None
    left = terms.defining(e.ins[0])
    if (left is None or left.prim != "transpose") and type(e.ins[1]) is Var \
            and e.ins[1].name != TILE and not config.get("blocking_gram") \
            and gram_wanted():
        return _raised_at_the_left(e, ctx)
    if left is None or left.prim != "transpose" or not gram_wanted():
        return None                  # (before the split, which indexes the region)
    tiles = config.get("blocking_gram")
    split = RowSplit(e, terms, ctx.in_function, whole=not tiles)
    found = _transposed(e.ins[0], split)
    if found is None or found[0].name == TILE:        # (the lambda this rule built)
        return None
    split.x, transpose = found
    try:
        inner = split.value(e.ins[1])
    except NoMatch:
        return None
    split.followed.append(transpose)
    if not split.products or not split.movable():
        return None
    absorbed = split.followed
    if not tiles:
        # the fused row pass finds the expression whole: nothing to do unless a named
        # part of it would be raised as a variable of its own
        if not _named(absorbed):
            return None
        left = split.emit(transpose, transpose.ins)
        terms.absorb(absorbed)
        return [*split.body, Eqn(e.prim, e.params, (left, inner), e.outs, e.loc, e.in_locs)]
    left = split.emit(transpose, (split.tile,))
    result = split.emit(e, (left, inner))
    fn = Function((split.tile, *split.m_params, *split.v_params), tuple(split.body),
                  (result,))
    closure = Var.new()
    lam = Eqn("lambda", params(fn=fn), (), (closure,), e.loc)
    call = Eqn(GRAM, (), (closure, split.x, Literal(len(split.products)), *split.products,
                          *split.operands), e.outs, e.loc)
    terms.absorb(absorbed)
    return [lam, call]


def _regression(rng, dtype, n):
    x = rng.normal(size=(n, 3)).astype(dtype)
    return x, (rng.uniform(size=n) > 0.5).astype(dtype), rng.normal(size=3).astype(dtype)


PHASE = Phase("gram_row_passes", (
    Rule("row_pass_of_a_gram_product",
         "x.T @ f(x @ m) is a sum over row blocks of x[rows].T @ f(x[rows] @ m) (the "
         "product contracts over the rows, f reads each row alone); f is followed through "
         "values read once with nothing changing x, m or an operand in place in between, "
         "so the row pass (fusion/rowpass.py, or NumPy tiles with blocking_gram) sees it "
         "however it is named",
         P("dot_general", name="e"), _gram,
         Sample("def sample(x, y, w):\n    p = 1.0 / (1.0 + np.exp(-DOT(x, w)))\n"
                "    g = DOT(x.T, p - y)\n    return g\n", _regression,
                ("@", "np.dot", ".dot", "np.matmul", "float32", "helper"),
                helper="def sample(x, y, w):\n    def gradient(a, b, v):\n"
                       "        p = 1.0 / (1.0 + np.exp(-DOT(a, v)))\n"
                       "        return DOT(np.transpose(a), p - b)\n"
                       "    return gradient(x, y, w)\n",
                settings=(("blocking_gram", True),)),
         tolerance="exact as rewritten by default (the product stays); with blocking_gram "
                   "the sum over blocks rounds differently, as the fused row pass it "
                   "lets run does: rtol 1e-12 (float64), 1e-5 (float32)",
         rtol=(1e-12, 1e-5),
         setting="cache_blocking", substrate="ir"),
))
