"""Row blocks of a row reduction, a rule of the IR: ``argmin(f(x @ m, ...), 1)`` by row tiles.

Where ``f`` is element-wise (operators and primitives declared ``elementwise``) of
products ``dot_general(x, m)`` and of operands that do not read ``x``::

    argmin(f(...), 1)  ->  __rows_concat(lambda(tile_x, tile_m.., tile_v.., argmin(f', 1)),
                                         x, #m, m.., v..)

(``argmax`` too, axis 1 or -1).  ``f'`` is ``f`` over the lambda's parameters: ``x``
becomes the tile ``tile_x``, each product's right operand a ``tile_m``, every maximal
value without ``x`` a ``tile_v`` (values already computed where they stand, passed
whole).  Law: each row of ``f(x @ m)`` depends on the same row of ``x`` alone, so
``(f(x @ m))[rows] = f(x[rows] @ m)`` and the argmin of each row may be computed per
row block and the blocks' results concatenated.  The lambda's body is the original
expression over its parameters, so calling it on the whole ``x`` is the original
evaluation: ``primitives/matrixops/blocked.py`` does that whenever the values do not
allow tiling (row alignment, distributed arrays ...).

``f`` is followed through the equations of the argmin's region (an SSA edge is an edge:
``dist = ...`` then ``argmin(dist, 1)`` is one expression) where a value is read once
and only pure or binding equations stand between its equation and the argmin (nothing
changes ``x`` in place in between: the tiles read ``x`` when the argmin runs), none of
them binding again a name the moved evaluation reads (``RowSplit.movable``: raising
reads a variable by its name); the equations followed are absorbed (``IrTerms.absorb``:
they go, being read nowhere else).
A product spelled ``@``, ``np.dot``, ``.dot`` or ``np.matmul`` is one ``dot_general``, its
rule kept in the lambda.  Setting ``cache_blocking``.

Autodiff: ``__rows_concat``'s ``restore`` gives the expression back.
"""
from __future__ import annotations

from ...ir.core import Eqn, Function, Literal, Var, params, regions, walk
from .cse import _IR_QUIET_OPS, _ir_value
from .engine import P, Phase, Rule, Sample, normal
from .patterns import plain_spec

#: reductions of each row whose tiles' values are concatenated (``__rows_concat``)
ARG_REDUCTIONS = ("argmin", "argmax")
CONCAT = "__rows_concat"
TILE = "tile_x"


class NoMatch(Exception):
    """The expression followed is not an element-wise function of ``x``'s rows."""


def _axis(eqn: Eqn, terms) -> Literal | None:
    """The axis of ``argmin(e, 1)``, ``argmin(e, axis=1)`` (or -1) with nothing else, as a
    literal; else None."""
    kw = eqn.param("kw")
    if len(eqn.ins) != 2 or eqn.param("attribute") is not None \
            or kw not in (None, ("", "axis")):
        return None
    a = eqn.ins[1]
    if type(a) is Var:                       # -1 written as a negation of 1
        d = terms.defining(a)
        ok = d is not None and d.prim == "__minus" and d.ins == (Literal(1),)
        return Literal(-1) if ok else None
    return a if type(a.value) is int and a.value in (1, -1) else None


def _elementwise(eqn: Eqn) -> bool:
    spec = plain_spec(eqn.prim)
    return spec is not None and spec.elementwise and not eqn.params


def _names_read(eqn: Eqn) -> set[str]:
    """The PhySL names ``eqn`` reads by name (a ``read``; in its regions, any variable)."""
    names = {eqn.param("name")} if eqn.prim == "read" else set()
    for region in regions(eqn):
        for q in walk(region):
            names |= _names_read(q)
            names.update(a.name for a in q.ins if type(a) is Var and a.name)
    return names


