"""The masked models compared with Keras 3 (JAX backend): each case builds the same
model in phylanx.nn and in Keras, from the same initial weights (phylanx's
initialisers), on padded variable-length data.

``sequence``: ``Embedding(mask_zero=True)``, Dense, LSTM, GRU (``go_backwards``) and
SimpleRNN (``zero_output_for_mask``) returning sequences, Add, self-attention (the
query's and value's masks), LayerNormalization, Dropout and a per-step softmax: the loss
and the evaluated metric over the unmasked steps (one sample wholly padded).
``pooled``: ``Masking`` (a masked step mid-sequence too), GRU, the last output of an
LSTM, GlobalAveragePooling1D over the unmasked steps and GlobalMaxPooling1D (which,
in Keras 3, drops the mask with a warning).

``reference(name)`` runs Keras: predictions, per-epoch losses and final weights of a
few epochs of SGD, then ``evaluate``'s values; ``tools/keras_mask_references.py``
stores them in ``tests/nn/data/keras_masks.npz`` for machines without Keras.
"""
from __future__ import annotations

import os

import numpy as np

from phylanx import nn

os.environ.setdefault("KERAS_BACKEND", "jax")
STORED = os.path.join(os.path.dirname(__file__), "data", "keras_masks.npz")
SAMPLES, STEPS, VOCAB, BATCH, EPOCHS, LEARNING_RATE, CLASSES = 10, 4, 7, 5, 2, 0.1, 3


def _sequence(L):
    x = L.Input((STEPS,))
    h = L.Dense(5, activation="tanh")(L.Embedding(VOCAB, 4, mask_zero=True)(x))
    h = L.LSTM(5, return_sequences=True)(h)
    h = L.GRU(4, return_sequences=True, go_backwards=True)(h)
    h = L.Add()([L.SimpleRNN(4, return_sequences=True, zero_output_for_mask=True)(h),
                 L.Dense(4)(h)])
    # (no other layer reads the attention's inputs: Keras 3's MultiHeadAttention takes
    # the masks off its input tensors when it runs, so a residual Add after it would
    # see none there; phylanx keeps them: docs/nn.md)
    h = L.LayerNormalization()(L.MultiHeadAttention(2, 3)(h, h))
    return x, L.Dense(CLASSES, activation="softmax")(L.Dropout(0.0)(h))


def _pooled(L):
    x = L.Input((STEPS, 3))
    m = L.Masking(0.0)(x)
    h = L.Dense(4)(L.GRU(4, return_sequences=True)(m))
    h = L.Add()([L.GlobalAveragePooling1D()(h), L.GlobalMaxPooling1D()(h), L.LSTM(4)(m)])
    return x, L.Dense(CLASSES, activation="softmax")(h)


CASES = {"sequence": _sequence, "pooled": _pooled}


def data(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Right-padded samples of 1..STEPS steps (index 0 / all-zero steps the padding)."""
    rng = np.random.default_rng(list(CASES).index(name))
    lengths = rng.integers(1, STEPS + 1, SAMPLES)
    if name == "sequence":
        x = np.zeros((SAMPLES, STEPS), np.int64)
        for i, n in enumerate(lengths):
            x[i, :n] = rng.integers(1, VOCAB, n)
        x[3] = 0                                             # a wholly padded sample
        return x, rng.integers(0, CLASSES, (SAMPLES, STEPS))
    x = rng.normal(size=(SAMPLES, STEPS, 3)).astype(np.float32)
    for i, n in enumerate(lengths):
        x[i, n:] = 0.0
    x[1, 0] = 0.0                              # a masked step before unmasked ones
    return x, rng.integers(0, CLASSES, SAMPLES)


def phylanx_model(name: str) -> nn.Model:
    nn.clear_session()
    nn.set_seed(list(CASES).index(name) + 40)
    return nn.Model(*CASES[name](nn))


def keras_model(name: str):
    import keras
    return keras.Model(*CASES[name](keras.layers))


def run(model, name: str, keras_api: bool) -> dict:
    """Predictions, per-epoch losses, final weights and ``evaluate``'s values of
    ``model`` (its initial weights set)."""
    x, y = data(name)
    if keras_api:
        import keras
        optimizer = keras.optimizers.SGD(LEARNING_RATE)
    else:
        optimizer = nn.SGD(LEARNING_RATE)
    prediction = np.array(model.predict(x, verbose=0))
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(x, y, batch_size=BATCH, epochs=EPOCHS, shuffle=False, verbose=0)
    scores = model.evaluate(x, y, batch_size=BATCH, verbose=0, return_dict=True)
    return {"prediction": prediction, "losses": np.asarray(history.history["loss"]),
            "final": [np.asarray(w) for w in model.get_weights()],
            "evaluate": np.array([scores["loss"], scores["accuracy"]])}


def reference(name: str, model=None) -> dict:
    """Keras' record of case ``name`` from phylanx's initial weights."""
    initial = phylanx_model(name).get_weights()
    model = keras_model(name) if model is None else model
    model.set_weights(initial)
    return {"initial": initial, **run(model, name, keras_api=True)}


def stored(name: str) -> dict:
    with np.load(STORED) as saved:
        found: dict = {}
        for key in saved.files:
            case, field, *index = key.split("/")
            if case == name:
                if index:
                    found.setdefault(field, {})[int(index[0])] = saved[key]
                else:
                    found[field] = saved[key]
    return {k: [v[i] for i in sorted(v)] if isinstance(v, dict) else v
            for k, v in found.items()}
