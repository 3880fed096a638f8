"""The models on which the new layers are compared with Keras 3 (issue 29): each case
builds the same model in phylanx.nn and in Keras, with the same weight layout.

``reference(name)`` runs Keras on a case (initial weights from phylanx's initialisers,
so both start equal): predictions, then per-epoch losses and final weights of a few
epochs of SGD.  ``tools/keras_references.py`` stores these in
``tests/nn/data/keras_layers.npz`` for machines without Keras;
``tests/nn/test_keras_layers.py`` compares phylanx with both.
"""
from __future__ import annotations

import os
import sys

import numpy as np

from phylanx import nn

from . import keras_stored

# Keras 3 runs on JAX here (installed by .[all]); set before anything imports Keras
os.environ.setdefault("KERAS_BACKEND", "jax")
STORED = os.path.join(os.path.dirname(__file__), "data", "keras_layers.npz")
SAMPLES, BATCH, EPOCHS, LEARNING_RATE, CLASSES = 24, 8, 3, 0.1, 3
#: attention mask of the cross-attention case: (query steps, key steps), True = attend
MASK = np.tril(np.ones((6, 6), bool)) | np.eye(6, k=2, dtype=bool)


def _mha_causal(L):
    x = L.Input((6, 8))
    h = L.MultiHeadAttention(2, 4)(x, x, use_causal_mask=True)
    return x, L.Dense(CLASSES, activation="softmax")(L.GlobalAveragePooling1D()(h))


def _mha_cross(L):
    x = L.Input((6, 8))
    v = L.Dense(5)(x)
    # (the scores returned also keep Keras off its fused kernel, which in Keras 3.15 on
    # JAX refuses a value_dim other than key_dim)
    h, scores = L.MultiHeadAttention(3, 2, value_dim=3, output_shape=7)(
        x, v, key=x, attention_mask=MASK[None], return_attention_scores=True)
    h = L.Add()([L.Dense(4)(L.Flatten()(h)),
                 L.Dense(4)(L.Flatten()(L.Permute((2, 3, 1))(scores)))])
    return x, L.Dense(CLASSES, activation="softmax")(h)


def _layernorm(L):
    x = L.Input((5, 6))
    h = L.LayerNormalization(axis=[1, 2])(L.LayerNormalization()(L.Dense(6)(x)))
    h = L.LayerNormalization(axis=1, epsilon=0.01, center=False)(h)
    return x, L.Dense(CLASSES, activation="softmax")(L.Flatten()(h))


def _gru(L):
    x = L.Input((6, 3))
    h = L.GRU(5, return_sequences=True, go_backwards=True)(x)
    h = L.GRU(4, reset_after=False)(h)
    return x, L.Dense(CLASSES, activation="softmax")(h)


def _gru_state(L):
    x = L.Input((6, 3))
    sequence, state = L.GRU(4, return_sequences=True, return_state=True)(x)
    h = L.Add()([L.GlobalAveragePooling1D()(sequence), state])
    return x, L.Dense(CLASSES, activation="softmax")(h)


def _conv2d(L):
    x = L.Input((8, 8, 2))
    h = L.Conv2D(4, 3, padding="same", activation="relu")(x)
    h = L.MaxPooling2D()(h)
    h = L.Conv2D(3, 2, dilation_rate=2)(h)
    h = L.AveragePooling2D(3, strides=1, padding="same")(h)
    h = L.Conv2D(3, (1, 2), strides=(1, 1))(h)
    return x, L.Dense(CLASSES, activation="softmax")(L.Flatten()(h))


def _mha_masks(L):
    x = L.Input((5, 4))
    v = L.Dense(3)(x)
    # per-sample masks computed from the data: relu's zeros are masked (Keras casts a
    # mask to bool: any non-zero value is kept), some rows wholly (Keras zeroes them)
    mask = L.Dense(5, activation="relu")(x)                            # (batch, 5, 5)
    value_mask = L.Reshape((-1,))(L.Dense(1, activation="relu")(v))   # (batch, 5)
    key_mask = L.Reshape((-1,))(L.Dense(1, activation="relu")(x))
    h, scores = L.MultiHeadAttention(2, 3)(x, v, key=x, attention_mask=mask,
                                           value_mask=value_mask, key_mask=key_mask,
                                           use_causal_mask=True, return_attention_scores=True)
    h = L.Add()([L.Dense(4)(L.Flatten()(h)),
                 L.Dense(4)(L.Flatten()(L.Permute((2, 3, 1))(scores)))])
    return x, L.Dense(CLASSES, activation="softmax")(h)


def _conv2d_groups(L):
    x = L.Input((6, 6, 4))
    h = L.Conv2D(6, 3, padding="same", groups=2, activation="relu")(x)
    h = L.Conv2D(3, 2, strides=2, groups=3)(h)
    return x, L.Dense(CLASSES, activation="softmax")(L.Flatten()(h))


def _reshape_permute(L):
    x = L.Input((4, 6))
    h = L.Permute((2, 1))(L.Reshape((6, 4))(x))
    h = L.Reshape((-1,))(L.Dense(2, activation="tanh")(h))
    return x, L.Dense(CLASSES, activation="softmax")(h)


