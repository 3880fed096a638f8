"""Weight and activity regularizers (Keras 3's ``L1``, ``L2``, ``L1L2``), written into
the step as terms added to the loss.

``kernel_regularizer=l2(0.01)`` on a layer adds ``0.01 * sum(kernel ** 2)`` to the loss
of every training and evaluation step, as Keras 3 adds ``model.losses``; the ``loss`` in
the logs and in ``History`` includes it, as in Keras.  ``activity_regularizer`` adds the
penalty of the layer's output divided by the batch size (Keras 3 normalises it so).
Names: ``"l1"`` (``L1(0.01)``), ``"l2"`` (``L2(0.01)``), ``"l1_l2"`` (``L1L2()``, both 0
as in Keras), the class names, or a ``{"class_name", "config"}`` dict (a layer's config).

Which layers take which argument: :data:`ARGUMENTS` (a layer class may instead list its
own in a ``regularizer_arguments`` attribute); any layer takes ``activity_regularizer``.
An argument a layer does not take is an error, never ignored.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..autodiff.symbolic import Graph, Var
from . import arguments as args


class Regularizer:
    """Base class: :meth:`emit` writes the penalty of a weight or output."""

    def emit(self, g: Graph, x: Var) -> Var | None:
        raise NotImplementedError

    def penalty(self, x: np.ndarray) -> float:
        """The same penalty of a NumPy array (float64), for tests and reports."""
        raise NotImplementedError

    def get_config(self) -> dict:
        return {}

    def serialize(self) -> dict:
        return {"class_name": type(self).__name__, "config": self.get_config()}


def _factor(value: Any, name: str, where: str) -> float:
    return args.real(0.0 if value is None else value, name, where, 0.0)


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x ** 2)``."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        where = type(self).__name__
        self.l1 = _factor(l1, "l1", where)
        self.l2 = _factor(l2, "l2", where)

    def emit(self, g, x):
        terms = []
        if self.l1:
            total = g.op("sum", g.op("absolute", x, shape=x.shape), shape=())
            terms.append(g.op("__mul", total, self.l1, shape=(), hint="l1"))
        if self.l2:
            total = g.op("sum", g.op("square", x, shape=x.shape), shape=())
            terms.append(g.op("__mul", total, self.l2, shape=(), hint="l2"))
        if not terms:
            return None
        return terms[0] if len(terms) == 1 else g.op("__add", *terms, shape=())

    def penalty(self, x):
        x = np.asarray(x, np.float64)
        return self.l1 * np.abs(x).sum() + self.l2 * np.square(x).sum()

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    def __init__(self, l1: float = 0.01) -> None:
        super().__init__(l1=l1)

    def get_config(self):
        return {"l1": self.l1}


class L2(L1L2):
    def __init__(self, l2: float = 0.01) -> None:
        super().__init__(l2=l2)

    def get_config(self):
        return {"l2": self.l2}


# Keras exports the classes under these names too: regularizers.l2(0.01)
l1, l2, l1_l2 = L1, L2, L1L2

CLASSES = {"L1": L1, "L2": L2, "L1L2": L1L2}
NAMES = {"l1": L1, "l2": L2, "l1_l2": L1L2, **CLASSES}

#: layer class name -> the regularizer arguments it takes (besides activity_regularizer)
ARGUMENTS = {
    "Dense": ("kernel_regularizer", "bias_regularizer"),
    "Conv1D": ("kernel_regularizer", "bias_regularizer"),
    "SimpleRNN": ("kernel_regularizer", "recurrent_regularizer", "bias_regularizer"),
    "LSTM": ("kernel_regularizer", "recurrent_regularizer", "bias_regularizer"),
    "GRU": ("kernel_regularizer", "recurrent_regularizer", "bias_regularizer"),
    "Conv2D": ("kernel_regularizer", "bias_regularizer"),
    "Embedding": ("embeddings_regularizer",),
    "BatchNormalization": ("beta_regularizer", "gamma_regularizer"),
    "LayerNormalization": ("beta_regularizer", "gamma_regularizer"),
}
#: argument -> the weight (by its name in the layer) it regularizes
WEIGHTS = {"kernel_regularizer": "kernel", "bias_regularizer": "bias",
           "recurrent_regularizer": "recurrent_kernel",
           "embeddings_regularizer": "embeddings", "beta_regularizer": "beta",
           "gamma_regularizer": "gamma"}


def get(identifier: Any, where: str = "regularizers.get") -> Regularizer | None:
    """A regularizer from a name, a config dict or an instance (None stays None)."""
    if identifier is None or isinstance(identifier, Regularizer):
        return identifier
    if isinstance(identifier, str):
        cls = NAMES.get(identifier)
        if cls is None:
            raise args.value_error(where, f"unknown regularizer {identifier!r}; known: "
                                          f"{', '.join(NAMES)}")
        return cls()
    if isinstance(identifier, dict) and identifier.get("class_name") in CLASSES:
        return CLASSES[identifier["class_name"]](**identifier.get("config", {}))
    raise args.type_error(where, "a regularizer must be 'l1', 'l2', 'l1_l2', an "
                                 "nn.regularizers instance or its config, got "
                                 f"{identifier!r} (a Python function cannot be written "
                                 "into the training step)")


def attach(layer: Any, options: dict) -> None:
    """Take the regularizer arguments out of a layer constructor's ``options`` and keep
    them on the layer (``layer.weight_regularizers``, ``layer.activity_regularizer``)."""
    where = type(layer).__name__
    accepted = getattr(type(layer), "regularizer_arguments", ARGUMENTS.get(where, ()))
    layer.weight_regularizers = {}
    for argument in [k for k in options if k in WEIGHTS]:
        value = options.pop(argument)
        if value is None:
            continue
        if argument not in accepted:
            raise args.type_error(where, f"{where} has no {WEIGHTS[argument]} weight to "
                                         f"regularize: {argument} is not one of its "
                                         "arguments")
        layer.weight_regularizers[WEIGHTS[argument]] = (argument, get(value, where))
    layer.activity_regularizer = get(options.pop("activity_regularizer", None), where)


def config(layer: Any) -> dict:
    """The regularizer arguments given to ``layer``, for its config."""
    found = {argument: reg.serialize()
             for argument, reg in getattr(layer, "weight_regularizers", {}).values()}
    activity = getattr(layer, "activity_regularizer", None)
    if activity is not None:
        found["activity_regularizer"] = activity.serialize()
    return found


def weight_penalties(g: Graph, layer: Any, local: dict[str, Var]) -> list[Var]:
    """The penalty terms of ``layer``'s regularized weights (``local``: name -> Var)."""
    terms = []
    for weight, (_, reg) in getattr(layer, "weight_regularizers", {}).items():
        if weight in local:
            term = reg.emit(g, local[weight])
            if term is not None:
                terms.append(term)
    return terms


def activity_penalty(g: Graph, reg: Regularizer, y: Var) -> Var | None:
    """``reg``'s penalty of the output ``y`` over the batch size (Keras 3)."""
    term = reg.emit(g, y)
    if term is None:
        return None
    count = g.op("shape", y, 0, shape=(), hint="batch")
    size = g.op("astype", count, "float32", shape=())
    return g.op("__div", term, size, shape=(), hint="activity")
