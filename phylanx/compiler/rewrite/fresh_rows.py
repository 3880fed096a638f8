"""Fresh row tables, a rule of the IR: an array allocated with ``x``'s rows, that no other
name holds, is allocated by ``__fresh_rows_of(x, ...)``.

A function that fills a fresh ``(x.shape[0], k)`` table column by column or row block
by row block (k-means' distances to each centre, a per-class log-likelihood, distances
to anchors) and only reduces it afterwards::

    d = np.zeros((x.shape[0], k))            # also np.ones, np.empty, np.full
    for j in range(k):
        d[:, j] = <a value of x's rows>
    labels = np.argmin(d, axis=1)

becomes ``d = __fresh_rows_of(x, shape, value, dtype)``, which is the same
``full(shape, value, dtype)`` for a plain ``x`` and, in the distributed layer, the table
allocated with the row tiling of a row-tiled ``x`` (``dist_matrixops/creation.py``): each
column stored from a value tiled like ``x`` is then a store into the rank's own rows, and
the reductions of the table stay on the rank's rows, where a plain table takes every
stored column whole (a gather) and reduces every row on every rank.

Law: an array's values do not depend on where its elements are kept; only sharing can
tell a tiled array from a plain one (a store through one name seen through another).  So
the rule fires only when the compiled program proves the array is not shared: following
the SSA versions of ``d`` through its element stores (``update``) and the loops and
branches that carry it, every read is an operand of a primitive that makes a new value of
it (the arithmetic, statistics and comparison categories, ``argmin``, ``argmax``,
``shape``; ``diff`` only of a literal order of 1 or more: ``np.diff(a, n=0)`` returns
``a`` itself), never a binding to another name, a call, a container, a subscript read (a
view), a nested function, or the function's result.  The facts are the program's, so
every rank decides alike; at run time the tiling is decided from ``x``'s layout, which
every rank holds alike.  The dtype is NumPy's: ``np.zeros`` without one is float64 (a
dtype operand that is not a literal string: no match).

Autodiff: ``__fresh_rows_of``'s ``restore`` gives ``full(shape, value, dtype)`` back.
"""
from __future__ import annotations

from dataclasses import replace

from ...ir.core import Eqn, Function, Literal, Var, regions, walk
from .cse import _ir_consumes
from .engine import P, Phase, Rule, Sample, normal

ALLOC = "__fresh_rows_of"
#: readers that make a new value of the table besides cse's (``_ir_consumes``)
_READERS = frozenset(("argmin", "argmax", "shape"))
#: equations carrying values through regions: index of the first carried operand
_CARRIERS = {"for_each": 1, "while": 0, "cond": 1}
#: forms whose regions run in another frame or later: a read there is a share
_FRAMES = frozenset(("function", "lambda", "async"))


class _Shared(Exception):
    """The table may be seen through another name."""


def _uses(fn: Function) -> dict:
    """Per variable id, its uses in ``fn``: ``("in", eqn, index, framed)`` as an
    operand, ``("out", holder, key, position, framed)`` as a region's result."""
    uses: dict = {}

    def visit(f: Function, framed: bool) -> None:
        for eqn in f.eqns:
            for i, a in enumerate(eqn.ins):
                if type(a) is Var:
                    uses.setdefault(a.id, []).append(("in", eqn, i, framed))
            for key, region in eqn.params:
                if type(region) is not Function:
                    continue
                inner = framed or eqn.prim in _FRAMES
                for pos, r in enumerate(region.results):
                    if type(r) is Var:
                        uses.setdefault(r.id, []).append(("out", eqn, key, pos, inner))
                visit(region, inner)
    visit(fn, False)
    for pos, r in enumerate(fn.results):    # the function's own result: it escapes
        if type(r) is Var:
            uses.setdefault(r.id, []).append(("out", None, None, pos, True))
    return uses


def _carried(holder: Eqn, slot: int) -> list[Var]:
    """The variables holding carried value ``slot`` of ``holder``: its output and each
    region's parameter."""
    found = [holder.outs[1 + slot]]
    offset = 1 if holder.prim == "for_each" else 0      # (a for_each's item first)
    found.extend(region.params[offset + slot] for region in regions(holder))
    return found


