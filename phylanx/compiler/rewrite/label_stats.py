"""Label statistics rule: labels, their counts and the per-label row sums in one pass (a
rule of the IR).

After the row-block rule (``row_blocks.py``), a program labelling rows by their nearest
centre and summing them per label (k-means, any clustering step) reads the rows three
times; in one region of the IR (a function's body, a loop's, a branch)::

    labels = __rows_concat(g, x, #m, ...)          # argmin of the distances, row blocks
    ...
    counts = bincount(labels[, minlength=k])
    ...
    add_at(a, labels, x)                           # np.add.at(a, labels, x)

The counts and the sums of the rows of ``x`` per label can be gathered while each row's
label is found, in the same loop over ``x`` (``fusion/rowargmin.py``).  The rule
rewrites the region to::

    __labelstats1 = __rows_label_stats(g, x, #m, ...)
    labels = __label_stats_labels(__labelstats1)
    counts = __label_counts(__labelstats1, k)
    __label_sums_at(a, __labelstats1, x)

(``primitives/matrixops/label_stats.py``), each equal to what it replaces: the
consumers use the counts and sums the fused row pass gathered when they are there and
give what ``bincount``/``add_at`` would, and otherwise call those on the labels.

Law: ``bincount(labels)`` and ``add_at(a, labels, x)`` are sums over the rows of ``x``,
each row adding to its own label's entry, and ``labels`` is a value of the rows of
``x``; so both may be gathered in the pass over ``x`` that finds the labels, provided
``labels`` and ``x`` hold the same values when the consumers read them.  In SSA the
operands name the values (a rebinding of ``x`` or ``labels`` is another variable, which
the consumers then read: no match, whatever the program's spelling or the helper it
came from); what SSA does not show is a change in place through another name, so every
equation between the labels and the later consumer is pure or binds (``cse``'s quiet
equations), the other consumer excepted, and all three are equations of one region.
``bincount`` has no weights (``minlength`` any operand; absent, 0); ``a`` is a variable
other than ``labels`` and ``x``.  The add_at may change ``a`` in place; the consumers
check at run time that ``a`` shares no memory with ``x`` or the labels before they use
what was gathered.  Only regions inside a function: a program's top-level statements
bind names other statements may read or change.

Autodiff: every primitive here has ``restore``, which gives back the expression it
replaced (the labels themselves stand for the statistics).
"""
from __future__ import annotations

from dataclasses import replace

from ...ir.core import Eqn, Function, Literal, Var
from .cse import _IR_QUIET_OPS, _ir_value
from .engine import P, Phase, Rule, Sample, normal
from .hoist import _FreshNames
from .row_blocks import CONCAT

STATS, LABELS, COUNTS, SUMS_AT = ("__rows_label_stats", "__label_stats_labels",
                                  "__label_counts", "__label_sums_at")
PREFIX = "__labelstats"

#: equations holding regions whose equations the rule rewrites
_HOLDERS = ("function", "lambda", "for_each", "while", "cond", "async")


def _plain(eqn: Eqn, prim: str) -> bool:
    """``eqn`` applies ``prim`` as a function (not a method)."""
    return eqn.prim == prim and eqn.param("attribute") is None


def _minlength(eqn: Eqn, labels: Var):
    """The minlength operand of ``bincount(labels ...)`` without weights (a literal 0 when
    absent), or None when it is not that."""
    if not (_plain(eqn, "bincount") and eqn.ins and eqn.ins[0] == labels):
        return None
    names = eqn.param("kw") or ("",) * len(eqn.ins)
    if names[0]:
        return None
    positional = [a for a, n in zip(eqn.ins[1:], names[1:]) if not n]
    keywords = {n: a for a, n in zip(eqn.ins[1:], names[1:]) if n}
    if set(keywords) - {"minlength", "weights"} or len(positional) > 2 \
            or len(positional) + len(keywords) > 2:
        return None
    weights = positional[0] if positional else keywords.get("weights")
    if weights is not None and weights != Literal(None):
        return None
    minlength = positional[1] if len(positional) == 2 else keywords.get("minlength")
    return Literal(0) if minlength is None else minlength


def _sums(eqn: Eqn, labels: Var, x: Var) -> bool:
    """``eqn`` is ``add_at(a, labels, x)`` into a variable ``a`` other than both."""
    return (_plain(eqn, "add_at") and not eqn.param("kw") and len(eqn.ins) == 3
            and eqn.ins[1] == labels and eqn.ins[2] == x and type(eqn.ins[0]) is Var
            and eqn.ins[0] not in (labels, x))


def _quiet(eqn: Eqn) -> bool:
    """``eqn`` changes nothing in place: a pure value, a binding, a definition."""
    return eqn.prim in _IR_QUIET_OPS or _ir_value(eqn.prim)