def _merge(L):
    x = L.Input((4, 3))
    a, b = L.Dense(3)(x), L.Dense(3, activation="tanh")(x)
    joined = L.Concatenate(axis=1)([a, x])                                # (8, 3)
    mixed = L.Concatenate()([L.Subtract()([a, b]), L.Multiply()([a, b, x]),
                             L.Average()([a, b]), L.Maximum()([a, x]), L.Minimum()([b, x])])
    h = L.Concatenate()([L.Flatten()(joined), L.Flatten()(mixed)])
    return x, L.Dense(CLASSES, activation="softmax")(h)


#: a constant per-head mask (1, heads, query steps, key steps) of the mha_heads case
HEADS_MASK = np.stack([np.tril(np.ones((5, 5), bool)), np.triu(np.ones((5, 5), bool))])[None]


def _mha_heads(L):
    x = L.Input((5, 4))
    # per-head masks computed from the data, (batch, heads, 5, 5) and (batch, 1, 5, 5):
    # relu's zeros are masked, some rows wholly
    heads = L.Permute((2, 1, 3))(L.Reshape((5, 2, 5))(L.Dense(10, activation="relu")(x)))
    one = L.Reshape((1, 5, 5))(L.Dense(5, activation="relu")(x))
    # with the scores returned Keras takes its masked softmax (a wholly masked row
    # attends nothing), without them its fused kernel (such a row spreads evenly)
    h, scores = L.MultiHeadAttention(2, 3)(x, x, attention_mask=heads, use_causal_mask=True,
                                           return_attention_scores=True)
    fused = L.MultiHeadAttention(2, 3)(x, x, attention_mask=one)
    shared = L.MultiHeadAttention(2, 3)(x, x, attention_mask=HEADS_MASK)
    h = L.Concatenate()([L.Flatten()(h), L.Flatten()(scores), L.Flatten()(fused),
                         L.Flatten()(shared)])
    return x, L.Dense(CLASSES, activation="softmax")(h)


CASES = {"mha_causal": _mha_causal, "mha_cross": _mha_cross, "layernorm": _layernorm,
         "gru": _gru, "gru_state": _gru_state, "conv2d": _conv2d,
         "conv2d_groups": _conv2d_groups, "mha_masks": _mha_masks,
         "reshape_permute": _reshape_permute, "merge": _merge, "mha_heads": _mha_heads}


#: the cases in the order that seeds their data and initial weights: new cases go at the
#: end, so that adding one leaves the others' stored references as they are
SEED_ORDER = ("conv2d", "gru", "gru_state", "layernorm", "merge", "mha_causal", "mha_cross",
              "reshape_permute", "conv2d_groups", "mha_masks", "mha_heads")
assert sorted(SEED_ORDER) == sorted(CASES)

#: models whose Keras-written ``.weights.h5`` files are stored too (branched ones, and
#: conv2d_groups: the grouped kernel's layout)
WEIGHT_FILE_CASES = ("merge", "mha_cross", "conv2d_groups")


def weights_file(name: str) -> str:
    return os.path.join(os.path.dirname(__file__), "data", f"{name}.weights.h5")


class _Shapes:
    """Stands in for a layers module to read a case's input shape."""

    def Input(self, shape):  # noqa: N802
        raise _InputShape(shape)

    def __getattr__(self, name):
        raise AttributeError(name)


class _InputShape(Exception):
    pass


def _input_shape(name: str) -> tuple:
    try:
        CASES[name](_Shapes())
    except _InputShape as e:
        return tuple(e.args[0])
    raise AssertionError("a case starts with Input")


def data(name: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED_ORDER.index(name))
    return (rng.normal(size=(SAMPLES, *_input_shape(name))).astype(np.float32),
            rng.integers(0, CLASSES, SAMPLES))


def phylanx_model(name: str) -> nn.Model:
    return keras_stored.phylanx_model(sys.modules[__name__], name, 100, SEED_ORDER)


def keras_model(name: str):
    return keras_stored.keras_model(sys.modules[__name__], name)


def train(model, x, y, keras_api: bool) -> tuple[np.ndarray, list]:
    """Per-epoch losses and final weights of EPOCHS epochs of SGD, batches in order."""
    model.compile(optimizer=keras_stored.sgd(keras_api, LEARNING_RATE),
                  loss="sparse_categorical_crossentropy")
    history = model.fit(x, y, batch_size=BATCH, epochs=EPOCHS, shuffle=False, verbose=0)
    return np.asarray(history.history["loss"]), [np.asarray(w) for w in model.get_weights()]


def reference(name: str, model=None) -> dict:
    """Keras' predictions, losses and final weights from phylanx's initial weights;
    ``model``: case ``name``'s Keras model if already built (building one costs seconds:
    Keras traces every layer), its weights and optimizer are set here."""
    x, y = data(name)
    initial = phylanx_model(name).get_weights()
    if model is None:
        model = keras_model(name)
    model.set_weights(initial)
    prediction = np.asarray(model.predict(x, verbose=0))
    losses, final = train(model, x, y, keras_api=True)
    return {"initial": initial, "prediction": prediction, "losses": losses, "final": final}


def stored(name: str) -> dict:
    """The stored reference of case ``name`` (``tools/keras_references.py``)."""
    return keras_stored.stored(STORED, name, "tools/keras_references.py",
                               ("initial", "final"))
