"""The backward pass generated for each layer, loss and activation equals central finite
differences of the same step's loss (float64 parameters)."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import nn
from phylanx.nn import data

from .helpers import numerical_gradient, step_loss_and_gradient

RNG = np.random.default_rng(1)


def _check(model, x, y, loss="mse", tol=1e-5):
    model.compile(nn.SGD(), loss)
    x, y = data.samples(model, x, y, "test")
    x = x.astype(np.float64)
    y = y.astype(np.float64) if y.dtype.kind == "f" else y
    params = [w.value.astype(np.float64) for w in model.trainable_weights]
    _, grads = step_loss_and_gradient(model, x, y, params)
    assert any(np.any(g != 0) for g in grads)
    for i, g in enumerate(grads):
        expected = numerical_gradient(model, x, y, params, i)
        np.testing.assert_allclose(g, expected, rtol=tol, atol=tol,
                                   err_msg=model.trainable_weights[i].name)


def _seq(input_shape, *layers):
    nn.set_seed(3)
    return nn.Sequential([nn.Input(input_shape), *layers])


@pytest.mark.parametrize("activation", ["relu", "sigmoid", "tanh", "softmax", "elu",
                                        "selu", "softplus", "softsign", "swish", "linear"])
def test_dense_with_each_activation(activation):
    model = _seq((4,), nn.Dense(3, activation=activation), nn.Dense(2))
    _check(model, RNG.normal(size=(5, 4)), RNG.normal(size=(5, 2)))


@pytest.mark.parametrize("loss,target", [
    ("binary_crossentropy", lambda: RNG.integers(0, 2, (6, 1))),
    ("categorical_crossentropy", lambda: np.eye(3)[RNG.integers(0, 3, 6)]),
    ("sparse_categorical_crossentropy", lambda: RNG.integers(0, 3, 6)),
    ("mae", lambda: RNG.normal(size=(6, 3))),
])
def test_losses(loss, target):
    y = target()
    units = 1 if loss == "binary_crossentropy" else 3
    last = "sigmoid" if units == 1 else ("softmax" if "entropy" in loss else None)
    model = _seq((4,), nn.Dense(5, activation="tanh"), nn.Dense(units, activation=last))
    _check(model, RNG.normal(size=(6, 4)), y, loss)


@pytest.mark.parametrize("name", ["categorical_crossentropy", "binary_crossentropy"])
def test_losses_from_logits(name):
    units = 3 if name.startswith("cat") else 1
    y = np.eye(3)[RNG.integers(0, 3, 6)] if units == 3 else RNG.integers(0, 2, (6, 1))
    model = _seq((4,), nn.Dense(units))
    _check(model, RNG.normal(size=(6, 4)), y, nn.losses.Loss(name, from_logits=True))


@pytest.mark.parametrize("padding,strides", [("valid", 1), ("same", 2), ("causal", 2)])
def test_conv1d_pooling_flatten(padding, strides):
    model = _seq((7, 3), nn.Conv1D(4, 3, strides=strides, padding=padding, activation="relu"),
                 nn.MaxPooling1D(2, padding="same"), nn.Flatten(), nn.Dense(2))
    _check(model, RNG.normal(size=(3, 7, 3)), RNG.normal(size=(3, 2)))


def test_average_and_global_pooling():
    model = _seq((8, 2), nn.Conv1D(3, 2), nn.AveragePooling1D(2), nn.Conv1D(2, 2),
                 nn.GlobalAveragePooling1D(), nn.Dense(2))
    _check(model, RNG.normal(size=(3, 8, 2)), RNG.normal(size=(3, 2)))


def test_batch_normalization_in_training_mode():
    model = _seq((4,), nn.Dense(3), nn.BatchNormalization(), nn.Dense(2))
    _check(model, RNG.normal(size=(6, 4)), RNG.normal(size=(6, 2)))


def test_dropout_with_a_fixed_mask():
    model = _seq((6,), nn.Dense(8), nn.Dropout(0.5), nn.Dense(2))
    _check(model, RNG.normal(size=(5, 6)), RNG.normal(size=(5, 2)))


@pytest.mark.parametrize("layer", [
    lambda: nn.SimpleRNN(3), lambda: nn.LSTM(3),
    lambda: nn.SimpleRNN(2, return_sequences=True), lambda: nn.LSTM(2, return_sequences=True),
])
def test_recurrent(layer):
    model = _seq((4, 2), layer(), nn.Flatten())
    x = RNG.normal(size=(3, 4, 2))
    _check(model, x, RNG.normal(size=(3,) + model.output_shape[1:]))


@pytest.mark.parametrize("layer", [     # (small: central differences per weight)
    lambda: nn.SimpleRNN(2, dropout=0.4, recurrent_dropout=0.4),
    lambda: nn.LSTM(1, dropout=0.4, recurrent_dropout=0.4),
    lambda: nn.GRU(1, dropout=0.4, return_sequences=True),
    lambda: nn.GRU(1, dropout=0.4, recurrent_dropout=0.4, reset_after=False),
])
def test_recurrent_dropout_with_fixed_masks(layer):
    """Keras 3's dropout masks (one per gate with recurrent_dropout) are constants of
    the step: the generated gradient is the masked program's."""
    model = _seq((3, 2), layer(), nn.Flatten())
    x = RNG.normal(size=(4, 3, 2))
    _check(model, x, RNG.normal(size=(4,) + model.output_shape[1:]))


def test_recurrent_sequence_of_one_step():
    """One time step keeps its time axis (the layer joins steps with NumPy's stack; the
    PhySL stack of one operand would stack its rows, as the original's did)."""
    nn.set_seed(3)
    seq = nn.Sequential([nn.Input((1, 2)), nn.SimpleRNN(3, return_sequences=True)])
    last = nn.Sequential([nn.Input((1, 2)), nn.SimpleRNN(3)])
    last.set_weights(seq.get_weights())
    x = RNG.normal(size=(4, 1, 2))
    out = seq.predict(x)
    assert out.shape == (4, 1, 3)
    np.testing.assert_allclose(out[:, 0, :], last.predict(x), rtol=1e-12)


def test_embedding():
    model = _seq((5,), nn.Embedding(7, 3), nn.GlobalAveragePooling1D(), nn.Dense(2))
    _check(model, RNG.integers(0, 7, (4, 5)), RNG.normal(size=(4, 2)))


@pytest.mark.parametrize("loss", ["sparse_categorical_crossentropy", "categorical_crossentropy"])
def test_a_softmax_outputs_cross_entropy_is_taken_from_its_logits(loss):
    """Exact where the clipped probabilities would cap the loss at -log(1e-7) (as Keras'
    TensorFlow backend); the softmax statement is dropped unless a metric reads it."""
    model = _seq((2,), nn.Dense(3, activation="softmax"))
    model.compile(nn.SGD(), loss)
    kernel = np.array([[40.0, 0.0, -40.0], [0.0, 1.0, 0.0]], np.float32)
    model.set_weights([kernel, np.zeros(3, np.float32)])
    x = np.array([[1.0, 0.5], [-0.5, 2.0]], np.float32)
    labels = np.array([2, 1])
    logits = x.astype(np.float64) @ kernel
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    want = -log_probs[np.arange(2), labels].mean()
    y = labels if loss.startswith("sparse") else np.eye(3)[labels]
    got = model.evaluate(x, y, verbose=0)
    assert want > 20                        # beyond the clipped loss's cap, 16.1
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert "softmax(" not in model._program("train").text.replace("softmax_crossentropy(", "")
    model.compile(nn.SGD(), loss, metrics=["accuracy"])
    assert "softmax(v" in model._program("train").text