class RowSplit:
    """``f`` read through the region's equations, as the lambda's body (shared with the
    gram row pass, ``gram_rows.py``).  ``whole``: the body reads ``x``, the products'
    right operands and the operands themselves (no parameters): the expression as one,
    its named parts made temporaries."""

    def __init__(self, e: Eqn, terms, in_function: bool, whole: bool = False):
        self.terms = terms
        self.in_function = in_function
        eqns = terms.region_equations()
        self.position = {o.id: i for i, q in enumerate(eqns) for o in q.outs}
        self.eqns = eqns
        self.at = self.position[e.outs[0].id]
        self.whole = whole
        self.x: Var | None = None
        self.products: list = []
        self.operands: list = []
        self.followed: list[Eqn] = []
        self.body: list[Eqn] = []
        self.tile = Var.new(TILE)
        self.m_params: list[Var] = []
        self.v_params: list[Var] = []

    def followable(self, a) -> Eqn | None:
        """The equation defining ``a`` when the tree may follow it: in this region, read
        once, only quiet equations between it and the argmin; a named variable only
        inside a function (a program's top-level name is a global later programs read)."""
        if type(a) is not Var or (a.name and not self.in_function):
            return None
        d = self.terms.defining(a)
        i = self.position.get(a.id)
        if d is None or i is None or len(self.terms.readers(a)) != 1:
            return None
        if not all(q.prim in _IR_QUIET_OPS or _ir_value(q.prim)
                   for q in self.eqns[i + 1:self.at]):
            return None
        return d

    def first_x(self, a) -> Var | None:
        """The left operand of the first product in ``a``'s tree (in order)."""
        d = self.followable(a)
        if d is None:
            return None
        if d.prim == "dot_general" and type(d.ins[0]) is Var:
            return d.ins[0]
        for b in d.ins:
            found = self.first_x(b)
            if found is not None:
                return found
        return None

    def mentions(self, a) -> bool:
        """``a`` reads ``x`` through products and element-wise equations (any other
        value, even of ``x``, is computed whole where it stands: an operand)."""
        if a == self.x:
            return True
        d = self.followable(a)
        return d is not None and (d.prim == "dot_general" or _elementwise(d)) \
            and any(self.mentions(b) for b in d.ins)

    def operand(self, a):
        """A value without ``x``: a literal stays, a variable becomes a parameter."""
        if type(a) is Literal:
            return a
        self.operands.append(a)
        if self.whole:
            return a
        self.v_params.append(Var.new(f"tile_v{len(self.operands) - 1}"))
        return self.v_params[-1]

    def movable(self) -> bool:
        """The replacement, standing where the reduction (or product) stands, reads what
        the equations followed read where they stood.  Raising nests a temporary read
        once into its reader and reads a variable by its PhySL name, so the values the
        replacement reads (``x``, the products' right operands, the operands) are
        evaluated there: between the earliest equation whose evaluation moves and the
        reduction, every other equation must change nothing in place and bind none of
        the names those evaluations read (``c = c * 2`` there would make ``c`` the new
        value)."""
        followed = {id(q) for q in self.followed}
        outs = {o.id for q in self.followed for o in q.outs}
        start, names, moved = self.at, set(), set(followed)
        todo = [a for q in self.followed for a in q.ins]
        todo += [self.x, *self.products, *self.operands]
        seen: set[int] = set()
        while todo:
            a = todo.pop()
            if type(a) is not Var or a.id in seen or a.id in outs:
                continue
            seen.add(a.id)
            if a.name:
                names.add(a.name)
                continue
            d, i = self.terms.defining(a), self.position.get(a.id)
            if d is None or i is None or len(self.terms.readers(a)) != 1:
                continue                  # computed where it stands (or bound to a name)
            start, moved = min(start, i), moved | {id(d)}
            names |= _names_read(d)
            todo.extend(d.ins)
        for q in self.followed:
            start = min(start, self.position[q.outs[0].id])
        return all(id(q) in moved or (
            (q.prim in _IR_QUIET_OPS or _ir_value(q.prim))
            and not any(o.name in names for o in q.outs if o.name))
            for q in self.eqns[start + 1:self.at])

    def emit(self, eqn: Eqn, ins) -> Var:
        made = Eqn(eqn.prim, eqn.params, tuple(ins), (Var.new(),), eqn.loc, eqn.in_locs)
        self.body.append(made)
        return made.outs[0]

    def value(self, a):
        """``a`` over the lambda's parameters (its equations copied into the body)."""
        if a == self.x:
            raise NoMatch                   # x itself outside a product
        if not self.mentions(a):
            return self.operand(a)
        d = self.followable(a)
        self.followed.append(d)
        if d.prim == "dot_general" and d.ins[0] == self.x and not self.mentions(d.ins[1]) \
                and type(d.ins[1]) is Var:
            self.products.append(d.ins[1])
            if self.whole:
                return self.emit(d, d.ins)
            self.m_params.append(Var.new(f"tile_m{len(self.products) - 1}"))
            return self.emit(d, (self.tile, self.m_params[-1]))
        if not _elementwise(d) or len(d.outs) != 1:
            raise NoMatch
        return self.emit(d, [self.value(b) for b in d.ins])


def _row_reduction(bound: dict, ctx):
    e, terms = bound["e"], ctx.terms
    axis = _axis(e, terms)
    if axis is None:
        return None
    split = RowSplit(e, terms, ctx.in_function)
    x = split.first_x(e.ins[0])
    if x is None or x.name == TILE:        # (the lambda this rule built)
        return None
    split.x = x
    try:
        inner = split.value(e.ins[0])
    except NoMatch:
        return None
    if not split.products or not split.movable():
        return None
    result = split.emit(e, (inner, axis))
    fn = Function((split.tile, *split.m_params, *split.v_params), tuple(split.body),
                  (result,))
    closure = Var.new()
    lam = Eqn("lambda", params(fn=fn), (), (closure,), e.loc)
    call = Eqn(CONCAT, (), (closure, x, Literal(len(split.products)), *split.products,
                            *split.operands), e.outs, e.loc)
    axis_eqn = terms.defining(e.ins[1]) if type(e.ins[1]) is Var else None
    terms.absorb(split.followed + ([axis_eqn] if axis_eqn is not None else []))
    return [lam, call]


PHASE = Phase("row_blocks", (
    Rule("row_blocks_of_a_row_reduction",
         "argmin/argmax along axis 1 of an element-wise f of products x @ m (and of "
         "operands without x) reads each row alone: (f(x @ m))[rows] = f(x[rows] @ m), so "
         "it may be computed per row block of x and the blocks' results concatenated",
         P(*ARG_REDUCTIONS, name="e"), _row_reduction,
         Sample("def sample(x, c):\n    d = np.sum(c * c, axis=1) - 2.0 * DOT(x, c.T)\n"
                "    return np.argmin(d, axis=1)\n", normal(("n", 3), (4, 3)),
                ("@", "np.dot", ".dot", "np.matmul", "float32", "helper"),
                helper="def sample(x, c):\n    def dist(p, q):\n        return "
                       "np.sum(q * q, axis=1) - 2.0 * DOT(p, q.T)\n"
                       "    return np.argmin(dist(x, c), axis=1)\n"),
         tolerance="a block's product may round differently from the whole one: labels "
                   "agree except for rows whose two best values tie to rounding",
         setting="cache_blocking", substrate="ir"),
))
