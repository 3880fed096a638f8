"""Recurrent states, Bidirectional's ``backward_layer`` and models of several outputs
compared with Keras 3 (JAX backend), from the same data and initial weights
(phylanx's initialisers).

``rnn_states``: ``return_state`` of LSTM (``[output, h, c]``), SimpleRNN and a
Bidirectional GRU (its forward and backward states), a Bidirectional LSTM whose
``backward_layer`` is a GRU of the user's; ``dropout=0`` and ``unroll`` given, as
accepted arguments.  ``two_outputs``: a functional model of two outputs trained with a
loss, a loss weight and metrics per output (dicts by output name): History's keys and
values (``label_loss``, ``value_mae`` ...), ``evaluate`` and ``predict``'s list.

``reference(name)`` runs Keras; ``tools/keras_case_references.py rnn_outputs`` stores it in
``tests/nn/data/keras_rnn_outputs.npz`` (Keras takes tens of seconds to build these
models, so the live comparison is opt-in: ``PHYLANX_KERAS_LIVE=1``).
"""
from __future__ import annotations

import os
import sys

import numpy as np

from phylanx import nn

from . import keras_stored

os.environ.setdefault("KERAS_BACKEND", "jax")
STORED = os.path.join(os.path.dirname(__file__), "data", "keras_rnn_outputs.npz")
SAMPLES, STEPS, CHANNELS, BATCH, EPOCHS, LEARNING_RATE, CLASSES = 16, 3, 3, 8, 3, 0.1, 3


def _rnn_states(L):
    x = L.Input((STEPS, CHANNELS))
    seq, h, c = L.LSTM(4, return_sequences=True, return_state=True, dropout=0.0,
                       unroll=True)(x)
    last, state = L.SimpleRNN(3, return_state=True)(seq)
    both = L.Bidirectional(L.LSTM(3, return_sequences=True),
                           backward_layer=L.GRU(3, return_sequences=True, go_backwards=True,
                                                name="back_gru"))(seq)
    merged, forward_h, backward_h = L.Bidirectional(L.GRU(2, return_state=True),
                                                    merge_mode="sum")(seq)
    h = L.Concatenate()([h, c, last, state, L.GlobalAveragePooling1D()(both), merged,
                         forward_h, backward_h])
    return x, L.Dense(CLASSES, activation="softmax")(h)


def _two_outputs(L):
    x = L.Input((STEPS, CHANNELS))
    h = L.LSTM(4, return_sequences=True)(x)
    label = L.Dense(CLASSES, activation="softmax", name="label")(L.GRU(3)(h))
    value = L.Dense(2, name="value")(L.GlobalAveragePooling1D()(h))
    return x, [label, value]


CASES = {"rnn_states": _rnn_states, "two_outputs": _two_outputs}
COMPILE = {
    "rnn_states": {"loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"]},
    "two_outputs": {"loss": {"label": "sparse_categorical_crossentropy", "value": "mse"},
                    "loss_weights": {"label": 1.0, "value": 0.5},
                    "metrics": {"label": ["accuracy"], "value": ["mae"]}},
}


def data(name: str) -> tuple[np.ndarray, object]:
    rng = np.random.default_rng(list(CASES).index(name) + 40)
    x = rng.normal(size=(SAMPLES, STEPS, CHANNELS)).astype(np.float32)
    labels = rng.integers(0, CLASSES, SAMPLES)
    if name == "two_outputs":
        return x, {"label": labels, "value": rng.normal(size=(SAMPLES, 2)).astype(np.float32)}
    return x, labels


def phylanx_model(name: str) -> nn.Model:
    return keras_stored.phylanx_model(sys.modules[__name__], name, 140)


def keras_model(name: str):
    return keras_stored.keras_model(sys.modules[__name__], name)


def run(model, name: str, keras_api: bool) -> dict:
    """Predictions, then EPOCHS epochs of SGD (batches in order): the History, the
    final weights and ``evaluate``'s values (a dict)."""
    x, y = data(name)
    prediction = model.predict(x, verbose=0)
    prediction = [np.array(p) for p in prediction] if isinstance(prediction, list) \
        else [np.array(prediction)]
    optimizer = keras_stored.sgd(keras_api, LEARNING_RATE)
    model.compile(optimizer=optimizer, **COMPILE[name])
    history = model.fit(x, y, batch_size=BATCH, epochs=EPOCHS, shuffle=False, verbose=0)
    scores = model.evaluate(x, y, batch_size=BATCH, verbose=0, return_dict=True)
    return {"prediction": prediction,
            "history": keras_stored.arrays(history.history),
            "evaluate": keras_stored.arrays(scores),
            "final": [np.asarray(w) for w in model.get_weights()]}


def reference(name: str, model=None) -> dict:
    """Keras' run of case ``name`` from phylanx's initial weights."""
    return keras_stored.reference(sys.modules[__name__], name, model)


def stored(name: str) -> dict:
    """The stored reference of case ``name`` (``tools/keras_case_references.py rnn_outputs``)."""
    return keras_stored.stored(STORED, name, "tools/keras_case_references.py rnn_outputs",
                               ("initial", "prediction", "final"))
