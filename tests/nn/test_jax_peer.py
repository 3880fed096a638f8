"""JAX as the oracle of training (the cases of test_torch.py, which needs torch, an
optional extra): a Dense MLP and a Conv1D model, trained a few steps with SGD (momentum)
and Adam from the same initial weights, end with the same weights.

The peer's forward pass and loss are written in ``jax.numpy`` and differentiated by
``jax.grad``; the updates are Keras 3's own optimizers on the JAX backend (JAX and Keras
are in ``.[all]``, so this runs in ``make test``)."""
from __future__ import annotations

import os

import numpy as np
import pytest

from phylanx import nn

os.environ.setdefault("KERAS_BACKEND", "jax")
jax = pytest.importorskip("jax")
keras = pytest.importorskip("keras")
jnp = jax.numpy
lax = jax.lax

RNG = np.random.default_rng(11)


def _mlp():
    nn.set_seed(1)
    return nn.Sequential([nn.Input((10,)), nn.Dense(16, activation="relu"),
                          nn.Dense(4, activation="softmax")])


def _mlp_logits(params, x):
    w1, b1, w2, b2 = params
    return jax.nn.relu(x @ w1 + b1) @ w2 + b2


def _cnn():
    nn.set_seed(2)
    return nn.Sequential([nn.Input((12, 3)), nn.Conv1D(5, 3, activation="relu"),
                          nn.MaxPooling1D(2), nn.Conv1D(4, 2, padding="valid"),
                          nn.GlobalAveragePooling1D(), nn.Dense(4, activation="softmax")])


def _conv(x, kernel, bias):
    return lax.conv_general_dilated(x, kernel, (1,), "VALID",
                                    dimension_numbers=("NWC", "WIO", "NWC")) + bias


def _cnn_logits(params, x):
    k1, b1, k2, b2, w3, b3 = params
    h = jax.nn.relu(_conv(x, k1, b1))
    h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 1), (1, 2, 1), "VALID")
    h = jnp.mean(_conv(h, k2, b2), axis=1)
    return h @ w3 + b3


def _loss(logits_of):
    def loss(params, x, y):
        log_probs = jax.nn.log_softmax(logits_of(params, x))
        return -jnp.mean(jnp.take_along_axis(log_probs, y[:, None], 1))
    return loss


@pytest.mark.parametrize("kind", ["sgd", "adam"])
@pytest.mark.parametrize("arch", ["mlp", "cnn"])
def test_same_weights_as_jax(arch, kind):
    model = _mlp() if arch == "mlp" else _cnn()
    shape = (10,) if arch == "mlp" else (12, 3)
    x = RNG.normal(size=(24,) + shape).astype(np.float32)
    y = RNG.integers(0, 4, 24)
    start = model.get_weights()
    opt = nn.SGD(0.1, momentum=0.9) if kind == "sgd" else nn.Adam(0.01, epsilon=1e-8)
    model.compile(opt, "sparse_categorical_crossentropy")
    model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)

    params = [keras.Variable(w) for w in start]
    peer = keras.optimizers.SGD(0.1, momentum=0.9) if kind == "sgd" \
        else keras.optimizers.Adam(0.01, epsilon=1e-8)
    gradient = jax.jit(jax.grad(_loss(_mlp_logits if arch == "mlp" else _cnn_logits)))
    for _ in range(2):
        for row in range(0, 24, 8):
            values = [jnp.asarray(p.value) for p in params]
            peer.apply(gradient(values, x[row:row + 8], y[row:row + 8]), params)
    for got, want in zip(model.get_weights(), params):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, np.asarray(want.value), rtol=1e-4, atol=1e-5)
