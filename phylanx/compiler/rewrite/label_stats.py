"""Label statistics rule: labels, their counts and the per-label row sums in one pass.

After the row-block rule (``blocking.py``), a program labelling rows by their nearest
centre and summing them per label (k-means, any clustering step) reads the rows three
times::

    define(labels, __rows_concat(g, x, ...))          # argmin of the distances (or store)
    define(counts, bincount(labels, __arg(minlength, k)))
    define(sums, ...)
    add_at(sums, labels, x)                            # np.add.at(sums, labels, x)

The counts and the sums of the rows of ``x`` per label can be gathered while each row's
label is found, in the same loop over ``x`` (``fusion/rowargmin.py``).  The rule
rewrites such a block to::

    define(__labelstats1, __rows_label_stats(g, x, ...))
    define(labels, __label_stats_labels(__labelstats1))
    define(counts, __label_counts(__labelstats1, k))
    define(sums, ...)
    __label_sums_at(sums, __labelstats1, x)

(``primitives/matrixops/label_stats.py``), each equal to what it replaces: the
consumers use the counts and sums the fused row pass gathered when they are there and
give what ``bincount``/``add_at`` would, and otherwise call those on the labels.

The rewrite holds only where nothing can change ``labels`` or ``x`` between the
``define`` and the consumers: both are statements of the same block (inside a function),
every statement between them is a ``define``/``store`` of another name with a pure
value (``patterns.pure``) or the other consumer, ``labels`` and ``x`` are plain variable
reads, and both consumers are present (``bincount(labels)`` with no weights,
``add_at(a, labels, x)`` with ``a`` another variable).  The add_at may change ``a``
in place; the consumers check at run time that ``a`` shares no memory with ``x`` or the
labels before they use what was gathered.

Autodiff: every primitive here has ``restore``, which gives back the expression it
replaced (the labels themselves stand for the statistics).
"""
from __future__ import annotations

from ...language import ast
from .blocking import CONCAT
from .engine import P, Phase, Rule, Sample, normal
from .patterns import pure
from .tree import Names, rebuild

STATS, LABELS, COUNTS, SUMS_AT = ("__rows_label_stats", "__label_stats_labels",
                                  "__label_counts", "__label_sums_at")
PREFIX = "__labelstats"


def _defined(stmt) -> tuple[str, object] | None:
    """``(name, value)`` of ``define(name, value)`` / ``store(name, value)``."""
    if type(stmt) is ast.Call and stmt.func in ("define", "store") and len(stmt.args) == 2 \
            and type(stmt.args[0]) is ast.Identifier and stmt.attribute is None:
        return stmt.args[0].name, stmt.args[1]
    return None


def _is(e, name: str) -> bool:
    return type(e) is ast.Identifier and e.name == name


def _minlength(call) -> object | None:
    """The minlength argument of ``bincount(labels ...)`` with no weights (a literal 0
    when absent), or None when it has weights or unknown arguments."""
    rest = call.args[1:]
    keywords = {a.name: a.value for a in rest if type(a) is ast.KeywordArg}
    positional = [a for a in rest if type(a) is not ast.KeywordArg]
    if set(keywords) - {"minlength", "weights"} or len(positional) > 2:
        return None
    weights = positional[0] if positional else keywords.get("weights")
    if weights is not None and not (type(weights) is ast.Literal and weights.value is None):
        return None
    minlength = positional[1] if len(positional) == 2 else keywords.get("minlength")
    if minlength is None:
        return ast.Literal(0, call.loc)
    return minlength if pure(minlength) else None


def _consumer(stmt, labels: str, x: str):
    """``(kind, call, wrap, minlength)`` if ``stmt`` is ``[define(v, )]bincount(labels
    ...)`` (kind "counts") or ``[block(]add_at(a, labels, x)[, nil)]`` ("sums", no
    minlength): ``wrap(new_call)`` is the statement with the call replaced."""
    bound = _defined(stmt)
    if bound is not None and bound[0] not in (labels, x):
        call, wrap = bound[1], (lambda new, s=stmt: ast.Call(s.func, (s.args[0], new),
                                                              None, s.loc))
    elif type(stmt) is ast.Call and stmt.func == "block" and len(stmt.args) == 2 \
            and type(stmt.args[1]) is ast.Literal and stmt.args[1].value is None:
        call, wrap = stmt.args[0], (lambda new, s=stmt: ast.Call("block", (new, s.args[1]),
                                                                  None, s.loc))
    else:
        call, wrap = stmt, (lambda new: new)
    if type(call) is not ast.Call or call.attribute is not None or not call.args:
        return None
    if call.func == "bincount" and _is(call.args[0], labels):
        minlength = _minlength(call)
        return None if minlength is None else ("counts", call, wrap, minlength)
    if call.func == "add_at" and len(call.args) == 3 and _is(call.args[1], labels) \
            and _is(call.args[2], x) and type(call.args[0]) is ast.Identifier \
            and call.args[0].name not in (labels, x) and bound is None:
        return "sums", call, wrap, None
    return None


