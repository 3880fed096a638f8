"""matrixops, k-means' labels with their counts and per-label row sums (internal primitives).

``compiler/rewrite/label_stats.py`` turns a block computing labels by
``__rows_concat`` (argmin of the distances), then ``bincount(labels)`` and
``add_at(sums, labels, x)``, into these four.  ``__rows_label_stats`` gives a
:class:`LabelStats`: the labels, the ``x`` they label, and the count and the sum of the
rows of ``x`` of each label.  Evaluated here, the counts and sums come from
``bincount`` and ``add_at`` on fresh zeros; the fused row pass (``fusion/rowargmin.py``)
gathers them in the same loop over ``x`` that finds the labels, so the points are read
once per iteration instead of three times.

The consumers give exactly what the expressions they replaced give: the gathered values
where they fit (``bincount``'s length from ``minlength``; ``add_at`` into a float array
of ``x``'s dtype and width with a row for every label, sharing no memory with ``x`` or
the labels, all sums finite), else ``bincount``/``add_at`` themselves on the labels,
with their errors.  Sums equal ``np.add.at``'s within float rounding (added in row
chunks, as ``add_at``'s own fast path does).

Autodiff never sees these primitives: ``restore`` gives back the expression each
replaced, the labels standing for the statistics.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import PhylanxError
from ...language import ast
from ...runtime.nodes import Node
from ..dtypes import to_count
from ..registry import primitive
from .blocked import restore as rows_restore
from .blocked import rows_concat
from .numpy_search import add_at, bincount


class LabelStats:
    """Labels of the rows of ``x``, and (or None) each label's count and row sum."""

    __slots__ = ("labels", "x", "counts", "sums")

    def __init__(self, labels: Any, x: Any, counts: np.ndarray | None = None,
                 sums: np.ndarray | None = None):
        self.labels, self.x, self.counts, self.sums = labels, x, counts, sums

    def __repr__(self) -> str:
        return f"LabelStats({self.labels!r})"


def gathered(labels: Any, x: Any) -> LabelStats:
    """The statistics of ``labels`` over ``x`` computed as bincount/add_at would, or
    none (the consumers then call those) when ``x`` is not a float matrix or a sum is
    not finite (add_at must then give NumPy's own result and warnings)."""
    if not (type(labels) is np.ndarray and labels.ndim == 1 and labels.dtype.kind in "iu"
            and type(x) is np.ndarray and x.ndim == 2 and x.dtype.kind == "f"
            and labels.shape[0] == x.shape[0]):
        return LabelStats(labels, x)
    counts = np.bincount(labels)
    sums = np.zeros((counts.shape[0], x.shape[1]), dtype=x.dtype)
    with np.errstate(all="ignore"):
        add_at(sums, labels, x)
    if not np.all(np.isfinite(sums)):
        return LabelStats(labels, x, counts)
    return LabelStats(labels, x, counts, sums)


#: the example's statistics: labels [1, 0] of the rows [1, 2] and [3, -4]
_EXAMPLE = ("__rows_label_stats(lambda(t, m, argmin(matmul(t, m), 1)), "
            "[[1.0, 2.0], [3.0, -4.0]], 1, [[1.0, 0.0], [0.0, -1.0]])")

_REASON = ("internal: introduced by compiler/rewrite/label_stats.py; the oracle is the "
           "block it replaces (tests/compiler/test_rewrite_label_stats.py)")


@primitive("__rows_label_stats", "__rows_label_stats(_1_g, _2_x, _3_products, __4)",
           extension=True, higher_order=True, no_oracle=_REASON,
           flags={"restore": rows_restore}, example=_EXAMPLE)
def rows_label_stats(g, x, products, *operands):
    """The labels of ``__rows_concat(g, x, products, ...)`` with their counts and row sums.

    A :class:`LabelStats`, read by the other ``__label_*`` primitives: each label's count
    and sum of the rows of ``x``.
    """
    return gathered(rows_concat(g, x, products, *operands), x)


@primitive("__label_stats_labels", "__label_stats_labels(_1_stats)", extension=True,
           no_oracle=_REASON, flags={"restore": lambda args, loc: args[0]},
           example=f"__label_stats_labels({_EXAMPLE})", result="[1, 0]")
def label_stats_labels(stats):
    """The labels of a :class:`LabelStats`."""
    return stats.labels if type(stats) is LabelStats else stats


def _as(name: str, fn, *args) -> Any:
    """``fn(*args)`` with its errors naming ``name``, the primitive the user wrote."""
    try:
        return fn(*args)
    except PhylanxError as e:
        if e.primitive is None:
            e.primitive = name
        raise
    except Exception as e:  # noqa: BLE001 - what the node would make of it, named
        raise Node(name, None).wrap(e) from e


def _labels(stats) -> Any:
    return stats.labels if type(stats) is LabelStats else stats


def _trimmed(counts: np.ndarray) -> int:
    """The length ``bincount`` gives without minlength: last used label + 1."""
    used = np.flatnonzero(counts)
    return int(used[-1]) + 1 if used.size else 0


@primitive("__label_counts", "__label_counts(_1_stats, _2_minlength)", extension=True,
           no_oracle=_REASON, example=f"__label_counts({_EXAMPLE}, 3)", result="[1, 1, 0]",
           flags={"restore": lambda args, loc: ast.Call(
               "bincount", (args[0], ast.KeywordArg("minlength", args[1], loc)), None, loc)})
def label_counts(stats, minlength):
    """``bincount(labels, minlength=minlength)`` from the gathered counts."""
    counts = stats.counts if type(stats) is LabelStats else None
    if counts is None:
        return _as("bincount", bincount, _labels(stats), None, minlength)
    length = max(_trimmed(counts), _as("bincount", to_count, minlength, "minlength"))
    if length <= counts.shape[0]:
        return counts[:length].copy()
    out = np.zeros(length, dtype=counts.dtype)
    out[:counts.shape[0]] = counts
    return out


@primitive("__label_sums_at", "__label_sums_at(_1_a, _2_stats, _3_x)", extension=True,
           side_effects=True, no_oracle=_REASON,
           example=f"__label_sums_at([[0.0, 0.0], [0.0, 0.0]], {_EXAMPLE}, "
                   "[[1.0, 2.0], [3.0, -4.0]])", result="[[3.0, -4.0], [1.0, 2.0]]",
           flags={"restore": lambda args, loc: ast.Call("add_at", tuple(args), None, loc)})
def label_sums_at(a, stats, x):
    """``add_at(a, labels, x)`` from the gathered row sums: ``a`` changed in place."""
    if type(stats) is not LabelStats:
        return _as("add_at", add_at, a, stats, x)
    sums = stats.sums
    if np.may_share_memory(a, stats.labels):
        stats.counts = None               # the labels change: count them again if asked
        sums = None
    if sums is None or x is not stats.x or type(a) is not np.ndarray or a.ndim != 2 \
            or a.dtype != sums.dtype or a.shape[1] != sums.shape[1] \
            or np.may_share_memory(a, x):
        return _as("add_at", add_at, a, stats.labels, x)
    used = _trimmed(stats.counts) if stats.counts is not None else sums.shape[0]
    if used > a.shape[0]:
        return _as("add_at", add_at, a, stats.labels, x)   # no row for a label: its error
    a[:used] += sums[:used]
    return a
