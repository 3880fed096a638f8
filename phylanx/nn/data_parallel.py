"""Data-parallel training: ``model.fit(x, y, distributed="data")`` under ``phylanx run -n N``.

Every locality passes the same full ``x, y`` (and seed); each trains on its shard of
every global batch (rows ``offset:stop``, a near-equal split by rank), starting from
rank 0's weights (broadcast when ``fit`` begins).  The step program is the ordinary one
(forward, generated backward, optimizer update), except that the backward pass starts
from ``loss * shard_weight``, plus, *right after the statement that completes the last
gradient of each bucket* (DDP's buckets: the weight gradients in the order the backward
pass completes them, packed up to ``fit(bucket_cap_mb=25)`` megabytes, the first bucket
up to 1, so that its collective starts early; a gradient of 1 MB or more reduced alone,
in place, and the small ones around it packed together; :func:`reduce_in_place`)::

    define(b, concatenate(list(grad_a, grad_b, ...), nil))
    define(r, async(all_reduce(b, "sum", "grad_<layer>_<weight>_bucket<n>", false)))

and, at the end, each gradient's slice of ``r`` reshaped (``bucket_cap_mb=0``: one
all_reduce per gradient, of the gradient itself).  Few large collectives instead of one
per tensor: each collective costs a fixed latency (and, waiting, a thread testing MPI)
that a small gradient does not amortise.

``shard_weight`` is this shard's share of the global batch (``(stop - offset) / batch``):
every loss is a mean over the batch, so the sum over ranks of share x shard loss is the
full-batch loss and the sum of its gradients the full-batch gradient, also for a smaller
last batch.  (Weighting the loss rather than the gradients keeps that true through the
collectives of synchronised batch normalisation, whose cotangents the ranks add up: see
``autodiff.rules_collectives``.)  The ``async`` collective starts as soon as its gradient exists
and runs while the backward pass goes on to the earlier layers; only the optimizer's
update statements at the end consume ``r`` (waiting for it there).  Each collective has
its own name, hence its own communicator, so the ranks may start them in any order.  The
loss and metrics are reduced likewise, share-weighted, so every rank reports the global
values: packed with the first small gradients (with ``bucket_cap_mb=0``, each in a
collective of its own, started before the backward pass).  One collective fewer per step:
each costs its posting, its communicator's bookkeeping and a wait, and a step of a small
batch has few milliseconds to spend (``benchmarks/nn_data_parallel.py``).

Dropout masks are drawn for the whole global batch on every rank and sliced to the
shard (``Context.shard``), so with the same seed training matches one process.
BatchNormalization (:func:`global_moments`, unless ``fit(sync_batchnorm=False)``)
normalises with the global batch's mean and variance: the channel sums of the shard
(zero for a rank without rows), all-reduced, over the global count; then the same for
the squared deviations from that mean (two passes, as one process's ``var``).  Their
backward pass all-reduces the cotangents of those sums, so the gradients are the
full-batch ones too.  With ``sync_batchnorm=False`` each shard uses its own statistics.

:func:`record_timeline` (``data_parallel_timeline.py``) records when each gradient
exists and when each collective starts and completes, to show the overlap.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..autodiff.symbolic import Graph, Raw, Stmt, Var
from ..source import SourceLoc

# (TIMELINE, record_timeline, recording and timeline: this module's API as before)
from .data_parallel_timeline import (  # noqa: F401
    TIMELINE,
    record_timeline,
    recording,
    timeline,
    trace,
)


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

    def __init__(self, g: Graph, trace: bool, sync_batchnorm: bool = True) -> None:
        self.sync_batchnorm = bool(sync_batchnorm)
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
        return values + ([trace] if self.trace is not None else [])


def _reduction(g: Graph, inputs: Inputs, value: Var, name: str,
               weighted: bool) -> list[Stmt]:
    """The statements all-reducing ``value``: its share-weighted value first if
    ``weighted``, as a statement of its own, so that the ``async`` collective's operand
    is a variable (started on the spot, not by a queued task: ``control_flow.async_``)."""
    stmts = []
    if weighted:
        term = Var(g.fresh("share"), value.shape)
        stmts.append(Stmt(term, "__mul", (value, inputs.weight)))
        value = term
    # unchecked: the step is one program on every rank and the gradients have the
    # weights' shapes, which fit's first collective (broadcast_weights) checked
    expr = f'all_reduce({value.name}, "sum", "{name}", false)'
    out = Var(g.fresh("reduced"), value.shape)
    # bare, traced or not: see data_parallel_timeline.py
    return stmts + [Stmt(out, "async", (Raw(expr),))]


#: DDP's default bucket sizes (``torch.nn.parallel.DistributedDataParallel``): the first
#: bucket small, so that the first all_reduce starts early in the backward pass, the
#: others up to ``bucket_cap_mb``
FIRST_BUCKET_MB = 1.0
BUCKET_CAP_MB = 25.0


def reduce_in_place(g: Graph, inputs: Inputs, values: list, names: list[str],
                    weighted: list[bool] | None = None,
                    bucket_cap_mb: float = 0.0) -> list:
    """Insert the all_reduces of ``values`` (Vars, or None), share-weighted where
    ``weighted`` (default: all; see the module doc); return the reduced Vars (None kept).

    ``bucket_cap_mb`` 0: each value's all_reduce right after the statement defining it.
    Otherwise the values are taken in the order their statements complete them and
    packed into buckets (:func:`_buckets`: a value of at least the first limit,
    ``min(FIRST_BUCKET_MB, bucket_cap_mb)``, is a bucket of its own, not copied; the
    smaller ones, of either weighting, are packed up to that limit until one bucket is
    full, then up to ``bucket_cap_mb``), as DDP does:
    one all_reduce per bucket, of the members concatenated, started right after the
    statement completing its last member, so it still overlaps the rest of the
    backward pass; a sum is taken element by element, so the reduced bucket's slices
    are the members' reductions.  The
    reduced members are sliced out at the end of the statements, where the optimizer's
    updates (appended after this) read them.  With tracing, each defining statement is
    wrapped in ``timer`` as well."""
    weighted = [True] * len(values) if weighted is None else weighted
    position = {id(stmt.out): i for i, stmt in enumerate(g.stmts)}
    missing = [n for v, n in zip(values, names) if v is not None and id(v) not in position]
    if missing:      # a gradient that is an input, not a statement: reduce it first
        raise AssertionError(f"no statement defines {missing}")
    members = sorted((position[id(v)], i) for i, v in enumerate(values) if v is not None)
    buckets = _buckets([(values[i], names[i], weighted[i]) for _, i in members],
                       bucket_cap_mb)
    after: dict[int, list[Stmt]] = {}      # id(last member) -> the bucket's reduction
    tail: list[Stmt] = []                  # the members sliced out of reduced buckets
    reduced: dict[int, Var] = {}
    for bucket in buckets:
        value, name, weigh = bucket[0]
        if len(bucket) == 1:
            stmts = _reduction(g, inputs, value, name, weigh)
            reduced[id(value)] = stmts[-1].out
        else:
            stmts, parts = _bucket_reduction(g, inputs, bucket)
            for (member, _, _), part in zip(bucket, parts[-len(bucket):]):
                reduced[id(member)] = part.out
            tail.extend(parts)
        after[id(bucket[-1][0])] = stmts
    labels = {id(v): n for v, n in zip(values, names) if v is not None}
    stmts = []
    for stmt in g.stmts:
        name = labels.get(id(stmt.out))
        if name is not None and inputs.trace is not None:
            # the timer's value is the statement's: only its completion is recorded
            stmt = Stmt(stmt.out, "timer", (Raw(_call_text(stmt)), Raw(
                f'lambda(t, {inputs.trace.name}("computed {name}", t))')))
        stmts.append(stmt)
        stmts.extend(after.get(id(stmt.out), ()))
    g.stmts[:] = stmts + tail
    return [None if v is None else reduced[id(v)] for v in values]


def _buckets(members: list[tuple], bucket_cap_mb: float) -> list[list[tuple]]:
    """``members`` ((value, name, weighted), in completion order) as buckets, in the
    order their collectives start (see :func:`reduce_in_place`); each alone when
    ``bucket_cap_mb`` is 0.

    A member of at least the first bucket's limit is a bucket of its own, started as
    soon as it exists and reduced in place (packing it would copy it into the bucket
    and back, which measured dearer than the collective it saves).  The small members,
    the loss and metrics as well as the gradients, are packed together in completion
    order, a large member in between leaving the open bucket open: a bucket closes once
    it holds its limit or more (the first ``min(FIRST_BUCKET_MB, bucket_cap_mb)``,
    the others ``bucket_cap_mb``), the last when the members run out.  So a model
    whose large kernels alternate with small biases (every Dense stack) all-reduces
    its small tensors in one collective, not in one per run between two kernels."""
    if bucket_cap_mb <= 0:
        return [[m] for m in members]
    cap = alone = min(FIRST_BUCKET_MB, bucket_cap_mb) * 2 ** 20
    buckets: list[list[tuple]] = []
    packing: list[tuple] = []
    size = 0.0
    for member in members:
        nbytes = _nbytes(member)
        if nbytes >= alone:
            buckets.append([member])
            continue
        packing.append(member)
        size += nbytes
        if size >= cap:
            buckets.append(packing)
            packing, size = [], 0.0
            cap = bucket_cap_mb * 2 ** 20     # the first full bucket was the small one
    if packing:
        buckets.append(packing)
    # (the last small bucket may end before a large member that closed no bucket)
    order = {id(m): i for i, m in enumerate(members)}
    return sorted(buckets, key=lambda bucket: order[id(bucket[-1])])


def _nbytes(member: tuple) -> float:
    # 4 bytes an element: phylanx.nn keeps every weight, and so every gradient, in float32
    return 4.0 * float(np.prod(member[0].shape, dtype=np.float64))


def _bucket_reduction(g: Graph, inputs: Inputs, bucket: list[tuple]) -> tuple[list, list]:
    """The statements all-reducing ``bucket`` (members of known shapes) as one flat
    array, and those slicing each member's reduction out of it (the last
    ``len(bucket)`` of the latter define the members' reduced values)."""
    before = len(g.stmts)
    flat = []
    for value, _, weigh in bucket:
        if weigh:
            value = g.op("__mul", value, inputs.weight, shape=value.shape, hint="share")
            # a loss or metric packed with gradients: float32, as phylanx.nn computes
            # them, stated, so that one in float64 could not make the bucket, and so
            # the gradients sliced out of it, float64 (a no-op on float32)
            value = g.op("astype", value, "float32", shape=value.shape)
        flat.append(value)
    total = sum(int(np.prod(v.shape, dtype=np.int64)) for v in flat)
    packed = g.op("concatenate", flat, None, shape=(total,), hint="bucket")
    stmts = g.stmts[before:]
    del g.stmts[before:]
    # named after its first gradient (the loss and metrics: each step has them)
    first = next((m for m in bucket if not m[2]), bucket[0])
    name = f"{first[1]}_bucket{len(bucket)}"
    stmts += _reduction(g, inputs, packed, name, False)
    whole = stmts[-1].out
    pieces, outs, offset = [], [], 0
    for value, _, _ in bucket:
        size = int(np.prod(value.shape, dtype=np.int64))
        if value.shape == ():
            piece = Stmt(Var(g.fresh("reduced"), ()), "slice", (whole, offset))
        elif len(value.shape) == 1:      # (a bias: its span has its shape already)
            piece = Stmt(Var(g.fresh("reduced"), (size,)), "slice",
                         (whole, [offset, offset + size]))
        else:
            span = Stmt(Var(g.fresh("span"), (size,)), "slice", (whole, [offset, offset + size]))
            pieces.append(span)
            piece = Stmt(Var(g.fresh("reduced"), value.shape), "reshape",
                         (span.out, list(value.shape)))
        outs.append(piece)
        offset += size
    return stmts, pieces + outs


