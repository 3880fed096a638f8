"""Data-parallel training: ``model.fit(x, y, distributed="data")`` under ``phylanx run -n N``.

Every locality passes the same full ``x, y`` (and seed); each trains on its shard of
every global batch (rows ``offset:stop``, a near-equal split by rank), starting from
rank 0's weights (broadcast when ``fit`` begins).  The step program is the ordinary one
(forward, generated backward, optimizer update) plus, *right after the statement that
completes each weight gradient*::

    define(r, async(all_reduce(__mul(grad, shard_weight), "sum", "grad_<layer>_<weight>")))

``shard_weight`` is this shard's share of the global batch (``(stop - offset) / batch``):
every loss is a mean over the batch, so the sum over ranks of share x shard gradient is
the full-batch gradient, also for a smaller last batch.  The ``async`` collective starts
as soon as its gradient exists and runs while the backward pass goes on to the earlier
layers; only the optimizer's update statements at the end consume ``r`` (waiting for it
there).  Each collective has its own name, hence its own communicator, so the ranks may
start them in any order.  The loss and metrics are reduced the same way (started right
after the loss, before the backward pass), so every rank reports the global values.

Dropout masks are drawn for the whole global batch on every rank and sliced to the
shard (``Context.shard``), so with the same seed training matches one process.
BatchNormalization uses the shard's statistics (not synchronised).

:func:`record_timeline` makes the next compiled data-parallel step wrap each gradient
statement and each collective in ``timer``, appending ``(label, start, end)``
(``time.perf_counter``) to :data:`TIMELINE`, to show the overlap.
"""
from __future__ import annotations

import re
import time
from typing import Any

import numpy as np

from .graph import Graph, Raw, Stmt, Var

#: (label, start, end) of gradient statements ("grad <name>") and collectives
#: ("reduce <name>"), when recording (see :func:`record_timeline`)
TIMELINE: list[tuple[str, float, float]] = []
_recording = False


def record_timeline(on: bool = True) -> None:
    """Record the timeline of data-parallel steps compiled from now on."""
    global _recording
    _recording = bool(on)
    TIMELINE.clear()


def recording() -> bool:
    return _recording


def _trace(label: Any, elapsed: Any) -> None:
    end = time.perf_counter()
    TIMELINE.append((str(label), end - float(elapsed), end))


def shard_bounds(batch: int, rank: int, count: int) -> tuple[int, int]:
    """Rows ``[offset, stop)`` of a global batch of ``batch`` rows that ``rank`` takes
    (the first ``batch % count`` ranks one more, as ``numpy.array_split``)."""
    base, extra = divmod(batch, count)
    offset = rank * base + min(rank, extra)
    return offset, offset + base + (1 if rank < extra else 0)


def collective_name(weight_name: str) -> str:
    """``grad_<layer>_<weight>``: one communicator per gradient."""
    return "grad_" + re.sub(r"\W", "_", weight_name)


class Inputs:
    """The extra step inputs of data-parallel training, as program variables."""

    def __init__(self, g: Graph, trace: bool) -> None:
        self.weight = g.input("shard_weight", ())
        self.shard = (g.input("shard_offset", ()), g.input("shard_stop", ()),
                      g.input("shard_total", ()))
        self.trace = g.input("trace_fn", ()) if trace else None

    def names(self) -> list[str]:
        extra = [self.weight.name, *(v.name for v in self.shard)]
        return extra + ([self.trace.name] if self.trace is not None else [])

    def values(self, offset: int, stop: int, total: int, weight: float | None = None) -> list:
        share = (stop - offset) / total if weight is None else weight
        values = [np.float32(share), np.int64(offset), np.int64(stop), np.int64(total)]
        return values + ([_trace] if self.trace is not None else [])


def _timed(inputs: Inputs, expr: str, label: str) -> str:
    if inputs.trace is None:
        return expr
    return f'timer({expr}, lambda(t, {inputs.trace.name}("{label}", t)))'


def _reduction(g: Graph, inputs: Inputs, value: Var, name: str) -> Stmt:
    expr = f'all_reduce(__mul({value.name}, {inputs.weight.name}), "sum", "{name}")'
    out = Var(g.fresh("reduced"), value.shape)
    return Stmt(out, "async", (Raw(_timed(inputs, expr, "reduce " + name)),))


def reduce_in_place(g: Graph, inputs: Inputs, values: list, names: list[str]) -> list:
    """Insert, right after the statement defining each of ``values`` (Vars, or None),
    its share-weighted all_reduce (see the module doc); the reduced Vars (None kept).
    With tracing, the defining statement is wrapped in ``timer`` as well."""
    made: dict[int, Stmt] = {}
    result = []
    for value, name in zip(values, names):
        if value is None:
            result.append(None)
            continue
        stmt = _reduction(g, inputs, value, name)
        made[id(value)] = (stmt, name)
        result.append(stmt.out)
    stmts = []
    for stmt in g.stmts:
        reduction, name = made.get(id(stmt.out), (None, ""))
        if reduction is not None and inputs.trace is not None:
            # the timer's value is the statement's: only its completion is recorded
            stmt = Stmt(stmt.out, "timer", (Raw(_call_text(stmt)), Raw(
                f'lambda(t, {inputs.trace.name}("computed {name}", t))')))
        stmts.append(stmt)
        if reduction is not None:
            stmts.append(reduction)
    missing = [n for v, n in zip(values, names) if v is not None and
               all(s.out is not v for s in g.stmts)]
    if missing:      # a gradient that is an input, not a statement: reduce it first
        raise AssertionError(f"no statement defines {missing}")
    g.stmts[:] = stmts
    return result


def _call_text(stmt: Stmt) -> str:
    from .graph import call
    return call(stmt.primitive, stmt.operands)


def broadcast_weights(model: Any) -> None:
    """Rank 0's weights on every rank (so that all ranks start from the same ones)."""
    from .. import distributed as dist
    if dist.num_localities() == 1:
        return
    for w in model.weights:
        value = dist.broadcast(w.value, 0, "nn_initial_weights").result()
        w.value = np.asarray(value, np.float32)


def rank_and_count() -> tuple[int, int]:
    from .. import distributed as dist
    return dist.find_here(), dist.num_localities()
