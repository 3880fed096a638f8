"""Training scenarios run alike by phylanx.nn and by Keras 3 (JAX backend): the same
data, initial weights and settings, one spec per Keras training feature.

``run_phylanx(name)`` and ``run_keras(name)`` return the same record: the History
(per-epoch values), the final weights, and per scenario the values of ``evaluate`` or
of the ``*_on_batch`` calls.  tests/nn/test_keras_training.py compares them; the Keras
records are stored in tests/nn/refs/keras_training.{json,npz} by
tools/regen_keras_refs.py, for machines without Keras.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

N_SAMPLES, FEATURES, CLASSES = 48, 6, 3


def _data(loss: str):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((N_SAMPLES, FEATURES)).astype(np.float32)
    if loss == "mse":
        y = rng.standard_normal((N_SAMPLES, 2)).astype(np.float32)
    else:
        y = rng.integers(0, CLASSES, N_SAMPLES).astype(np.int64)
    w = rng.uniform(0.0, 2.0, N_SAMPLES).astype(np.float32)
    return x, y, w


def _initial_weights(units: list[int]) -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    weights, fan_in = [], FEATURES
    for u in units:
        weights.append(rng.uniform(-0.6, 0.6, (fan_in, u)).astype(np.float32))
        weights.append(rng.uniform(-0.2, 0.2, (u,)).astype(np.float32))
        fan_in = u
    return weights


def halve_after_first(epoch, lr):
    """A LearningRateScheduler schedule (Keras' two-argument form)."""
    return lr if epoch == 0 else lr * 0.5


CLASSIFY = {"loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"],
            "layers": [(8, "relu", {}), (CLASSES, "softmax", {})]}
REGRESS = {"loss": "mse", "metrics": [], "layers": [(8, "tanh", {}), (2, None, {})]}

SCENARIOS: dict[str, dict[str, Any]] = {
    "sample_weight": {**CLASSIFY, "optimizer": ("SGD", {"learning_rate": 0.1}),
                      "fit": {"sample_weight": True, "validation_split": 0.25},
                      "evaluate": {"sample_weight": True}},
    "class_weight": {**CLASSIFY, "optimizer": ("Adam", {"learning_rate": 0.01}),
                     "fit": {"class_weight": {0: 1.0, 1: 2.5, 2: 0.5}}},
    "clipnorm": {**REGRESS, "optimizer": ("SGD", {"learning_rate": 0.1, "momentum": 0.9,
                                                   "clipnorm": 0.5})},
    "clipvalue": {**REGRESS, "optimizer": ("RMSprop", {"learning_rate": 0.01,
                                                       "clipvalue": 0.05})},
    "rmsprop_centered": {**REGRESS, "optimizer": ("RMSprop", {"learning_rate": 0.01,
                                                              "momentum": 0.5,
                                                              "centered": True})},
    "global_clipnorm": {**CLASSIFY, "optimizer": ("Adam", {"learning_rate": 0.05,
                                                           "global_clipnorm": 0.3})},
    "weight_decay": {**REGRESS, "optimizer": ("SGD", {"learning_rate": 0.1,
                                                      "weight_decay": 0.05})},
    "adamw": {**CLASSIFY, "optimizer": ("AdamW", {"learning_rate": 0.02,
                                                  "weight_decay": 0.1})},
    "amsgrad": {**REGRESS, "optimizer": ("Adam", {"learning_rate": 0.05, "beta_2": 0.5,
                                                  "amsgrad": True})},
    "regularizers": {"loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"],
                     "layers": [(8, "relu", {"kernel_regularizer": ("L2", {"l2": 0.01}),
                                             "bias_regularizer": "l1",
                                             "activity_regularizer": ("L1L2", {"l1": 0.01,
                                                                               "l2": 0.02})}),
                                (CLASSES, "softmax", {"kernel_regularizer": "l2"})],
                     "optimizer": ("SGD", {"learning_rate": 0.05}),
                     "fit": {"validation_split": 0.25}, "evaluate": {}},
    "exponential_decay": {**REGRESS, "optimizer": ("SGD", {"learning_rate": (
        "ExponentialDecay", {"initial_learning_rate": 0.2, "decay_steps": 3,
                             "decay_rate": 0.5, "staircase": True})})},
    "piecewise_constant": {**REGRESS, "optimizer": ("SGD", {"learning_rate": (
        "PiecewiseConstantDecay", {"boundaries": [2, 5], "values": [0.2, 0.1, 0.05]})})},
    "cosine_warmup": {**CLASSIFY, "optimizer": ("Adam", {"learning_rate": (
        "CosineDecay", {"initial_learning_rate": 0.001, "decay_steps": 6, "alpha": 0.1,
                        "warmup_target": 0.02, "warmup_steps": 3})})},
    "inverse_time": {**REGRESS, "optimizer": ("RMSprop", {"learning_rate": (
        "InverseTimeDecay", {"initial_learning_rate": 0.01, "decay_steps": 2,
                             "decay_rate": 0.5})})},
    "reduce_lr": {**REGRESS, "optimizer": ("SGD", {"learning_rate": 0.1}),
                  "callbacks": [("ReduceLROnPlateau", {"monitor": "loss", "factor": 0.5,
                                                       "patience": 0, "min_delta": 10.0})]},
    "lr_scheduler": {**REGRESS, "optimizer": ("SGD", {"learning_rate": 0.1}),
                     "callbacks": [("LearningRateScheduler", {})]},
    "on_batch": {**CLASSIFY, "optimizer": ("Adam", {"learning_rate": 0.01}),
                 "on_batch": True},
}


