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
``transformer``, ``transformer_steps``: residuals around MultiHeadAttention (Keras 3
takes the masks off the attention's input arrays; the pooling reads the mask recorded
in the graph: phylanx/nn/mask_flow.py).  ``merged``: masked BatchNormalization and
Concatenate.  ``backwards``: ``go_backwards`` for LSTM and SimpleRNN.

``reference(name)`` runs Keras: predictions, per-epoch losses and final weights of a
few epochs of SGD, then ``evaluate``'s values; ``tools/keras_mask_references.py``
stores them in ``tests/nn/data/keras_masks.npz`` for machines without Keras.
"""
from __future__ import annotations

import os
import sys

import numpy as np

from phylanx import nn

from . import keras_stored

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
    # (residuals around the attention: the transformer cases)
    h = L.LayerNormalization()(L.MultiHeadAttention(2, 3)(h, h))
    return x, L.Dense(CLASSES, activation="softmax")(L.Dropout(0.0)(h))


def _pooled(L):
    x = L.Input((STEPS, 3))
    m = L.Masking(0.0)(x)
    h = L.Dense(4)(L.GRU(4, return_sequences=True)(m))
    h = L.Add()([L.GlobalAveragePooling1D()(h), L.GlobalMaxPooling1D()(h), L.LSTM(4)(m)])
    return x, L.Dense(CLASSES, activation="softmax")(h)


def _transformer(L):
    """Keras' transformer block, masked: the residual Adds run after the attention,
    which took the mask off ``h`` (Keras 3), so the block's output and the pooling are
    unmasked; the Dense branch beside the attention reads ``h`` at the attention's depth
    (before it, in Keras' order) and keeps the mask; Dropout(0.0) returns its input, the
    same array, so the second attention clears the mask of ``e`` through it."""
    x = L.Input((STEPS,))
    e = L.Embedding(VOCAB, 4, mask_zero=True)(x)
    h = L.Dropout(0.0)(e)
    side = L.Dense(4)(e)
    attention = L.MultiHeadAttention(2, 3)(h, h)
    h = L.LayerNormalization()(L.Add()([e, attention]))
    h = L.LayerNormalization()(L.Add()([h, L.Dense(4, activation="relu")(h)]))
    crossed = L.MultiHeadAttention(1, 2)(side, side)
    h = L.Add()([h, crossed, side])
    return x, L.Dense(CLASSES, activation="softmax")(L.GlobalAveragePooling1D()(h))


def _transformer_steps(L):
    """A masked transformer block tagging every step: a residual around the attention
    (no mask after it in Keras 3), and one around a Dense beside it, which reads the
    masked input first and keeps its mask to the loss."""
    x = L.Input((STEPS,))
    e = L.Embedding(VOCAB, 4, mask_zero=True)(x)
    kept = L.Add()([e, L.Dense(4)(e)])
    h = L.LayerNormalization()(L.Add()([kept, L.MultiHeadAttention(2, 2)(kept, kept)]))
    return x, L.Dense(CLASSES, activation="softmax")(L.Add()([h, L.Dense(4)(e)]))


def _merged(L):
    """BatchNormalization of masked steps (its batch statistics over the unmasked ones),
    Concatenate of two masked inputs along the features (their masks OR-ed), then of
    that and an unmasked input along the steps (the masks joined, the unmasked input's
    steps kept): a per-step loss over twice the steps.  (The masks reach the loss,
    which reads them at run time: Keras' graph holds no mask ops here, see
    phylanx/nn/mask_flow.py.)"""
    x = L.Input((STEPS,))
    e = L.Embedding(VOCAB, 4, mask_zero=True)(x)
    normed = L.BatchNormalization()(L.Dense(3)(e))
    both = L.Concatenate()([normed, L.Dense(2)(e)])
    plain = L.Dense(5)(L.Embedding(VOCAB, 2)(x))
    steps = L.Concatenate(axis=1)([both, plain])
    return x, L.Dense(CLASSES, activation="softmax")(steps)


def _backwards(L):
    """``go_backwards=True`` for LSTM and SimpleRNN (GRU's is in ``sequence``), over
    masked steps: the sequence returned in the order read, with the input's mask."""
    x = L.Input((STEPS,))
    e = L.Embedding(VOCAB, 3, mask_zero=True)(x)
    h = L.LSTM(4, return_sequences=True, go_backwards=True)(e)
    h = L.Add()([h, L.SimpleRNN(4, return_sequences=True, go_backwards=True)(e)])
    h = L.Add()([L.LSTM(3, go_backwards=True)(h), L.SimpleRNN(3, go_backwards=True)(e)])
    return x, L.Dense(CLASSES, activation="softmax")(h)


def _bidirectional(L):
    """``Bidirectional`` of each RNN over masked steps, stacked: LSTM sequences merged by
    ``concat``, SimpleRNN's by ``None`` (two outputs), GRU's last outputs by ``mul``;
    GlobalMaxPooling1D drops the mask, so it sees the halves' zeros at the masked steps
    (Keras forces ``zero_output_for_mask``).  (``sum`` and ``ave``: against ``None``'s
    outputs in test_keras_masks.py, without unrolling two more layers here.)"""
    x = L.Input((STEPS,))
    e = L.Embedding(VOCAB, 3, mask_zero=True)(x)
    h = L.Bidirectional(L.LSTM(2, return_sequences=True))(e)                  # concat
    forward, backward = L.Bidirectional(L.SimpleRNN(2, return_sequences=True),
                                        merge_mode=None)(h)
    h = L.Bidirectional(L.GRU(3), merge_mode="mul")(L.Add()([forward, backward]))
    h = L.Concatenate()([h, L.GlobalMaxPooling1D()(forward)])
    return x, L.Dense(CLASSES, activation="softmax")(h)


CASES = {"sequence": _sequence, "pooled": _pooled, "transformer": _transformer,
         "transformer_steps": _transformer_steps, "merged": _merged,
         "backwards": _backwards, "bidirectional": _bidirectional}


def data(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Right-padded samples of 1..STEPS steps (index 0 / all-zero steps the padding)."""
    rng = np.random.default_rng(list(CASES).index(name))
    lengths = rng.integers(1, STEPS + 1, SAMPLES)
    if name != "pooled":
        x = np.zeros((SAMPLES, STEPS), np.int64)
        for i, n in enumerate(lengths):
            x[i, :n] = rng.integers(1, VOCAB, n)
        if name == "sequence":
            x[3] = 0                                         # a wholly padded sample
        if name == "merged":
            return x, rng.integers(0, CLASSES, (SAMPLES, 2 * STEPS))
        if name in ("transformer", "backwards", "bidirectional"):
            return x, rng.integers(0, CLASSES, SAMPLES)
        return x, rng.integers(0, CLASSES, (SAMPLES, STEPS))
    x = rng.normal(size=(SAMPLES, STEPS, 3)).astype(np.float32)
    for i, n in enumerate(lengths):
        x[i, n:] = 0.0
    x[1, 0] = 0.0                              # a masked step before unmasked ones
    return x, rng.integers(0, CLASSES, SAMPLES)


def phylanx_model(name: str) -> nn.Model:
    return keras_stored.phylanx_model(sys.modules[__name__], name, 40)


def keras_model(name: str):
    return keras_stored.keras_model(sys.modules[__name__], name)


def run(model, name: str, keras_api: bool) -> dict:
    """Predictions, per-epoch losses, final weights and ``evaluate``'s values of
    ``model`` (its initial weights set)."""
    x, y = data(name)
    optimizer = keras_stored.sgd(keras_api, LEARNING_RATE)
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
    return keras_stored.reference(sys.modules[__name__], name, model)


def stored(name: str) -> dict:
    """The stored reference of case ``name`` (``tools/keras_mask_references.py``)."""
    return keras_stored.stored(STORED, name, "tools/keras_mask_references.py",
                               ("initial", "final"))
