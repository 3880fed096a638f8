"""Keras-like neural networks whose training step is one execution tree.

::

    from phylanx import nn
    model = nn.Sequential([nn.Input((64,)), nn.Dense(64, activation="relu"),
                           nn.Dense(10, activation="softmax")])
    model.compile(optimizer=nn.optimizers.Adam(), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(x, y, batch_size=32, epochs=5, validation_split=0.1)

Layers, losses, metrics and optimizers keep Keras' names, defaults and formulas
(``docs/nn.md`` lists them and the differences).  ``fit`` compiles one PhySL function —
forward pass, loss, generated backward pass and optimizer update — once per model and
calls it for every batch (:mod:`.training`); the backward pass is
:mod:`phylanx.autodiff.symbolic`'s, from the VJP rule table.
"""
from __future__ import annotations

from . import (
    activations,
    callbacks,
    initializers,
    layers,
    losses,
    metrics,
    optimizers,
    regularizers,
    schedules,
)
from .callbacks import Callback, EarlyStopping, History
from .initializers import set_seed
from .layers import *  # noqa: F403 - the layer classes, by Keras name
from .layers import __all__ as _layer_names
from .layers_core import Layer, clear_session
from .model import Input, Model, Sequential
from .optimizers import SGD, Adam, AdamW, RMSprop
from .saving import load_model, save_model
from .training import COMPILATIONS, TrainingDivergedError

__all__ = [
    *_layer_names, "COMPILATIONS", "SGD", "Adam", "AdamW", "Callback", "EarlyStopping",
    "History", "regularizers", "schedules",
    "Input", "Layer", "Model", "RMSprop", "Sequential", "TrainingDivergedError",
    "activations", "callbacks", "clear_session", "initializers", "layers", "load_model",
    "losses", "metrics", "optimizers", "save_model", "set_seed",
]
