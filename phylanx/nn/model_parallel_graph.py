"""Model-parallel ``fit``'s stages of a functional model that is not a plain chain
(branches, several outputs, Keras masks): :func:`plan` for :mod:`.model_parallel_fit`.

A ``Conv1D``, or a ``Dense`` of at least as many units as ranks on a 2-D input, is
split (as in a chain) where the model passes through it alone: in Keras' run order
(:func:`.mask_flow.run_order`), nothing computed before it is read after it but its
input, neither its input nor its output carries a Keras mask, and it has no
``activity_regularizer`` (whose penalty a block computes).  The layers between
two such cuts (and before the first, after the last) are one *block*: a replicated stage
whose programs are the block as a model of its own (``Model(cut, outputs)``), emitted
with the model's own mask flow, so branches, attention and masks inside it are those
of one process.  The last block may end in several outputs, each with its Keras mask,
which the loss head takes as one process's step takes them.  A block's forward and
backward programs are built as :class:`~.model_parallel_fit._ReplicatedStage`'s (the
random draws of the forward fed to the backward).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import distributed as dist
from ..autodiff.symbolic import Graph, gradients
from . import model_parallel_options as options
from .layers_conv import Conv1D
from .layers_core import Context, Dense
from .model_parallel import _compile


def _cut_at(order: list, i: int, model: Any) -> bool:
    """Whether the model passes through call ``order[i]`` alone (see the module doc)."""
    call = order[i]
    if len(call.inputs) != 1 or call.options or call.inputs[0].masked:
        return False
    source = call.inputs[0]
    before = {id(c) for c in order[:i]}
    for later in order[i + 1:]:
        for t in later.inputs:
            if t is source or t is model.input or (t.call is not None and
                                                   id(t.call) in before):
                return False
    outs = [t for c in order[i + 1:] for t in c.inputs if t.call is call] + \
        [t for t in model.outputs if t.call is call]
    if any(t.masked or t.index is not None for t in outs):
        return False
    # the model's outputs all come after it (the last block computes them all), or it
    # computes the only one
    after = all(t.call is not None and id(t.call) not in before and t.call is not call
                for t in model.outputs)
    return after or (len(model.outputs) == 1 and model.outputs[0].call is call)


def _output_of(call: Any, order: list, model: Any) -> Any:
    """The tensor of a split call that later calls (or the model's output) read."""
    return next(t for t in [*(t for c in order for t in c.inputs), *model.outputs]
                if t.call is call)


def structure(model: Any) -> list:
    """What the ranks compare before model-parallel training of a model that has no
    config (``get_config`` takes chains): each call's layer class and config, the
    calls and outputs it reads (by position; "input": the model's) and its options."""
    calls = model._calls
    where = {id(c): i for i, c in enumerate(calls)}

    def source(t):
        return "input" if t is model.input else [where[id(t.call)], t.index]
    return [[[type(c.layer).__name__, c.layer.get_config(), [source(t) for t in c.inputs],
              sorted(c.options.items())] for c in calls],
            [source(t) for t in model.outputs], list(model.input.shape), model.input.dtype]


def split_calls(model: Any, count: int) -> tuple[list, list[int]]:
    """Keras' run order of the model's calls, and the positions of those split."""
    from .mask_flow import run_order
    order = run_order(model._calls, model.input)
    uses: dict[int, int] = {}
    for call in order:
        uses[id(call.layer)] = uses.get(id(call.layer), 0) + 1
    cuts = []
    for i, call in enumerate(order):
        layer = call.layer
        kind = isinstance(layer, Conv1D) or (isinstance(layer, Dense) and layer.units >= count
                                             and len(call.inputs[0].shape) == 2)
        kind = kind and getattr(layer, "activity_regularizer", None) is None
        if kind and uses[id(layer)] == 1 and _cut_at(order, i, model):
            cuts.append(i)
    return order, cuts


class BlockStage:
    """A replicated block of calls (see the module doc): input the cut before it (or
    the model's input), outputs the cut after it, or the model's outputs (``last``)."""

    def __init__(self, model: Any, source: Any, outputs: list, trainable: set,
                 need_dx: bool, last: bool, index: int) -> None:
        from .model import Model
        from .model_parallel_fit import _Param
        sub = Model(source, outputs if last and len(outputs) > 1 else outputs[0],
                    name=f"{model.name}_block{index}")
        self.layers = sub.layers
        self.params = [_Param(w, id(w) in trainable)
                       for w in {id(w): w for layer in self.layers
                                 for w in layer.weights}.values()]
        self.updates: list = []
        self.last, self.need_dx, self.tiled = last, need_dx, False
        g = Graph(prefix=f"b{index}_")
        x = g.input("x", source.shape, active=need_dx)
        wvars = [g.input(f"w{i}", p.weight.value.shape, active=p.trainable)
                 for i, p in enumerate(self.params)]
        by_weight = {id(p.weight): v for p, v in zip(self.params, wvars)}
        updates: list = []

        def ctx_for(layer):
            ctx = Context(g, {w.name.split("/", 1)[1]: by_weight[id(w)]
                              for w in layer.weights}, True)
            ctx.updates = updates
            return ctx
        penalties: list = []
        outs, masks = sub.emit_outputs(
            ctx_for, x, lambda layer, y: options.activity_terms(g, layer, y, penalties))
        if not last and masks[0] is not None:
            from .model_parallel_fit import _error
            raise _error(f"the output of block {index} of model '{model.name}' carries a "
                         "Keras mask into a split layer, which does not take one")
        self.mask_shapes = [None if m is None else m.shape for m in masks]
        draws = [s.out for s in g.stmts if s.primitive.startswith("random")]
        self.updated = [w for w, _ in updates]
        name = f"mp_fit_{model.name}_block{index}"
        kept_masks = [m for m in masks if m is not None] if last else []
        self._forward = _compile(f"{name}_forward", g, [x, *wvars],
                                 [outs, kept_masks, draws, [v for _, v in updates],
                                  penalties])
        self.penalty = np.float32(0.0)
        wrt = ([x] if need_dx else []) + [v for p, v in zip(self.params, wvars)
                                          if p.trainable]
        self._backward = None
        self.has_grad: list = []
        if wrt and any(o.active for o in outs):
            g.stmts[:] = [s for s in g.stmts if not s.primitive.startswith("random")]
            cts = [g.input(f"ct{i}", o.shape) for i, o in enumerate(outs)]
            terms = [g.op("sum", g.op("__mul", o, c, shape=o.shape), shape=())
                     for o, c in zip(outs, cts) if o.active]
            terms += penalties
            loss = terms[0] if len(terms) == 1 else g.op("__add", *terms, shape=())
            grads = gradients(g, loss, wrt)
            self.has_grad = [d is not None for d in grads[1 if need_dx else 0:]]
            grads = [d if d is not None else g.op("__mul", v, 0.0, shape=v.shape)
                     for v, d in zip(wrt, grads)]
            self._backward = _compile(f"{name}_backward", g, [x, *wvars, *draws, *cts],
                                      grads)
        self.several = last and len(outs) > 1
        self.out_masks: list = []
        self._saved: tuple = ()

    def forward(self, h: np.ndarray) -> Any:
        values = [p.value for p in self.params]
        outs, masks, draws, updates, penalties = self._forward(h, *values)
        self._saved = (h, values, list(draws))
        self.updates = list(zip(self.updated, updates))
        self.penalty = options.total(penalties)
        self.out_masks = [np.asarray(m) for m in masks]
        outs = [np.asarray(o) for o in outs]
        return outs if self.several else outs[0]

    def backward(self, ct: Any):
        grads: list = [None] * len(self.params)
        if self._backward is None:
            return None, grads
        h, values, draws = self._saved
        cts = [np.asarray(c, np.float32) for c in (ct if self.several else [ct])]
        found = [np.asarray(d) for d in self._backward(h, *values, *draws, *cts)]
        dx = found.pop(0) if self.need_dx else None
        trainable = [i for i, p in enumerate(self.params) if p.trainable]
        for i, d, has in zip(trainable, found, self.has_grad):
            grads[i] = d if has else None
        return dx, grads


def plan(model: Any, conv_split: str, tiles: Any) -> list:
    """The stages of a model that is not a plain chain (see the module doc)."""
    from .model_parallel_fit import SPLITS, _ConvStage, _DenseStage, _error
    count = dist.num_localities()
    order, cuts = split_calls(model, count)
    if not cuts:
        raise _error(f"model '{model.name}' has no Conv1D, and no Dense with at least "
                     f"{count} units on a 2-D input, through which the model passes alone "
                     "(no branch around it, no Keras mask into or out of it), to split "
                     "over the localities: train with distributed='data'")
    trainable = {id(w) for w in model.trainable_weights}
    stages: list = []
    weights_before = False
    source = model.input
    spans = []
    start = 0
    for i in cuts:
        if i > start:
            spans.append(("block", start, i))
        spans.append(("split", i, i + 1))
        start = i + 1
    if start < len(order):
        spans.append(("block", start, len(order)))
    owner: dict[int, int] = {}       # a layer with weights in one stage only
    for k, (_, a, b) in enumerate(spans):
        for call in order[a:b]:
            if call.layer.weights and owner.setdefault(id(call.layer), k) != k:
                raise _error(f"layer '{call.layer.name}' ({type(call.layer).__name__}) "
                             f"is used on both sides of a split layer in model "
                             f"'{model.name}': its gradients would come from two stages")
    for k, (kind, a, b) in enumerate(spans):
        last = b == len(order)
        if kind == "split":
            layer = order[a].layer
            stage: Any = _ConvStage(layer, SPLITS[conv_split], trainable, tiles) \
                if isinstance(layer, Conv1D) else _DenseStage(layer, trainable)
            out = _output_of(order[a], order, model)
        else:
            out_tensors = list(model.outputs) if last else \
                [order[b].inputs[0]]
            stage = BlockStage(model, source, out_tensors, trainable, weights_before,
                               last, k)
            out = out_tensors[0]
        stage.need_dx = weights_before
        stages.append(stage)
        weights_before = weights_before or any(p.trainable for p in stage.params)
        source = out
    return stages
