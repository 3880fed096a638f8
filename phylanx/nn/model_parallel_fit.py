"""``fit(..., distributed="model")``: training with the model-parallel layers of
:mod:`.model_parallel` (SPMD: every rank calls ``fit`` with the same data and seed).

:func:`plan` cuts the model's chain of layers into stages:

* every ``Conv1D`` runs as a :class:`~.model_parallel.ParallelConv1D`: its input is
  tiled by batch (``conv_split="batch"``) or by length (``"length"``), each rank
  convolving its tile through ``conv1d_d`` (halos fetched from the neighbours for a
  length tiling); its weights are replicated and their gradients all-reduced;
* every ``Dense`` with at least as many units as ranks runs as a
  :class:`~.model_parallel.ColumnParallelDense`: rank r keeps
  only its columns of the kernel and bias (and their optimizer slots) and computes
  those output columns (``dot_d``; softmax over the column tiles);
* every run of other layers (pooling, flatten, activations, dropout, batch
  normalisation, recurrent ..., and a Conv1D or Dense with an ``activity_regularizer``,
  whose penalty is of its whole output) is one replicated stage: the same compiled
  program on every rank, over the whole batch.

With the batch split, activations and cotangents stay this rank's batch tile from the
first Conv1D on, through the other Conv1D stages and the runs of per-sample layers
without weights (:data:`_PER_SAMPLE`; such a run computes its tile's rows of the
whole-batch result), and are all-gathered only before a stage that needs the whole
batch (``Trainer._forms``): a Conv1D stack moves no activations, only its weight
gradients.  Elsewhere activations and cotangents are whole arrays on every rank: a
parallel stage takes its tile of its input (a slice, no communication) and all-gathers
its output; in the backward pass it takes its block of the output cotangent and gathers
(Conv1D) or all-reduces (Dense) the input gradient, which is skipped where no earlier
layer has weights to train.  So the replicated layers, the loss and the dropout masks
(drawn in the same order as one process's step, from the same seed) are those of
single-process training, and losses and weights match it to float32 rounding.

A replicated stage is two compiled programs: the forward (which also returns its
random draws and its new moving statistics) and the backward, which recomputes the
forward from the stage's input with the *same* random draws (fed in place of the
``random_*`` statements) and differentiates it with
:func:`phylanx.autodiff.symbolic.gradients`.  The loss
head (loss, metrics, d loss / d output: one process's, ``sample_weight``,
``class_weight`` and ``weighted_metrics`` included, run on the whole output
everywhere) and the optimizer's update (over the weights each rank holds: whole ones,
and its column blocks of the Dense layers; with its clipping and weight decay) are
programs too, all compiled once per model and reused by later ``fit`` calls.  Weight
regularizers and gradient norms of split weights: :mod:`.model_parallel_options`.

The model's Dense weights and the optimizer's slots are whole again (all-gathered) at
the end of every epoch, before validation and callbacks, and when training stops on a
NaN loss; each epoch starts by slicing them again (so a callback may change them).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import distributed as dist
from ..autodiff.symbolic import Graph, Var, gradients
from ..errors import PhylanxValueError
from . import arguments as args
from . import data_parallel
from . import model_parallel_options as options
from .layers_conv import (
    AveragePooling1D,
    Conv1D,
    GlobalAveragePooling1D,
    GlobalMaxPooling1D,
    MaxPooling1D,
)
from .layers_core import Activation, Context, Dense, Flatten, Weight
from .layers_image import Permute, Reshape
from .model_parallel import ColumnParallelDense, ParallelConv1D, _compile

#: fit's conv_split: the axis of a Conv1D's input that is tiled over the ranks
SPLITS = {"batch": 0, "length": 1}


def _error(message: str) -> PhylanxValueError:
    return args.value_error("fit(distributed='model')", message)


class _Param:
    """A weight as this rank holds it: whole, or its ``columns`` [c0, c1) (last axis)."""

    def __init__(self, weight: Weight, trainable: bool, columns: tuple | None = None):
        self.weight, self.trainable, self.columns = weight, trainable, columns
        self.block: np.ndarray | None = None

    def load(self) -> None:
        if self.columns is not None:
            c0, c1 = self.columns
            self.block = np.ascontiguousarray(self.weight.value[..., c0:c1])

    @property
    def value(self) -> np.ndarray:
        return self.weight.value if self.columns is None else self.block

    def set(self, value: np.ndarray) -> None:
        if self.columns is None:
            self.weight.value = value
        else:
            self.block = value

    def local(self, whole: np.ndarray) -> np.ndarray:
        """This rank's part of an array shaped like the weight (an optimizer slot)."""
        if self.columns is None:
            return whole
        return np.ascontiguousarray(whole[..., self.columns[0]:self.columns[1]])

    def whole(self, part: np.ndarray, name: str) -> np.ndarray:
        """Collective for column blocks: the ranks' parts side by side."""
        if self.columns is None:
            return part
        parts = dist.all_gather(np.ascontiguousarray(part, np.float32), name).result()
        return np.concatenate(parts, axis=-1)


