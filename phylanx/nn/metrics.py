"""Metrics by Keras name, written into the step's program (they carry no gradient).

``"accuracy"`` (or ``"acc"``) is resolved as Keras resolves it from the loss: binary
accuracy for ``binary_crossentropy`` (threshold 0.5 on probabilities, 0 on logits),
sparse categorical accuracy for ``sparse_categorical_crossentropy``, categorical
accuracy otherwise (binary when the output has one unit).  Also ``mse`` and ``mae``;
with integer labels (``sparse_categorical_crossentropy``: one per sample, the outputs
one per class) they compare each label with every class's output, as Keras computes
them for labels of shape ``(n, 1)`` (its error takes ``y_true`` as ``y_pred``'s dtype
and broadcasts it over the last axis).  A masked output's metrics are over its
unmasked steps (:class:`~.losses.MaskWeights`), each batch weighing as many as it has.

A weighted metric (compile's ``weighted_metrics``) is Keras' ``Mean`` of the values
weighed by the samples' weights (times a masked output's mask): ``sum(w * value) /
sum(w)`` over the batch (0 when ``sum(w)`` is 0, Keras' ``divide_no_nan``), weighing
``sum(w)`` in the epoch's value, so that the epoch's is ``sum(w * value) / sum(w)`` over
all its samples (:func:`weighing`, :func:`emit_weighted`).  An element-wise metric's
values are averaged over the axes the weights do not have first (a sample's over its
units, or over its steps for a weight per sample of a sequence output), as Keras.
"""
from __future__ import annotations

from typing import Any

from ..autodiff.symbolic import Graph, Var
from ..errors import PhylanxValueError
from . import losses
from .losses import Loss, MaskWeights


def check_name(name: Any) -> str:
    """The metric ``name`` stands for (``accuracy`` not yet resolved), or an error
    naming the metrics phylanx knows."""
    key = str(name).lower()
    aliases = {"acc": "accuracy", "mean_squared_error": "mse", "mean_absolute_error": "mae"}
    key = aliases.get(key, key)
    if key != "accuracy" and key not in _METRICS:
        raise PhylanxValueError(f"unknown metric {name!r}; known: accuracy, "
                                f"{', '.join(sorted(_METRICS))}")
    return key


def resolve(name: str, loss: Loss, output_shape: tuple) -> str:
    """The specific metric a name stands for (Keras' choice for ``accuracy``)."""
    key = check_name(name)
    if key == "accuracy":
        if loss.name == "binary_crossentropy" or (
                loss.name in ("mse", "mae") and output_shape[-1] == 1):
            return "binary_accuracy"
        if loss.name == "sparse_categorical_crossentropy":
            return "sparse_categorical_accuracy"
        return "categorical_accuracy"
    return key


def emit(kind: str, g: Graph, y: Var, p: Var, loss: Loss,
         masked: MaskWeights | None = None) -> Var:
    values = _METRICS[kind](g, y, p, loss)
    if masked is not None:
        return masked.reduce(g, values)
    return g.op("mean", values, shape=(), hint="metric")


def weighing(g: Graph, weights: Var | None, masked: MaskWeights | None,
             parallel: Any = None) -> MaskWeights | None:
    """How an output's weighted metrics reduce: each sample's (step's) weight, times
    the output's mask if it has one, as a :class:`~.losses.MaskWeights` whose count is
    the batch's ``sum(w)`` (data parallel: the global batch's); None when the output is
    given no weights (its weighted metrics are its metrics)."""
    if weights is None:
        return masked
    keep = weights
    if masked is not None:
        for _ in range(len(masked.keep.shape) - len(weights.shape)):
            keep = g.op("expand_dims", keep, -1, shape=tuple(keep.shape) + (1,))
        keep = g.op("__mul", keep, masked.keep, shape=masked.keep.shape, hint="masked")
    return losses.weighed_by(g, keep, parallel)


def emit_weighted(kind: str, g: Graph, y: Var, p: Var, loss: Loss,
                  weighed: MaskWeights | None) -> Var:
    """A weighted metric's value of the batch, ``sum(w * value) / sum(w)``
    (:func:`weighing`); unweighted (``weighed`` None), the metric's mean."""
    if weighed is None:
        return emit(kind, g, y, p, loss)
    values = _METRICS[kind](g, y, p, loss)
    while len(values.shape) > len(weighed.keep.shape):
        values = g.op("mean", values, -1, shape=values.shape[:-1])
    return weighed.reduce(g, values)


def _fraction(g: Graph, same: Var) -> Var:
    return g.op("astype", same, "float32", shape=same.shape)


def _binary(g, y, p, loss):
    threshold = 0.0 if loss.from_logits else 0.5
    predicted = g.op("__gt", p, threshold, shape=p.shape)
    truth = g.op("__gt", y, 0.5, shape=p.shape)
    return _fraction(g, g.op("__eq", predicted, truth, shape=p.shape))


def _categorical(g, y, p, loss):
    shape = p.shape[:-1]
    same = g.op("__eq", g.op("argmax", p, -1, shape=shape), g.op("argmax", y, -1, shape=shape),
                shape=shape)
    return _fraction(g, same)


def _sparse(g, y, p, loss):
    shape = p.shape[:-1]
    return _fraction(g, g.op("__eq", g.op("argmax", p, -1, shape=shape), y, shape=shape))


def _error(g, y, p):
    """``p - y``, integer labels (one fewer axis than ``p``) compared with every class:
    broadcast over the class axis, not, by NumPy's rule, over the batch axis (which
    mixed the labels of a batch of as many rows as classes, and failed for others)."""
    if len(y.shape) == len(p.shape) - 1:
        column = tuple(y.shape) + (1,)
        y = g.op("astype", g.op("expand_dims", y, -1, shape=column), "float32", shape=column)
    return g.op("__sub", p, y, shape=p.shape)


def _mse(g, y, p, loss):
    return g.op("square", _error(g, y, p), shape=p.shape)


def _mae(g, y, p, loss):
    return g.op("absolute", _error(g, y, p), shape=p.shape)


_METRICS = {
    "binary_accuracy": _binary,
    "categorical_accuracy": _categorical,
    "sparse_categorical_accuracy": _sparse,
    "mse": _mse,
    "mae": _mae,
}


def display_name(requested: str) -> str:
    """The key in logs and History: what the user asked for, as Keras 3 names it (its
    ``get_metric`` names a metric by the string given, its case too: ``"acc"`` logs
    ``acc``, not ``accuracy``, which phylanx logged before stop 48, ``"MAE"`` ``MAE``)."""
    return str(requested)
