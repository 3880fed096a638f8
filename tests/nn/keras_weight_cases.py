"""Sample weights of models of several outputs and of masked outputs compared with
Keras 3 (JAX backend), from the same data and initial weights (phylanx's
initialisers).

``two_outputs``: a model of two outputs with loss weights and metrics per output,
trained with one weight array per output (a ``(n, 1)`` one and a ``(n,)`` one),
validated with weighted ``validation_data``, evaluated with one array for both outputs,
and ``train_on_batch``/``test_on_batch`` with weights.  ``masked``: a masked sequence
output (``Embedding(mask_zero=True)``) trained with a weight per step, split by
``validation_split`` (the weights too), evaluated with a weight per sample (``(n, 1)``).
``two_masked``: a masked sequence output and a vector output, the first weighted per
sample, the second not (None).

``reference(name)`` runs Keras; ``tools/keras_case_references.py weights`` stores it in
``tests/nn/data/keras_weights.npz`` (Keras takes tens of seconds to build these
models, so the live comparison is opt-in: ``PHYLANX_KERAS_LIVE=1``).
"""
from __future__ import annotations

import os
import sys

import numpy as np

from phylanx import nn

from . import keras_stored

os.environ.setdefault("KERAS_BACKEND", "jax")
STORED = os.path.join(os.path.dirname(__file__), "data", "keras_weights.npz")
SAMPLES, STEPS, VOCABULARY, BATCH, EPOCHS, LEARNING_RATE = 16, 5, 10, 6, 2, 0.2


def _two_outputs(L):
    x = L.Input((4,))
    h = L.Dense(5, activation="tanh")(x)
    return x, [L.Dense(3, activation="softmax", name="a")(h), L.Dense(2, name="b")(h)]


def _masked(L):
    x = L.Input((STEPS,))
    h = L.LSTM(3, return_sequences=True)(L.Embedding(VOCABULARY, 4, mask_zero=True)(x))
    return x, L.Dense(3, activation="softmax", name="tags")(h)


def _two_masked(L):
    x = L.Input((STEPS,))
    e = L.Embedding(VOCABULARY, 4, mask_zero=True)(x)
    tags = L.Dense(3, activation="softmax", name="tags")(L.GRU(3, return_sequences=True)(e))
    return x, [tags, L.Dense(2, name="size")(L.LSTM(2)(e))]


CASES = {"two_outputs": _two_outputs, "masked": _masked, "two_masked": _two_masked}
COMPILE = {
    "two_outputs": {"loss": ["sparse_categorical_crossentropy", "mse"],
                    "loss_weights": [1.0, 0.5], "metrics": [["accuracy"], ["mae"]]},
    "masked": {"loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"]},
    "two_masked": {"loss": {"tags": "sparse_categorical_crossentropy", "size": "mse"},
                   "metrics": {"tags": ["accuracy"], "size": ["mae"]}},
}
#: the metrics of masked outputs during training, which Keras 3.15 on JAX computes
#: over every step (the output's mask, an attribute of the traced array, does not come
#: out of ``jax.value_and_grad``'s aux: ``fit``'s and ``train_on_batch``'s accuracy
#: of a masked output counts the padding, ``evaluate``'s does not); phylanx's are over
#: the unmasked steps in training as in evaluation: not compared
KERAS_TRAINING_MASK_LOST = {"masked": ["accuracy"], "two_masked": ["tags_accuracy"]}


def data(name: str) -> dict:
    """The case's inputs, targets and weights (``w``: fit's, ``ew``: evaluate's)."""
    rng = np.random.default_rng(list(CASES).index(name) + 70)
    n = SAMPLES
    if name == "two_outputs":
        x = rng.normal(size=(n, 4)).astype(np.float32)
        y = [rng.integers(0, 3, n), rng.normal(size=(n, 2)).astype(np.float32)]
        w = [rng.uniform(0, 2, (n, 1)).astype(np.float32),
             rng.uniform(0, 2, n).astype(np.float32)]
        return {"x": x, "y": y, "w": w, "ew": rng.uniform(0, 2, n).astype(np.float32),
                "vx": x[:7], "vy": [y[0][:7], y[1][:7]], "vw": [w[1][:7], w[0][:7]]}
    x = rng.integers(1, VOCABULARY, (n, STEPS))
    lengths = rng.integers(0, STEPS + 1, n)
    x[np.arange(STEPS) >= lengths[:, None]] = 0          # padding; some rows all padding
    tags = rng.integers(0, 3, (n, STEPS))
    per_step = rng.uniform(0, 2, (n, STEPS)).astype(np.float32)
    per_sample = rng.uniform(0, 2, (n, 1)).astype(np.float32)
    if name == "masked":
        return {"x": x, "y": tags, "w": per_step, "ew": per_sample}
    y = [tags, rng.normal(size=(n, 2)).astype(np.float32)]
    return {"x": x, "y": y, "w": [per_sample, None], "ew": [per_step, per_sample[:, 0]]}


def phylanx_model(name: str) -> nn.Model:
    return keras_stored.phylanx_model(sys.modules[__name__], name, 170)


def keras_model(name: str):
    return keras_stored.keras_model(sys.modules[__name__], name)


def run(model, name: str, keras_api: bool, forms=None) -> dict:
    """EPOCHS epochs of SGD (batches in order) with the case's weights, then
    ``evaluate``, ``train_on_batch`` and ``test_on_batch`` with weights
    (``keras_stored.weighed_run``).  ``forms``: the case's data with other (equivalent)
    forms of the weights, for phylanx alone."""
    given = data(name) if forms is None else forms
    model.compile(optimizer=keras_stored.sgd(keras_api, LEARNING_RATE), **COMPILE[name])
    return keras_stored.weighed_run(model, given, BATCH, EPOCHS, given["w"])


def reference(name: str, model=None) -> dict:
    """Keras' run of case ``name`` from phylanx's initial weights."""
    return keras_stored.reference(sys.modules[__name__], name, model)


def stored(name: str) -> dict:
    """The stored reference of case ``name`` (``tools/keras_case_references.py weights``)."""
    return keras_stored.stored(STORED, name, "tools/keras_case_references.py weights",
                               ("initial", "final"))