def _tile_layout(shape: tuple, axis: int, count: int):
    """Near-equal spans of ``axis`` (the first ranks one longer, some maybe empty when
    there are fewer items than ranks): the same on every rank, so no exchange."""
    from ..distributed.tiles import Layout
    boxes = []
    for r in range(count):
        box = [(0, int(s)) for s in shape]
        box[axis] = data_parallel.shard_bounds(int(shape[axis]), r, count)
        boxes.append(tuple(box))
    return Layout(boxes, shape)


class _BatchTiles:
    """This rank's rows of the step's global batch (near-equal spans, the first ranks one
    longer, as :func:`_tile_layout`): the form in which activations and cotangents pass
    between the stages that run on a batch tile (see :class:`Trainer`)."""

    def __init__(self) -> None:
        self.batch = 0      # the global batch of the current step

    def bounds(self) -> tuple[int, int]:
        return data_parallel.shard_bounds(self.batch, dist.find_here(), dist.num_localities())

    def tile(self, whole: np.ndarray) -> np.ndarray:
        b0, b1 = self.bounds()
        return np.ascontiguousarray(whole[b0:b1])

    def layout(self, tile_shape: tuple):
        return _tile_layout((self.batch, *tile_shape[1:]), 0, dist.num_localities())

    def whole(self, tile: np.ndarray, name: str) -> np.ndarray:
        """Collective: the ranks' tiles one after the other."""
        tile = np.ascontiguousarray(tile, np.float32)
        return dist.DistributedArray(tile, self.layout(tile.shape), name).gather()


class _ConvStage:
    """A Conv1D split by batch (``axis`` 0: it takes and gives this rank's batch tile,
    ``tiled``) or by length (1: it takes and gives whole arrays, slicing its tile and
    gathering its output itself)."""

    def __init__(self, layer: Conv1D, axis: int, trainable: set, tiles: _BatchTiles) -> None:
        self.layer, self.axis, self.tiles = layer, axis, tiles
        self.mp = ParallelConv1D(layer)
        self.params = [_Param(w, id(w) in trainable) for w in layer.weights]
        self.updates: list = []
        self.tiled = axis == 0
        self._layouts: dict = {}

    def forward(self, h: np.ndarray) -> np.ndarray:
        name = f"mp_fit_{self.layer.name}_input"
        if self.tiled:
            x = dist.DistributedArray(np.ascontiguousarray(h), self.tiles.layout(h.shape), name)
            return self.mp.forward(x).local
        rank, count = dist.find_here(), dist.num_localities()
        layout = self._layouts.get(h.shape)
        if layout is None:
            layout = self._layouts[h.shape] = _tile_layout(h.shape, self.axis, count)
        box = tuple(slice(a, b) for a, b in layout.boxes[rank])
        x = dist.DistributedArray(np.ascontiguousarray(h[box]), layout, name)
        return self.mp.forward(x).gather()

    def backward(self, ct: np.ndarray):
        block = ct if self.tiled else ct[tuple(slice(a, b) for a, b in self.mp._y.box)]
        dx, grads = self.mp.backward(np.ascontiguousarray(block, np.float32))
        if not self.need_dx:
            return None, list(grads)
        return (dx.local if self.tiled else dx.gather()), list(grads)


