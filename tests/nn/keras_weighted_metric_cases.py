"""compile's ``weighted_metrics`` compared with Keras 3 (JAX backend), from the same
data and initial weights (phylanx's initialisers).

``classes``: one output, ``accuracy`` both unweighted and weighted (Keras logs the
weighted one as ``weighted_accuracy``), trained with ``class_weight``, validated with
weighted ``validation_data``, evaluated with ``sample_weight``.  ``regression``: one
output, ``mae`` both ways and a weighted ``mse``, weights per sample split by
``validation_split``.  ``two_outputs``: weighted metrics for one of two outputs (a dict
leaving the other out), one weight array per output.  ``masked``: a masked sequence
output's weighted accuracy, weights per step (``w * mask`` weighs each step).

``reference(name)`` runs Keras; ``tools/keras_case_references.py weighted_metrics``
stores it in ``tests/nn/data/keras_weighted_metrics.npz`` (the live comparison is
opt-in: ``PHYLANX_KERAS_LIVE=1``).
"""
from __future__ import annotations

import os
import sys

import numpy as np

from phylanx import nn

from . import keras_stored, keras_weight_cases

os.environ.setdefault("KERAS_BACKEND", "jax")
STORED = os.path.join(os.path.dirname(__file__), "data", "keras_weighted_metrics.npz")
SAMPLES, STEPS, VOCABULARY, BATCH, EPOCHS, LEARNING_RATE = 16, 5, 10, 6, 2, 0.2


def _classes(L):
    x = L.Input((4,))
    return x, L.Dense(3, activation="softmax")(L.Dense(5, activation="tanh")(x))


def _regression(L):
    x = L.Input((4,))
    return x, L.Dense(2)(L.Dense(5, activation="tanh")(x))


def _masked(L):
    x = L.Input((STEPS,))
    h = L.GRU(3, return_sequences=True)(L.Embedding(VOCABULARY, 4, mask_zero=True)(x))
    return x, L.Dense(3, activation="softmax", name="tags")(h)


# (two_outputs: the model of keras_weight_cases' case of that name)
CASES = {"classes": _classes, "regression": _regression,
         "two_outputs": keras_weight_cases.CASES["two_outputs"], "masked": _masked}
COMPILE = {
    "classes": {"loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"],
                "weighted_metrics": ["accuracy"]},
    "regression": {"loss": "mse", "metrics": ["mae"], "weighted_metrics": ["mae", "mse"]},
    "two_outputs": {"loss": ["sparse_categorical_crossentropy", "mse"],
                    "loss_weights": [1.0, 0.5], "metrics": [["accuracy"], ["mae"]],
                    "weighted_metrics": {"b": ["mae", "mse"]}},
    "masked": {"loss": "sparse_categorical_crossentropy", "weighted_metrics": ["accuracy"]},
}
#: Keras 3.15 on JAX computes a masked output's training metrics over every step (see
#: keras_weight_cases.KERAS_TRAINING_MASK_LOST): not compared; evaluation's are
KERAS_TRAINING_MASK_LOST = {"masked": ["accuracy"]}


def data(name: str) -> dict:
    """The case's inputs, targets, weights (``w``: fit's, ``cw``: class weights, ``ew``:
    evaluate's) and validation data."""
    rng = np.random.default_rng(list(CASES).index(name) + 90)
    n = SAMPLES
    if name == "masked":
        x = rng.integers(1, VOCABULARY, (n, STEPS))
        lengths = rng.integers(0, STEPS + 1, n)
        x[np.arange(STEPS) >= lengths[:, None]] = 0      # padding; some rows all padding
        y = rng.integers(0, 3, (n, STEPS))
        return {"x": x, "y": y, "w": rng.uniform(0, 2, (n, STEPS)).astype(np.float32),
                "ew": rng.uniform(0, 2, (n, STEPS)).astype(np.float32)}
    x = rng.normal(size=(n, 4)).astype(np.float32)
    labels = rng.integers(0, 3, n)
    values = rng.normal(size=(n, 2)).astype(np.float32)
    w = rng.uniform(0, 2, n).astype(np.float32)
    ew = rng.uniform(0, 2, n).astype(np.float32)
    if name == "classes":
        return {"x": x, "y": labels, "cw": {0: 0.5, 1: 2.0, 2: 1.25}, "ew": ew,
                "vx": x[:7], "vy": labels[:7], "vw": ew[:7]}
    if name == "regression":
        return {"x": x, "y": values, "w": w, "ew": ew}
    w2 = rng.uniform(0, 2, n).astype(np.float32)
    return {"x": x, "y": [labels, values], "w": [w, w2], "ew": ew,
            "vx": x[:7], "vy": [labels[:7], values[:7]], "vw": [ew[:7], w[:7]]}


def phylanx_model(name: str) -> nn.Model:
    return keras_stored.phylanx_model(sys.modules[__name__], name, 190)


def keras_model(name: str):
    return keras_stored.keras_model(sys.modules[__name__], name)


def run(model, name: str, keras_api: bool) -> dict:
    """EPOCHS epochs of SGD (batches in order) with the case's weights, then
    ``evaluate``, ``train_on_batch`` and ``test_on_batch`` with weights
    (``keras_stored.weighed_run``)."""
    given = data(name)
    model.compile(optimizer=keras_stored.sgd(keras_api, LEARNING_RATE), **COMPILE[name])
    return keras_stored.weighed_run(model, given, BATCH, EPOCHS, given["ew"],
                                    class_weight=given.get("cw"))


def reference(name: str, model=None) -> dict:
    """Keras' run of case ``name`` from phylanx's initial weights."""
    return keras_stored.reference(sys.modules[__name__], name, model)


def stored(name: str) -> dict:
    """The stored reference of case ``name`` (``tools/keras_case_references.py
    weighted_metrics``)."""
    return keras_stored.stored(STORED, name,
                               "tools/keras_case_references.py weighted_metrics",
                               ("initial", "final"))
