"""Model-parallel ``fit``'s regularizers and gradient norms over weights split by columns
(:mod:`.model_parallel_fit`): what one process computes over a whole weight, computed
on each rank's block and summed over the ranks.

* Weight regularizers (``kernel_regularizer``, ``bias_regularizer`` ...): each rank's
  penalty of its block and that penalty's gradient (element-wise, so the block's of the
  whole weight's), one compiled program.  The penalty of a split weight is summed over
  the ranks, that of a whole (replicated) weight taken once, and added to the step's
  loss as one process adds ``model.losses``; the gradients join the loss's.
* ``clipnorm``/``global_clipnorm``: the squared norm of a split weight's gradient is
  the sum of its blocks' over the ranks (a rank's own norm would clip each block by
  its part: a silent wrong answer); a replicated weight's gradient is the same on every
  rank and counted once.  The squares go into the update program, where the
  optimizer's own ``clip`` takes them.
* ``clipvalue`` and ``weight_decay`` are element-wise: the optimizer's statements on the
  blocks in the update program, nothing here.
* ``activity_regularizer``: a layer with one is not split; the replicated stage running
  it adds its penalty (:func:`activity_terms`) to its forward's results and to its
  backward's loss.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import distributed as dist
from ..autodiff.symbolic import Graph, gradients
from .model_parallel import _compile


def regularized(stages: list) -> list[tuple[Any, Any]]:
    """(param, regularizer) of every regularized weight of the stages' layers."""
    by_weight = {id(p.weight): p for stage in stages for p in stage.params}
    found = []
    for stage in stages:
        layers = stage.layers if hasattr(stage, "layers") else [stage.layer]
        for layer in layers:
            for name, (_, reg) in getattr(layer, "weight_regularizers", {}).items():
                weight = next((w for w in layer.weights
                               if w.name.split("/", 1)[1] == name), None)
                if weight is not None and all(p is not by_weight[id(weight)]
                                              for p, _ in found):
                    found.append((by_weight[id(weight)], reg))
    return found


def total(values: list) -> np.float32:
    """A float32 sum, in order (0 for none)."""
    out = np.float32(0.0)
    for v in values:
        out = np.float32(out + np.float32(v))
    return out


def activity_terms(g: Graph, layer: Any, output: Any, terms: list) -> None:
    """Append ``layer``'s activity penalty of its ``output`` (over the batch size, as
    one process's step) to ``terms``, if it has one: for a replicated stage, whose
    batch is the whole one."""
    from .regularizers import activity_penalty
    reg = getattr(layer, "activity_regularizer", None)
    term = None if reg is None else activity_penalty(g, reg, output)
    if term is not None:
        terms.append(term)


def split_sums(values: list[float], split: list[bool], name: str) -> list[np.float32]:
    """Collective when any is split: ``values`` (per weight, this rank's part) with the
    split weights' summed over the ranks (one all-reduce), the others as they are."""
    values = [np.float32(v) for v in values]
    parts = [v for v, s in zip(values, split) if s]
    if not parts:
        return values
    total = iter(np.asarray(dist.all_reduce(np.array(parts, np.float32), "sum",
                                            name).result(), np.float32))
    return [next(total) if s else v for v, s in zip(values, split)]


class Penalties:
    """The regularizers' penalty (whole weights', summed over the ranks) and gradients
    of this rank's blocks."""

    def __init__(self, stages: list) -> None:
        self.terms = regularized(stages)
        self._program: Any = None

    def __call__(self) -> tuple[np.float32, dict[int, np.ndarray]]:
        """Collective when a regularized weight is split: (the total penalty, by
        ``id(param)`` the gradient of a trainable regularized param's block)."""
        if self._program is None:
            self._program = self._compile()
        program, kept, trained = self._program
        if program is None:
            return np.float32(0.0), {}
        found = program(*[p.value for p in kept])
        values = [np.float32(v) for v in found[0]]
        whole = split_sums(values, [p.columns is not None for p in kept],
                           "mp_fit_penalties")
        return total(whole), {id(p): np.asarray(d, np.float32) for p, d in zip(trained, found[1])}

    def _compile(self) -> tuple:
        """(program or None, the params with a penalty, those of them trained)."""
        g = Graph(prefix="p")
        kept, inputs, terms = [], [], []
        for p, reg in self.terms:
            v = g.input(f"w{len(kept)}", p.value.shape, active=p.trainable)
            term = reg.emit(g, v)
            if term is not None:    # (L1L2(0, 0) adds nothing, writes nothing)
                kept.append(p)
                inputs.append(v)
                terms.append(term)
        if not kept:
            return None, [], []
        trained = [(p, v) for p, v in zip(kept, inputs) if p.trainable]
        grads = []
        if trained:
            total = terms[0] if len(terms) == 1 else g.op("__add", *terms, shape=())
            grads = gradients(g, total, [v for _, v in trained])
        program = _compile("mp_fit_penalties", g, inputs, [terms, grads])
        return program, kept, [p for p, _ in trained]


def squared_norms(params: list, grads: list[np.ndarray]) -> list[np.float32]:
    """Collective when a param is split: each gradient's squared L2 norm, a split
    weight's over all the ranks' blocks."""
    local = [np.sum(np.square(d, dtype=np.float32), dtype=np.float32) for d in grads]
    return split_sums(local, [p.columns is not None for p in params], "mp_fit_grad_norms")