def _reads_afresh(eqn: Eqn) -> bool:
    if eqn.param("attribute") is not None:
        return False
    if eqn.prim == "diff":
        return _diff_order(eqn) >= 1        # np.diff(a, n=0) returns ``a`` itself
    return eqn.prim in _READERS or _ir_consumes(eqn.prim)


def _diff_order(eqn: Eqn) -> int:
    """The literal order ``n`` of a ``diff`` equation (1 when not given), or 0 when the
    program computes it (it may be 0)."""
    names = eqn.param("kw") or ("",) * len(eqn.ins)
    positional = [a for a, n in zip(eqn.ins, names) if not n]
    named = {n: a for a, n in zip(eqn.ins, names) if n}
    order = named.get("n", positional[1] if len(positional) > 1 else Literal(1))
    return order.value if type(order) is Literal and type(order.value) is int else 0


def _unshared(start: Var, uses: dict) -> bool:
    """True when every version of ``start`` is only stored into, carried, or read by
    primitives making new values (module doc)."""
    family, todo, required = {start.id}, [start], []
    try:
        while todo:
            v = todo.pop()
            for use in uses.get(v.id, ()):
                if use[-1]:
                    raise _Shared
                for new in _versions(use, required):
                    if new.id not in family:
                        family.add(new.id)
                        todo.append(new)
    except _Shared:
        return False
    return all(a.id in family for a in required)


def _versions(use: tuple, required: list) -> list[Var]:
    """The variables a use makes the same storage (raises :class:`_Shared`)."""
    if use[0] == "in":
        _, eqn, i, _ = use
        if eqn.prim == "update" and i == 0 and eqn.param("indexer") == "__subscript":
            return [eqn.outs[0]]
        first = _CARRIERS.get(eqn.prim)
        if first is not None and i >= first:
            return _carried(eqn, i - first)
        if eqn.prim not in _CARRIERS and _reads_afresh(eqn):
            return []
        raise _Shared
    _, holder, _, pos, _ = use
    first = None if holder is None else _CARRIERS.get(holder.prim)
    if first is None or pos < 1:
        raise _Shared                   # a function's result or a region's value
    slot = pos - 1
    required.append(holder.ins[first + slot])   # what enters the slot: this storage
    return _carried(holder, slot)


def _allocation(eqn: Eqn, defs: dict, uses: dict):
    """``(x, shape, value, dtype)`` of ``d = __asndarray(__npconstant(value, shape[,
    dtype]))`` or of ``full(shape, value[, dtype])`` with ``shape`` ``x.shape[0]`` or a
    tuple starting with it; else None."""
    if eqn.prim != "__asndarray" or eqn.params or len(eqn.ins) != 1 \
            or type(eqn.ins[0]) is not Var or len(uses.get(eqn.ins[0].id, ())) != 1:
        return None
    made = defs.get(eqn.ins[0].id)
    if made is None or made.param("attribute") is not None:
        return None
    names = made.param("kw") or ("",) * len(made.ins)
    positional = [a for a, n in zip(made.ins, names) if not n]
    named = {n: a for a, n in zip(made.ins, names) if n}
    if made.prim == "__npconstant" and len(positional) in (2, 3) and set(named) <= {"dtype"} \
            and len(positional) + len(named) <= 3:
        value, shape = positional[:2]
        dtype = (positional[2:] or [named.get("dtype", Literal("float64"))])[0]
        if type(dtype) is not Literal or type(dtype.value) is not str:
            return None
    elif made.prim == "full" and len(positional) in (2, 3) and set(named) <= {"dtype"} \
            and len(positional) + len(named) <= 3:
        shape, value = positional[:2]
        dtype = (positional[2:] or [named.get("dtype", Literal(None))])[0]
    else:
        return None
    x = _rows_of(shape, defs)
    return None if x is None else (made, (x, shape, value, dtype))


