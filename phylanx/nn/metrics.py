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
"""
from __future__ import annotations

from ..autodiff.symbolic import Graph, Var
from ..errors import PhylanxValueError
from .losses import Loss, MaskWeights


def resolve(name: str, loss: Loss, output_shape: tuple) -> str:
    """The specific metric a name stands for (Keras' choice for ``accuracy``)."""
    key = str(name).lower()
    aliases = {"acc": "accuracy", "mean_squared_error": "mse", "mean_absolute_error": "mae"}
    key = aliases.get(key, key)
    if key == "accuracy":
        if loss.name == "binary_crossentropy" or (
                loss.name in ("mse", "mae") and output_shape[-1] == 1):
            return "binary_accuracy"
        if loss.name == "sparse_categorical_crossentropy":
            return "sparse_categorical_accuracy"
        return "categorical_accuracy"
    if key not in _METRICS:
        raise PhylanxValueError(f"unknown metric {name!r}; known: accuracy, "
                                f"{', '.join(sorted(_METRICS))}")
    return key


def emit(kind: str, g: Graph, y: Var, p: Var, loss: Loss,
         masked: MaskWeights | None = None) -> Var:
    values = _METRICS[kind](g, y, p, loss)
    if masked is not None:
        return masked.reduce(g, values)
    return g.op("mean", values, shape=(), hint="metric")


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
    """The key in logs and History: what the user asked for, as Keras does."""
    key = str(requested).lower()
    return "accuracy" if key == "acc" else key