def _call_text(stmt: Stmt) -> str:
    from ..autodiff.symbolic import call
    return call(stmt.primitive, stmt.operands)


def check_agreement(model: Any, x: np.ndarray, y: np.ndarray, settings: dict,
                    validation: tuple | None = None, program: str = "",
                    mode: str = "data") -> None:
    """Collective, before the weights are broadcast (``mode`` "data" or "model", for the
    message): every rank must train the same
    model (each weight's shape and dtype; only the values come from rank 0) with the
    same step ``program`` (its PhySL text: layers and activations, loss, metrics, the
    optimizer's update) and optimizer (class, settings, learning rate, step count) on the
    same data (sample count and a checksum of ``x``, ``y`` and the validation data)
    with the same ``settings`` (batch size, epochs ...) and the same random state
    (shuffling and dropout draw alike on every rank).  Else every rank raises the same error naming
    the ranks that differ, at the user's ``fit`` line (``distributed.check_same``)."""
    from .. import distributed as dist
    if dist.num_localities() == 1:
        return
    from ..distributed.agreement import checksum
    from ..primitives.matrixops import random_numbers
    from ..source import user_line
    from . import initializers
    values: dict[str, Any] = {"the number of weights": len(model.weights)}
    for i, w in enumerate(model.weights):
        value = np.asarray(w.value)
        values[f"weight {i} ({w.name})"] = f"shape {value.shape}, {value.dtype}"
    # the weights' shapes alone let a tanh on one rank and a relu elsewhere, or another
    # loss, sum gradients of different models into one (a silent mix): the step's text
    # says what each rank computes; the optimizer's settings and learning rate are
    # inputs of that step, not part of its text
    values["the training program (layers, loss, metrics, update)"] = checksum(
        np.frombuffer(program.encode(), np.uint8))
    opt = model.optimizer
    values["the optimizer"] = f"{opt.name} {opt.get_config()}, step {opt.iterations}"
    values["the number of samples"] = len(x)
    values["checksum of x"] = checksum(np.asarray(x))
    from .data import target_arrays
    values["checksum of y"] = tuple(checksum(np.asarray(a)) for a in target_arrays(y))
    values["validation data (samples, checksums)"] = None if validation is None else \
        (len(validation[0]), checksum(np.asarray(validation[0])),
         *(checksum(np.asarray(a)) for a in target_arrays(validation[1])))
    values.update(settings)
    for label, rng in (("the random state (shuffling)", initializers.generator()),
                       ("the random state (dropout)", random_numbers._rng)):
        values[label] = checksum(np.frombuffer(repr(rng.bit_generator.state).encode(),
                                               np.uint8))
    dist.check_same(values, f"fit(distributed={mode!r})", "nn_fit_agreement",
                    where=user_line(), show=str)