def _rows_of(shape, defs: dict) -> Var | None:
    """``x`` when ``shape`` is ``x.shape[0]`` or ``len(x)`` (the same number for an
    array, and a list ``x`` only ever gets the plain table), or a tuple or list whose
    first item is (a name bound to it first is followed by its definition)."""
    if type(shape) is not Var:
        return None
    d = defs.get(shape.id)
    if d is not None and d.prim in ("tuple", "list") and d.ins and not d.params:
        first = d.ins[0]
        d = defs.get(first.id) if type(first) is Var else None
    if d is not None and d.prim == "__len" and not d.params and len(d.ins) == 1 \
            and type(d.ins[0]) is Var:
        return d.ins[0]
    if d is None or d.prim != "__subscript" or d.params or len(d.ins) != 2 \
            or d.ins[1] != Literal(0) or type(d.ins[0]) is not Var:
        return None
    s = defs.get(d.ins[0].id)
    if s is None or s.prim != "shape" or s.params or len(s.ins) != 1 \
            or type(s.ins[0]) is not Var:
        return None
    return s.ins[0]


def _rewritten(fn: Function, changes: dict, dropped: set) -> Function:
    """``fn`` with the equations of ``changes`` (by id) replaced, ``dropped`` left out."""
    eqns = []
    for eqn in fn.eqns:
        if id(eqn) in dropped:
            continue
        eqn = changes.get(id(eqn), eqn)
        ps = tuple((k, _rewritten(v, changes, dropped) if type(v) is Function else v)
                   for k, v in eqn.params)
        if any(a[1] is not b[1] for a, b in zip(ps, eqn.params)):
            eqn = replace(eqn, params=ps)
        eqns.append(eqn)
    if len(eqns) == len(fn.eqns) and all(a is b for a, b in zip(eqns, fn.eqns)):
        return fn
    return Function(fn.params, tuple(eqns), fn.results, fn.name)


def _unframed(fn: Function):
    """The equations of ``fn`` and of its loops' and branches' regions (not of the
    functions it defines)."""
    for eqn in fn.eqns:
        yield eqn
        if eqn.prim not in _FRAMES:
            for region in regions(eqn):
                yield from _unframed(region)


def _fresh_tables(bound: dict, ctx):
    e = bound["e"]
    fn = e.param("fn")
    if type(fn) is not Function:
        return None
    defs = {v.id: eqn for eqn in walk(fn) for v in eqn.outs}
    uses = _uses(fn)
    changes, dropped = {}, set()
    for eqn in _unframed(fn):
        found = _allocation(eqn, defs, uses)
        if found is None or not _unshared(eqn.outs[0], uses):
            continue
        made, operands = found
        changes[id(eqn)] = Eqn(ALLOC, (), operands, eqn.outs, eqn.loc)
        dropped.add(id(made))
    if not changes:
        return None
    return [replace(e, params=tuple((k, _rewritten(v, changes, dropped)
                                     if type(v) is Function else v) for k, v in e.params))]


_SAMPLE = ("def sample(x, c):\n"
           "    d = np.zeros((x.shape[0], c.shape[0]))\n"
           "    for j in range(c.shape[0]):\n"
           "        d[:, j] = np.sum((x - c[j]) ** 2, axis=1)\n"
           "    return np.min(d, axis=1) + np.argmin(d, axis=1)\n")
_HELPER = ("def sample(x, c):\n"
           "    def table(p, q):\n"
           "        d = np.zeros((p.shape[0], q.shape[0]))\n"
           "        for j in range(q.shape[0]):\n"
           "            d[:, j] = np.sum((p - q[j]) ** 2, axis=1)\n"
           "        return np.min(d, axis=1) + np.argmin(d, axis=1)\n"
           "    return table(x, c)\n")

PHASE = Phase("fresh_row_tables", (
    Rule("fresh_table_with_the_rows_of_x",
         "an array's values do not depend on where its elements are kept; an array no "
         "other name holds (only stored into, carried, and read by primitives making new "
         "values) may be allocated with the row tiling of the array whose rows it has",
         P("function", "lambda", name="e"), _fresh_tables,
         Sample(_SAMPLE, normal(("n", 3), (4, 3)), ("float32", "helper"), helper=_HELPER),
         substrate="ir"),
))

#: the phase alone (tests)
run = PHASE.run