class _DenseStage:
    def __init__(self, layer: Dense, trainable: set) -> None:
        self.layer = layer
        self.mp = ColumnParallelDense(layer)
        self.params = [_Param(w, id(w) in trainable, self.mp.columns) for w in layer.weights]
        self.updates: list = []
        self.tiled = False      # its input is replicated

    def forward(self, h: np.ndarray) -> np.ndarray:
        kernel = self.mp.kernel     # this rank's current column block
        self.mp.kernel = dist.DistributedArray(self.params[0].value, kernel.layout, kernel.name)
        if self.layer.use_bias:
            self.mp.bias = self.params[1].value
        return self.mp.forward(h).gather()

    def backward(self, ct: np.ndarray):
        c0, c1 = self.mp.columns
        dx, grads = self.mp.backward(np.ascontiguousarray(ct[:, c0:c1], np.float32))
        return dx, list(grads)


class _ReplicatedStage:
    """Layers run whole on every rank (see the module doc)."""

    def __init__(self, layers: list, trainable: set, need_dx: bool) -> None:
        self.layers = layers
        self.params = [_Param(w, id(w) in trainable)      # (a layer may repeat in a run)
                       for w in {id(w): w for layer in layers for w in layer.weights}.values()]
        self.updates: list = []
        name = "_".join(layer.name for layer in layers)
        g = Graph(prefix="r")
        x = g.input("x", layers[0].input_shape, active=need_dx)
        wvars = [g.input(f"w{i}", p.weight.value.shape, active=p.trainable)
                 for i, p in enumerate(self.params)]
        by_weight = {id(p.weight): v for p, v in zip(self.params, wvars)}
        updates: list = []
        penalties: list = []
        h = x
        for layer in layers:
            ctx = Context(g, {w.name.split("/", 1)[1]: by_weight[id(w)] for w in layer.weights},
                          True)
            ctx.updates = updates
            h = layer.forward(ctx, h)
            options.activity_terms(g, layer, h, penalties)
        draws = [s.out for s in g.stmts if s.primitive.startswith("random")]
        self.updated = [w for w, _ in updates]
        self._forward = _compile(f"mp_fit_{name}_forward", g, [x, *wvars],
                                 [h, draws, [v for _, v in updates], penalties])
        self.penalty = np.float32(0.0)
        # the backward program: the forward again, its random draws given as inputs
        wrt = ([x] if need_dx else []) + [v for p, v in zip(self.params, wvars) if p.trainable]
        self._backward = None
        self.need_dx = need_dx
        # on a batch tile it computes the tile's rows of its whole-batch result: only
        # when each output row is a function of its input row alone (no weights whose
        # gradients would be partial sums, no batch statistics, no random draws, which
        # are the global batch's); None: it runs on whatever form its input has
        # (an activity penalty is the whole batch's)
        self.tiled = None if (not self.params and not draws and not updates and
                              not penalties and all(type(layer) in _PER_SAMPLE
                                                    for layer in layers)) else False
        if wrt and h.active:
            g.stmts[:] = [s for s in g.stmts if not s.primitive.startswith("random")]
            ct = g.input("ct", h.shape)
            loss = g.op("sum", g.op("__mul", h, ct, shape=h.shape), shape=())
            if penalties:
                loss = g.op("__add", loss, *penalties, shape=())
            grads = gradients(g, loss, wrt)
            self.has_grad = [grad is not None for grad in grads[1 if need_dx else 0:]]
            grads = [grad if grad is not None else g.op("__mul", v, 0.0, shape=v.shape)
                     for v, grad in zip(wrt, grads)]
            self._backward = _compile(f"mp_fit_{name}_backward", g,
                                      [x, *wvars, *draws, ct], grads)
        self._saved: tuple = ()

    def forward(self, h: np.ndarray) -> np.ndarray:
        if self.tiled is None and len(h) == 0:
            # an empty tile (fewer samples than ranks): no rows, nothing to run (a
            # kernel such as max_pool2d refuses an empty array)
            self._saved = (h, [], [])
            shape = tuple(h.shape)
            for layer in self.layers:
                shape = tuple(layer.compute_output_shape(shape))
            return np.zeros(shape, np.float32)
        values = [p.value for p in self.params]
        out, draws, updates, penalties = self._forward(h, *values)
        self._saved = (h, values, list(draws))
        self.updates = list(zip(self.updated, updates))
        self.penalty = options.total(penalties)
        return np.asarray(out)

    def backward(self, ct: np.ndarray):
        """(input gradient or None, one gradient or None per weight of ``params``)."""
        grads: list = [None] * len(self.params)
        if self._backward is None:      # nothing to train here, no gradient to pass on
            return None, grads
        h, values, draws = self._saved
        if self.tiled is None and len(h) == 0:     # an empty tile (see forward)
            return np.zeros(h.shape, np.float32), grads
        found = [np.asarray(g) for g in self._backward(h, *values, *draws, ct)]
        dx = found.pop(0) if self.need_dx else None
        trainable = [i for i, p in enumerate(self.params) if p.trainable]
        for i, g, has in zip(trainable, found, self.has_grad):
            grads[i] = g if has else None       # (as one process: no gradient, no update)
        return dx, grads


