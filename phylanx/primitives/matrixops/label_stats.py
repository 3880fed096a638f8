"""matrixops, k-means' labels with their counts and per-label row sums (internal primitives).

``compiler/rewrite/label_stats.py`` turns a block computing labels by
``__rows_concat`` (argmin of the distances), then ``bincount(labels)`` and
``add_at(sums, labels, x)``, into these four.  ``__rows_label_stats`` gives a
:class:`LabelStats`: the labels, the ``x`` they label and, when the fused row pass
(``fusion/rowargmin.py``) computed them, the count and the sum of the rows of ``x`` of
each label, gathered in the same loop over ``x`` that finds the labels: a k-means
iteration then reads the points once instead of three times.  Evaluated here (cold, or
without numba) it gives the labels alone, and the consumers are ``bincount`` and
``add_at`` themselves: exactly the program as written.

The consumers use gathered values only where the result is what they replaced: counts
always (integers; ``bincount``'s length from ``minlength``); sums where ``add_at``
itself would have added per-label sums to ``a`` in one step (its fast path: at least
``ROWS_FAST_TILE`` rows, at most ``ROWS_FAST_MAX`` targets), into a float array of
``x``'s dtype and width with a row for every label, sharing no memory with ``x`` or the
labels, all sums finite; otherwise ``add_at`` runs.  Errors name ``bincount`` and
``add_at``, as without the rewrite.

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
from .numpy_search import ROWS_FAST_MAX, ROWS_FAST_TILE, add_at, bincount


class LabelStats:
    """Labels of the rows of ``x``, and (or None) each label's count and row sum."""

    __slots__ = ("labels", "x", "counts", "sums")

    def __init__(self, labels: Any, x: Any, counts: np.ndarray | None = None,
                 sums: np.ndarray | None = None):
        self.labels, self.x, self.counts, self.sums = labels, x, counts, sums

    def __repr__(self) -> str:
        return f"LabelStats({self.labels!r})"


#: the example's statistics: labels [1, 0] of the rows [1, 2] and [3, -4]
_EXAMPLE = ("__rows_label_stats(lambda(t, m, argmin(matmul(t, m), 1)), "
            "[[1.0, 2.0], [3.0, -4.0]], 1, [[1.0, 0.0], [0.0, -1.0]])")

_REASON = ("internal: introduced by compiler/rewrite/label_stats.py; the oracle is the "
           "block it replaces (tests/compiler/test_rewrite_label_stats.py)")


@primitive("__rows_label_stats", "__rows_label_stats(_1_g, _2_x, _3_products, __4)",
           extension=True, internal=True, higher_order=True, takes_tiled=True, no_oracle=_REASON,
           flags={"restore": rows_restore}, example=_EXAMPLE)
def rows_label_stats(g, x, products, *operands):
    """The labels of ``__rows_concat(g, x, products, ...)``, for the ``__label_*`` primitives.

    A :class:`LabelStats`; its counts and row sums per label are gathered by the fused
    row pass (``fusion/rowargmin.py``), not here: the consumers then compute them.
    """
    return LabelStats(rows_concat(g, x, products, *operands), x)


@primitive("__label_stats_labels", "__label_stats_labels(_1_stats)", extension=True, internal=True,
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


def _trimmed(counts: np.ndarray) -> int:
    """The length ``bincount`` gives without minlength: last used label + 1."""
    used = np.flatnonzero(counts)
    return int(used[-1]) + 1 if used.size else 0


@primitive("__label_counts", "__label_counts(_1_stats, _2_minlength)", extension=True,
           internal=True,
           no_oracle=_REASON, example=f"__label_counts({_EXAMPLE}, 3)", result="[1, 1, 0]",
           flags={"restore": lambda args, loc: ast.Call(
               "bincount", (args[0], ast.KeywordArg("minlength", args[1], loc)), None, loc)})
def label_counts(stats, minlength):
    """``bincount(labels, minlength=minlength)`` from the gathered counts."""
    counts = stats.counts if type(stats) is LabelStats else None
    if counts is None:
        return _as("bincount", bincount, label_stats_labels(stats), None, minlength)
    length = max(_trimmed(counts), _as("bincount", to_count, minlength, "minlength"))
    if length <= counts.shape[0]:
        return counts[:length].copy()
    out = _as("bincount", np.zeros, length, counts.dtype)
    out[:counts.shape[0]] = counts
    return out


@primitive("__label_sums_at", "__label_sums_at(_1_a, _2_stats, _3_x)", extension=True,
           internal=True,
           side_effects=True, no_oracle=_REASON,
           example=f"__label_sums_at([[0.0, 0.0], [0.0, 0.0]], {_EXAMPLE}, "
                   "[[1.0, 2.0], [3.0, -4.0]])", result="[[3.0, -4.0], [1.0, 2.0]]",
           flags={"restore": lambda args, loc: ast.Call("add_at", tuple(args), None, loc)})
def label_sums_at(a, stats, x):
    """``add_at(a, labels, x)`` from the gathered row sums: ``a`` changed in place."""
    if type(stats) is not LabelStats:
        return _as("add_at", add_at, a, stats, x)
    if np.may_share_memory(a, stats.labels):
        stats.counts = None               # the labels change: count them again if asked
    elif _sums_fit(a, stats, x):
        used = _trimmed(stats.counts)
        if used <= a.shape[0]:            # (else add_at's error: no row for a label)
            return _as("add_at", _add_block, a, stats.sums[:used])
    return _as("add_at", add_at, a, stats.labels, x)


def _sums_fit(a: Any, stats: LabelStats, x: Any) -> bool:
    """The gathered sums give what ``add_at(a, labels, x)`` would (module docstring)."""
    sums = stats.sums
    return (sums is not None and x is stats.x and type(a) is np.ndarray and a.ndim == 2
            and a.dtype == sums.dtype and a.shape[1] == sums.shape[1]
            and a.shape[0] <= ROWS_FAST_MAX and stats.labels.shape[0] >= ROWS_FAST_TILE
            and not np.may_share_memory(a, x))


def _add_block(a: np.ndarray, sums: np.ndarray) -> np.ndarray:
    a[:sums.shape[0]] += sums
    return a
