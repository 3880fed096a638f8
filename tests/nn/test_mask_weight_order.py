"""A mask read by a later layer (Concatenate's mask feeding an RNN) puts Keras 3's mask
ops in its functional graph, which reorders its layers (``map_graph`` by depth) and so
its ``get_weights`` list and the positional keys of its ``.weights.h5``.  phylanx models
those ops' depth (``nn/mask_flow.py``, rev29); before, with two layers of one class and
shape (two embeddings), the weights landed swapped with no error: a Keras-written
weights file loaded into the other layer and the prediction differed silently."""
from __future__ import annotations

import os

import numpy as np
import pytest

from phylanx import nn

os.environ.setdefault("KERAS_BACKEND", "jax")     # (before keras is imported)

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning")]


def _build(layers, model, inp):
    i = inp((6,))
    masked = layers.Embedding(10, 4, mask_zero=True, name="masked")(i)
    plain = layers.Embedding(10, 4, name="plain")(i)
    c = layers.Concatenate(axis=1)([plain, masked])
    return model(i, layers.Dense(1)(layers.LSTM(3)(c)))


def test_keras_weights_file_with_mask_reordered_layers(tmp_path):
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "jax":
        pytest.skip("the JAX backend is the peer")
    peer = _build(keras.layers, keras.Model, keras.Input)
    ours = _build(nn, nn.Model, nn.Input)
    path = str(tmp_path / "peer.weights.h5")
    peer.save_weights(path)
    ours.load_weights(path)
    x = np.random.default_rng(9).integers(1, 10, size=(8, 6))
    x[:, 4:] = 0
    np.testing.assert_allclose(ours.predict(x, verbose=0),
                               np.asarray(peer.predict(x, verbose=0)), atol=1e-5)