#: layers without weights whose output rows are each a function of the same input row
_PER_SAMPLE = {Activation, Flatten, MaxPooling1D, AveragePooling1D, GlobalAveragePooling1D,
               GlobalMaxPooling1D, Reshape, Permute}


def plan(model: Any, conv_split: str, tiles: _BatchTiles | None = None) -> list:
    """The model's stages (see the module doc); errors before any communication."""
    if conv_split not in SPLITS:
        raise _error(f"conv_split must be 'batch' or 'length', got {conv_split!r}")
    if not model.is_chain or model.masked:
        # branches, several outputs, Keras masks: blocks between the split layers
        from .model_parallel_graph import plan as graph_plan
        return graph_plan(model, conv_split, tiles if tiles is not None else _BatchTiles())
    count = dist.num_localities()
    chain = list(model._chain)
    trainable = {id(w) for w in model.trainable_weights}
    for layer in chain:
        kind = f"layer '{layer.name}' ({type(layer).__name__})"
        if layer.weights and chain.count(layer) > 1:
            # its gradients would come from several stages (and a Dense's column blocks
            # be two copies): not supported
            raise _error(f"{kind} is used {chain.count(layer)} times in model "
                         f"'{model.name}': a shared layer with weights cannot run "
                         "model-parallel")
    def split(layer) -> bool:
        # a Dense with fewer units than ranks (a Dense(1) output, say) has no column
        # for some rank: it runs replicated, like the layers around it; so does a layer
        # with an activity regularizer (the penalty of its whole output, in a stage)
        if getattr(layer, "activity_regularizer", None) is not None:
            return False
        return isinstance(layer, Conv1D) or (isinstance(layer, Dense) and layer.units >= count)
    if not any(split(layer) for layer in chain):
        raise _error(f"model '{model.name}' has no Conv1D, and no Dense with at least "
                     f"{count} units, to split over the localities: train with "
                     "distributed='data'")
    groups: list[list] = []      # each split Conv1D or Dense alone, runs of other layers
    for layer in chain:
        if split(layer) or not groups or split(groups[-1][0]):
            groups.append([layer])
        else:
            groups[-1].append(layer)
    stages: list = []
    weights_before = False      # input gradients are needed only to reach such weights
    for group in groups:
        first = group[0]
        # (a Conv1D that is not split, with an activity regularizer, heads a run of
        # replicated layers: that run is a replicated stage, all of it)
        if split(first) and isinstance(first, Conv1D):
            stage: Any = _ConvStage(first, SPLITS[conv_split], trainable,
                                    tiles if tiles is not None else _BatchTiles())
        elif split(first):
            stage = _DenseStage(first, trainable)
        else:
            stage = _ReplicatedStage(group, trainable, weights_before)
        stage.need_dx = weights_before
        stages.append(stage)
        weights_before = weights_before or any(p.trainable for p in stage.params)
    return stages


def _head(model: Any, weighted: str, mask_shapes: list):
    """``(*outputs, *masks, *targets, *sample weights) -> list(loss, metrics, list(d
    loss / d output))``, compiled, and per metric the index of its weight total among
    the values ending the metrics (None: none): the loss and metrics of one process's
    step (``training._heads_loss``; ``weighted``: the sample weights' ranks, "" for
    none; ``mask_shapes``: each output's Keras mask's shape, None for none)."""
    from .training import _heads_loss
    g = Graph(prefix="h")
    outs = [g.input(f"out{i}", shape, active=True)
            for i, shape in enumerate(model.output_shapes)]
    masks = [None if shape is None else g.input(f"mask{i}", shape)
             for i, shape in enumerate(mask_shapes)]
    loss, found, names, counts = _heads_loss(g, model.heads, outs, masks, weighted, None)
    d_outs = gradients(g, loss, outs)
    d_outs = [d if d is not None else g.op("__mul", o, 0.0, shape=o.shape)
              for o, d in zip(outs, d_outs)]
    head = _compile(f"mp_fit_head{'_weighted' if weighted else ''}", g,
                    [*outs, *(m for m in masks if m is not None),
                     *(Var(n, ()) for n in names)], [loss, found, d_outs])
    return head, counts