@contextmanager
def arguments_checked_together(distributed: str | None,
                               where: SourceLoc | None) -> Iterator[None]:
    """Around ``fit``'s argument checks: distributed, an error one rank sees alone (its
    ``y`` shorter than its ``x``, its model not compiled) is raised by every rank, naming
    the rank, located at ``where`` (the user's ``fit`` line; one lockstep operation).
    Raised on that rank alone, it left the others waiting in the agreement's collective
    until the rank exited, or matched them with its next ``fit``'s."""
    from .. import distributed as dist
    if distributed not in ("data", "model") or dist.num_localities() == 1:
        yield
        return
    from ..distributed.lockstep import operation
    from ..errors import PhylanxError
    try:
        with operation(f"fit(distributed={distributed!r}) arguments"):
            yield
    except PhylanxError as e:
        if e.loc is None:       # (the error every rank raises is rebuilt from its text)
            e.loc = where
        if e.primitive is None:
            e.primitive = "fit"
        raise


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


def global_moments(g: Graph, inputs: Inputs, x: Var, name: str) -> tuple[Var, Var]:
    """Mean and (biased) variance of ``x`` over all its axes but the last, taken over
    the global batch: the shards' channel sums all-reduced over the global count (a
    rank running a stand-in row for an empty shard adds zeros); then, around that
    mean, the squared deviations likewise.  Differentiable (see ``autodiff.rules_collectives``)."""
    from ..errors import PhylanxValueError
    inner = x.shape[1:-1]
    if any(d is None for d in inner):
        raise PhylanxValueError(
            f"BatchNormalization '{name}': synchronised statistics need the input's "
            f"non-batch axes known, got shape {x.shape}; pass sync_batchnorm=False")
    channels = (x.shape[-1],)
    axes = list(range(len(x.shape) - 1))
    label = re.sub(r"\W", "_", name)
    rows = g.op("astype", g.op("__gt", inputs.weight, 0.0, shape=()), "float32", shape=())
    count = g.op("astype", g.op("__mul", inputs.shard[2], int(np.prod(inner, dtype=np.int64)),
                                shape=()), "float32", shape=())

    def global_mean(value: Var, what: str) -> Var:
        local = g.op("__mul", g.op("sum", value, axes, shape=channels), rows, shape=channels)
        total = g.op("all_reduce", local, "sum", f"bn_{label}_{what}", shape=channels)
        return g.op("__div", total, count, shape=channels, hint=f"bn_{what}")

    mean = global_mean(x, "mean")
    deviation = g.op("__sub", x, mean, shape=x.shape)
    squares = g.op("__mul", deviation, deviation, shape=x.shape)
    return mean, global_mean(squares, "var")
