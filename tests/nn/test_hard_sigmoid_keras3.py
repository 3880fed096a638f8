"""``activation="hard_sigmoid"`` in ``phylanx.nn`` is Keras 3's: ``relu6(x + 3) / 6``
(slope 1/6, saturating at +-3), not Keras 2's ``clip(0.2 x + 0.5, 0, 1)`` (the PhySL
primitive ``hard_sigmoid`` keeps the original's).  Before: a Dense or a GRU's
``recurrent_activation="hard_sigmoid"`` differed from Keras 3 by up to 0.1, silently."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import nn

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning")]


def _keras3(x):
    return np.minimum(np.maximum(x + 3.0, 0.0), 6.0) / 6.0


def test_dense_hard_sigmoid_is_keras3():
    model = nn.Sequential([nn.Input((1,)), nn.Dense(1, activation="hard_sigmoid")])
    model.set_weights([np.ones((1, 1), np.float32), np.zeros(1, np.float32)])
    x = np.linspace(-4.0, 4.0, 17, dtype=np.float32).reshape(-1, 1)
    np.testing.assert_allclose(model.predict(x, verbose=0), _keras3(x), atol=1e-6)


def test_gradient_slope_is_one_sixth():
    model = nn.Sequential([nn.Input((1,)), nn.Dense(1, activation="hard_sigmoid")])
    model.set_weights([np.ones((1, 1), np.float32), np.zeros(1, np.float32)])
    model.compile(optimizer=nn.SGD(1.0), loss="mse")
    x = np.array([[1.0]], np.float32)                 # inside: output 0.5 + 1/6
    model.fit(x, np.zeros((1, 1), np.float32), batch_size=1, epochs=1, verbose=0)
    kernel = model.get_weights()[0][0, 0]
    # d mse / d kernel = 2 * out * (1/6) * x
    np.testing.assert_allclose(kernel, 1.0 - 2.0 * (0.5 + 1 / 6) / 6, rtol=1e-5)


def test_gru_recurrent_hard_sigmoid_matches_keras():
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "jax":
        pytest.skip("the JAX backend is the peer")

    def build(layers, model, inp):
        i = inp((4, 3))
        return model(i, layers.GRU(3, recurrent_activation="hard_sigmoid")(i))

    peer = build(keras.layers, keras.Model, keras.Input)
    ours = build(nn, nn.Model, nn.Input)
    ours.set_weights(peer.get_weights())
    x = np.random.default_rng(0).normal(size=(2, 4, 3)).astype(np.float32) * 3
    np.testing.assert_allclose(ours.predict(x, verbose=0),
                               np.asarray(peer.predict(x, verbose=0)), atol=1e-5)