def _clips_by_norm(optimizer: Any) -> bool:
    return optimizer.clipnorm is not None or optimizer.global_clipnorm is not None


def _update(optimizer: Any, weights: list, shapes: list[tuple]):
    """``(params, grads, slots, [squared gradient norms,] learning_rate, step_number) ->
    list(new params, new slots)`` for this rank's blocks (of ``weights``): the
    optimizer's own clipping (by the whole weights' norms, given), decay and update, as
    one process's step (``training.Program``)."""
    g = Graph(prefix="u")
    params = [g.input(f"p{i}", s) for i, s in enumerate(shapes)]
    grads = [g.input(f"g{i}", s) for i, s in enumerate(shapes)]
    names = optimizer.slot_names()
    slots = {n: [g.input(f"slot_{n}{i}", s) for i, s in enumerate(shapes)] for n in names}
    squares = [g.input(f"square{i}", ()) for i in range(len(shapes))] \
        if _clips_by_norm(optimizer) else []
    lr, t = g.input("learning_rate", ()), g.input("step_number", ())
    clipped = optimizer.clip(g, grads, squares or None)
    shared = {"lr": lr, **optimizer.prepare(g, lr, t)}
    new_params, new_slots = [], []
    for i, (p, grad) in enumerate(zip(params, clipped)):
        decayed = optimizer.decayed(g, p, weights[i], shared)
        new, made = optimizer.update(g, decayed, grad, {n: slots[n][i] for n in names},
                                     shared)
        new_params.append(new)
        new_slots.append([made[n] for n in names])
    inputs = [*params, *grads, *(v for n in names for v in slots[n]), *squares, lr, t]
    return _compile("mp_fit_update", g, inputs, [new_params, new_slots])