def _regularizer(spec: Any, module: Any) -> Any:
    if isinstance(spec, tuple):
        return getattr(module, spec[0])(**spec[1])
    return spec


def _learning_rate(value: Any, module: Any) -> Any:
    if isinstance(value, tuple):
        return getattr(module, value[0])(**value[1])
    return value


def _run(name: str, lib: Any) -> dict:
    """The scenario with ``lib``, a namespace of the library's classes (see below)."""
    spec = SCENARIOS[name]
    x, y, w = _data(spec["loss"])
    layers = [lib.Input((FEATURES,))]
    for units, activation, regs in spec["layers"]:
        layers.append(lib.Dense(units, activation=activation,
                                **{k: _regularizer(v, lib.regularizers)
                                   for k, v in regs.items()}))
    model = lib.Sequential(layers)
    model.set_weights(_initial_weights([u for u, _, _ in spec["layers"]]))
    opt_name, opt_args = spec["optimizer"]
    opt_args = {k: _learning_rate(v, lib.schedules) for k, v in opt_args.items()}
    model.compile(optimizer=getattr(lib.optimizers, opt_name)(**opt_args),
                  loss=spec["loss"], metrics=list(spec["metrics"]), **lib.compile_options)
    record: dict[str, Any] = {}
    if spec.get("on_batch"):
        results = []
        for start in range(0, 32, 16):
            results.append(model.train_on_batch(x[start:start + 16], y[start:start + 16],
                                                return_dict=True))
        results.append(model.train_on_batch(x[32:], y[32:], sample_weight=w[32:],
                                            return_dict=True))
        results.append(model.test_on_batch(x[:20], y[:20], sample_weight=w[:20],
                                           return_dict=True))
        record["on_batch"] = [{k: float(v) for k, v in r.items()} for r in results]
        record["predict_on_batch"] = np.asarray(model.predict_on_batch(x[:5]))
    else:
        fit = dict(spec.get("fit", {}))
        if fit.pop("sample_weight", False):
            fit["sample_weight"] = w
        callbacks = [getattr(lib.callbacks, c)(halve_after_first)
                     if c == "LearningRateScheduler" else getattr(lib.callbacks, c)(**a)
                     for c, a in spec.get("callbacks", [])]
        history = model.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0,
                            callbacks=callbacks, **fit)
        record["history"] = {k: [float(v) for v in vs] for k, vs in history.history.items()}
        if "evaluate" in spec:
            extra = {"sample_weight": w} if spec["evaluate"].get("sample_weight") else {}
            record["evaluate"] = {k: float(v) for k, v in model.evaluate(
                x, y, batch_size=16, verbose=0, return_dict=True, **extra).items()}
    record["weights"] = [np.asarray(v) for v in model.get_weights()]
    return record


class _Namespace:
    def __init__(self, **items: Any) -> None:
        self.__dict__.update(items)


def run_phylanx(name: str) -> dict:
    from phylanx import nn
    nn.clear_session()
    return _run(name, _Namespace(
        Input=nn.Input, Dense=nn.Dense, Sequential=nn.Sequential,
        regularizers=nn.regularizers, schedules=nn.schedules, optimizers=nn.optimizers,
        callbacks=nn.callbacks, compile_options={}))


def run_keras(name: str) -> dict:
    os.environ.setdefault("KERAS_BACKEND", "jax")
    import keras
    keras.utils.clear_session()
    return _run(name, _Namespace(
        Input=keras.Input, Dense=keras.layers.Dense, Sequential=keras.Sequential,
        regularizers=keras.regularizers, schedules=keras.optimizers.schedules,
        optimizers=keras.optimizers, callbacks=keras.callbacks, compile_options={}))