def _labels(eqn: Eqn) -> bool:
    return (_plain(eqn, CONCAT) and not eqn.param("kw") and len(eqn.ins) >= 4
            and len(eqn.outs) == 1 and type(eqn.ins[1]) is Var)


def _consumers(eqns: tuple, i: int) -> dict | None:
    """{"counts": (index, minlength), "sums": (index, None)} of the consumers of the
    labels ``eqns[i]`` defines, or None when they are not both there with only quiet
    equations between."""
    labels, x = eqns[i].outs[0], eqns[i].ins[1]
    found: dict = {}
    for j in range(i + 1, len(eqns)):
        eqn = eqns[j]
        minlength = _minlength(eqn, labels) if "counts" not in found else None
        if minlength is not None:
            found["counts"] = (j, minlength)
        elif "sums" not in found and _sums(eqn, labels, x):
            found["sums"] = (j, None)
        elif not _quiet(eqn):
            return None
        if len(found) == 2:
            return found
    return None


def _region(fn: Function, names: _FreshNames) -> Function:
    """``fn`` with every occurrence of the pattern in its own equations rewritten (the
    same object when there is none)."""
    eqns = list(fn.eqns)
    i = 0
    while i < len(eqns):
        found = _consumers(eqns, i) if _labels(eqns[i]) else None
        if found is None:
            i += 1
            continue
        e = eqns[i]
        stats = Var.new(names.fresh())
        j, minlength = found["counts"]
        counts = eqns[j]
        at = [loc for a, loc in zip(counts.ins, counts.in_locs) if a is minlength]
        eqns[j] = Eqn(COUNTS, (), (stats, minlength), counts.outs, counts.loc,
                      (counts.in_locs[0], at[0] if at else counts.loc)
                      if counts.in_locs else ())
        j, _ = found["sums"]
        sums = eqns[j]
        eqns[j] = Eqn(SUMS_AT, (), (sums.ins[0], stats, sums.ins[2]), sums.outs, sums.loc,
                      sums.in_locs)
        eqns[i:i + 1] = [Eqn(STATS, (), e.ins, (stats,), e.loc, e.in_locs),
                         Eqn(LABELS, (), (stats,), e.outs, e.loc)]
        i += 2
    if len(eqns) == len(fn.eqns):
        return fn
    return Function(fn.params, tuple(eqns), fn.results, fn.name)


def _in_function(eqn: Eqn, ctx) -> bool:
    """``eqn``'s regions are inside a function (a function is its own)."""
    return ctx.in_function or eqn.prim in ("function", "lambda")


def _statistics(bound: dict, ctx):
    e = bound["e"]
    names = ctx.state("label_stats_names", lambda: _FreshNames(ctx.program, PREFIX))
    ps = tuple((k, _region(v, names) if type(v) is Function else v) for k, v in e.params)
    if all(a[1] is b[1] for a, b in zip(ps, e.params)):
        return None
    return [replace(e, params=ps)]


PHASE = Phase("label_statistics", (
    Rule("label_statistics_in_the_row_pass",
         "the counts of labels (bincount) and the per-label sums of rows (add_at, "
         "one-hot(labels)^T x) are sums over the rows, each row adding to its own label's "
         "entry: they may be gathered in the row pass that finds each row's label, "
         "when nothing changes the labels or x in between",
         P(*_HOLDERS, name="e", where=_in_function), _statistics,
         Sample("def sample(x, c):\n    k = c.shape[0]\n"
                "    labels = np.argmin(np.sum(c * c, axis=1) - 2.0 * DOT(x, c.T), axis=1)\n"
                "    counts = np.bincount(labels, minlength=k)\n"
                "    sums = np.zeros((k, x.shape[1]), dtype=x.dtype)\n"
                "    np.add.at(sums, labels, x)\n"
                "    return sums / np.maximum(counts, 1)[:, None]\n",
                normal(("n", 3), (4, 3)),
                ("@", "np.dot", ".dot", "np.matmul", "float32", "helper"),
                helper="def sample(x, c):\n    def nearest(p, q):\n"
                       "        return np.argmin(np.sum(q * q, axis=1) - 2.0 * DOT(p, q.T), "
                       "axis=1)\n"
                       "    labels = nearest(x, c)\n"
                       "    counts = np.bincount(labels, minlength=c.shape[0])\n"
                       "    sums = np.zeros(c.shape, dtype=x.dtype)\n"
                       "    np.add.at(sums, labels, x)\n"
                       "    return sums / np.maximum(counts, 1)[:, None]\n"),
         tolerance="sums in row order, as add_at: rtol 1e-12 (float64), 1e-5 (float32); "
                   "labels as row_blocks_of_a_row_reduction",
         rtol=(1e-12, 1e-5),
         setting="cache_blocking", substrate="ir"),
))

#: the phase alone (tests)
run = PHASE.run