class Trainer:
    """The model-parallel training step of a compiled model (see the module doc)."""

    def __init__(self, model: Any, conv_split: str) -> None:
        self.model = model
        self.tiles = _BatchTiles()
        self.stages = plan(model, conv_split, self.tiles)
        self.params = [p for stage in self.stages for p in stage.params]
        # the optimizer's slots are indexed like model.trainable_weights
        order = {id(w): i for i, w in enumerate(model.trainable_weights)}
        self.trained = sorted((p for p in self.params if p.trainable),
                              key=lambda p: order[id(p.weight)])
        self.penalties = options.Penalties(self.stages)
        self._heads: dict[str, Any] = {}       # by the sample weights' rank ("": none)
        self.slots: dict[str, list] = {}
        self._updates: dict = {}

    def begin(self) -> None:
        """At ``fit``'s start: rank 0's weights everywhere (a collective), the blocks."""
        data_parallel.broadcast_weights(self.model)
        self.load()

    def load(self) -> None:
        """This rank's blocks of the weights and optimizer slots (no communication)."""
        opt = self.model.optimizer
        for p in self.params:
            p.load()
        whole = [p.weight.value for p in self.trained]
        if any(len(opt.state.get(s, ())) != len(whole) or any(
                np.shape(v) != w.shape for v, w in zip(opt.state[s], whole))
               for s in opt.slot_names()):
            opt.init_state(whole)
        self.slots = {s: [p.local(v) for p, v in zip(self.trained, opt.state[s])]
                      for s in opt.slot_names()}

    def sync(self) -> None:
        """Collective: whole Dense weights and optimizer slots in the model again."""
        opt = self.model.optimizer
        for p in self.params:
            if p.columns is not None and p.trainable:
                p.weight.value = p.whole(p.block, "mp_fit_sync")
        for s in opt.slot_names():
            opt.state[s] = [p.whole(v, "mp_fit_sync") for p, v in zip(self.trained, self.slots[s])]

    def step(self, xb: np.ndarray, yb: np.ndarray, wb: np.ndarray | None,
             stop_on_nan: bool, diverged) -> tuple:
        """One training step on the global batch ``(xb, yb)`` weighed by the samples'
        weights ``wb`` (or None): (loss, metrics, each metric's weight in the epoch's
        values: a weighted metric's batch ``sum(w)``, else None).  On a NaN loss with
        ``stop_on_nan``, syncs and raises ``diverged(loss)`` on every rank (they all
        have the same loss), before any update."""
        self.tiles.batch = len(xb)
        forms = self._forms()
        h = xb
        for i, stage in enumerate(self.stages):
            h = self._convert(h, forms[i], forms[i + 1], f"mp_fit_{i}_forward")
            h = stage.forward(h)
        h = self._convert(h, forms[-1], False, "mp_fit_output")
        from . import data
        weighted = "" if wb is None else data.weight_ranks(wb)
        last = self.stages[-1]
        masks = getattr(last, "out_masks", [])
        if weighted not in self._heads:
            self._heads[weighted] = _head(self.model, weighted,
                                          getattr(last, "mask_shapes", [None]))
        head, metric_counts = self._heads[weighted]
        outs = h if isinstance(h, list) else [h]
        loss, found, cts = head(*outs, *masks, *data.target_arrays(yb),
                                *data.weight_arrays(wb))
        ct = list(cts) if isinstance(h, list) else cts[0]
        values, kept = list(found[:len(metric_counts)]), found[len(metric_counts):]
        counts = [None if c is None else float(kept[c]) for c in metric_counts]
        # the regularizers' penalty (of the weights before the update, in the loss as
        # one process reports it) and its gradients, which join the loss's
        penalty, grads = self.penalties()
        activity = [s.penalty for s in self.stages if getattr(s, "penalty", None)]
        if self.penalties.terms or activity:
            loss = options.total([loss, penalty, *activity])
        if not np.isfinite(loss) and stop_on_nan:
            self.sync()
            raise diverged(loss)
        if not isinstance(ct, list):
            ct = self._convert(np.asarray(ct, np.float32), False, forms[-1], "")
        for i in reversed(range(len(self.stages))):
            if ct is None:
                break           # nothing before this stage trains: no cotangent flows on
            stage = self.stages[i]
            ct, made = stage.backward(ct)
            for p, g in zip(stage.params, made):
                if p.trainable and g is not None:
                    g = np.asarray(g, np.float32)
                    grads[id(p)] = g if id(p) not in grads else grads[id(p)] + g
            if ct is not None:
                ct = self._convert(ct, forms[i + 1], forms[i], f"mp_fit_{i}_backward")
        self._apply(grads)
        for stage in self.stages:       # moving statistics, after the step as one process
            for w, v in stage.updates:
                w.value = np.asarray(v, np.float32)
        return loss, values, counts

    def _forms(self) -> list[bool]:
        """Whether the model's input (first) and each stage's output is this rank's batch
        tile (True) or the whole array: a stage that may run on a tile keeps it, so a
        chain of batch-split Conv1D and per-sample layers moves no activations."""
        forms = [False]
        for stage in self.stages:
            forms.append(forms[-1] if stage.tiled is None else stage.tiled)
        return forms

    def _convert(self, h: np.ndarray, tiled: bool, want: bool, name: str) -> np.ndarray:
        """``h`` (a tile when ``tiled``) in the form ``want``: a slice of the whole
        array, or the tiles gathered (collective) -- the backward pass converts the
        cotangents back the same way."""
        if tiled == want:
            return h
        return self.tiles.whole(h, name) if tiled else self.tiles.tile(h)

    def _apply(self, grads: dict) -> None:
        opt = self.model.optimizer
        which = tuple(i for i, p in enumerate(self.trained) if id(p) in grads)
        update = self._updates.get(which)
        if update is None:
            update = self._updates[which] = _update(
                opt, [self.trained[i].weight for i in which],
                [tuple(self.trained[i].value.shape) for i in which])
        names = opt.slot_names()
        params = [self.trained[i] for i in which]
        mine = [grads[id(p)] for p in params]
        squares = options.squared_norms(params, mine) if _clips_by_norm(opt) else []
        out = update(*[p.value for p in params], *mine,
                     *[self.slots[n][i] for n in names for i in which], *squares,
                     np.float32(opt.learning_rate), np.float32(opt.iterations + 1))
        new_params, new_slots = out
        opt.iterations += 1
        for i, p, value, made in zip(which, params, new_params, new_slots):
            p.set(np.asarray(value, np.float32))
            for n, v in zip(names, made):
                self.slots[n][i] = np.asarray(v, np.float32)