def _harmless(stmt, labels: str, x: str) -> bool:
    """``stmt`` changes neither ``labels`` nor ``x``: a pure value bound to another name."""
    bound = _defined(stmt)
    return bound is not None and bound[0] not in (labels, x) and pure(bound[1])


class _Block:
    """The statements of one block, rewritten where the pattern starts."""

    def __init__(self, names: Names):
        self.names = names

    def rewrite(self, stmts: tuple) -> tuple | None:
        out = list(stmts)
        changed = False
        i = 0
        while i < len(out):
            replaced = self.at(out, i)
            changed = changed or bool(replaced)
            i += 1 + replaced
        return tuple(out) if changed else None
    def at(self, stmts: list, i: int) -> int:
        """Rewrite the pattern starting at statement ``i``; the statements added."""
        bound = _defined(stmts[i])      # define, or store (labels used after a loop)
        if bound is None:
            return 0
        labels, value = bound
        if not (type(value) is ast.Call and value.func == CONCAT and len(value.args) >= 4
                and type(value.args[1]) is ast.Identifier and value.attribute is None):
            return 0
        x = value.args[1].name
        if x == labels:
            return 0
        found: dict = {}
        for j in range(i + 1, len(stmts)):
            made = _consumer(stmts[j], labels, x)
            if made is not None and made[0] not in found:
                found[made[0]] = (j, made)
                if len(found) == 2:
                    break
            elif not _harmless(stmts[j], labels, x):
                return 0
        if len(found) != 2:
            return 0
        loc = value.loc
        stats = ast.Identifier(self.names.fresh(), loc)
        j, (_, call, wrap, minlength) = found["counts"]
        stmts[j] = wrap(ast.Call(COUNTS, (stats, minlength), None, call.loc))
        j, (_, call, wrap, _) = found["sums"]
        stmts[j] = wrap(ast.Call(SUMS_AT, (call.args[0], stats, call.args[2]), None,
                                 call.loc))
        target = stmts[i].args[0]
        stmts[i:i + 1] = [
            ast.Call("define", (stats, ast.Call(STATS, value.args, None, loc)), None, loc),
            ast.Call(stmts[i].func, (target, ast.Call(LABELS, (stats,), None, loc)), None,
                     stmts[i].loc)]
        self.changed = True
        return 1


def _statistics(bound: dict, ctx):
    block = bound["e"]
    stmts = _Block(ctx.names(PREFIX)).rewrite(block.args)
    return None if stmts is None else rebuild(block, stmts)


PHASE = Phase("label_statistics", (
    Rule("label_statistics_in_the_row_pass",
         "the counts of labels (bincount) and the per-label sums of rows (add_at, "
         "one-hot(labels)^T x) are sums over the rows, each row adding to its own label's "
         "entry: they may be gathered in the row pass that finds each row's label, "
         "when nothing changes the labels or x in between",
         P("block", name="e", where=lambda e, ctx: ctx.in_function), _statistics,
         Sample("def sample(x, c):\n    k = c.shape[0]\n"
                "    labels = np.argmin(np.sum(c * c, axis=1) - 2.0 * DOT(x, c.T), axis=1)\n"
                "    counts = np.bincount(labels, minlength=k)\n"
                "    sums = np.zeros((k, x.shape[1]), dtype=x.dtype)\n"
                "    np.add.at(sums, labels, x)\n"
                "    return sums / np.maximum(counts, 1)[:, None]\n",
                normal(("n", 3), (4, 3)),
                ("@", "np.dot", ".dot", "float32")),
         tolerance="sums in row order, as add_at: rtol 1e-12 (float64), 1e-5 (float32); "
                   "labels as row_blocks_of_a_row_reduction",
         rtol=(1e-12, 1e-5),
         setting="cache_blocking"),
), wanted=lambda facts: CONCAT in facts.used and "add_at" in facts.used)

#: the phase alone (tests)
run = PHASE.run
