"""``fit(..., distributed="model")`` in one process (one locality: every tile is the whole
array): the same losses and weights as plain ``fit``, other layers (Embedding, LSTM,
AveragePooling1D) replicated, the trainer reused by later ``fit`` calls, and the errors
located at the user's ``fit`` line.  Under mpiexec -n 1, 2, 3:
``tests/distributed/test_nn_parallel_mpi.py``."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import nn
from phylanx.errors import PhylanxValueError


def _data(n=10, steps=12):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, steps, 3)).astype(np.float32), rng.integers(0, 3, n)


def _model(layers, optimizer):
    nn.set_seed(3)
    nn.clear_session()
    m = nn.Sequential(layers())
    m.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy",
              metrics=["accuracy"])
    return m


def _fit_both(layers, optimizer, x, y, **kw):
    results = []
    for extra in ({"distributed": "model", "conv_split": kw.pop("conv_split", "batch")}, {}):
        m = _model(layers, optimizer())
        h = m.fit(x, y, batch_size=4, epochs=2, verbose=0, **extra, **kw)
        results.append((m, h.history, m.get_weights()))
    return results


@pytest.mark.parametrize("split", ["batch", "length"])
def test_model_parallel_fit_matches_fit_in_one_process(split):
    def layers():
        return [nn.Input((12, 3)), nn.Conv1D(4, 3, activation="relu"),
                nn.AveragePooling1D(2), nn.Dropout(0.2), nn.Flatten(),
                nn.Dense(3, activation="softmax")]
    x, y = _data()
    (m, got_h, got_w), (_, want_h, want_w) = _fit_both(
        layers, lambda: nn.Adam(0.01), x, y, conv_split=split)
    for key in want_h:
        np.testing.assert_allclose(got_h[key], want_h[key], rtol=1e-5, err_msg=key)
    for g, w in zip(got_w, want_w):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6)
    trainer = m._programs[f"train:model:{split}"]
    m.fit(x, y, batch_size=4, verbose=0, distributed="model", conv_split=split)
    assert m._programs[f"train:model:{split}"] is trainer      # compiled once per model


def test_embedding_and_lstm_run_replicated():
    def layers():
        return [nn.Input((6,)), nn.Embedding(10, 4), nn.LSTM(5), nn.Dense(3,
                                                                          activation="softmax")]
    rng = np.random.default_rng(1)
    x, y = rng.integers(0, 10, (8, 6)), rng.integers(0, 3, 8)
    (_, got_h, got_w), (_, want_h, want_w) = _fit_both(
        layers, lambda: nn.SGD(0.1, momentum=0.9), x, y)
    np.testing.assert_allclose(got_h["loss"], want_h["loss"], rtol=1e-5)
    for g, w in zip(got_w, want_w):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6)


def test_errors_name_the_layer_and_the_fit_line():
    x, y = _data(4)
    shared = nn.Dense(4)
    inputs = nn.Input((12, 3))
    h = nn.Flatten()(nn.Conv1D(2, 3)(inputs))
    m = nn.Model(inputs, nn.Dense(3, activation="softmax")(shared(nn.Dense(4)(h))))
    m.compile("sgd", "sparse_categorical_crossentropy")
    m2 = nn.Model(inputs, nn.Dense(3, activation="softmax")(shared(shared(nn.Dense(4)(h)))))
    m2.compile("sgd", "sparse_categorical_crossentropy")
    with pytest.raises(PhylanxValueError, match="is used 2 times") as e:
        m2.fit(x, y, verbose=0, distributed="model")
    assert __file__.rsplit("/", 1)[-1] in str(e.value) and shared.name in str(e.value)
    with pytest.raises(PhylanxValueError, match="conv_split must be 'batch' or 'length'"):
        m.fit(x, y, verbose=0, distributed="model", conv_split="page")
    with pytest.raises(PhylanxValueError, match="is for distributed='model'"):
        m.fit(x, y, verbose=0, distributed="data", conv_split="batch")
    with pytest.raises(PhylanxValueError, match="None, 'data' or 'model'"):
        m.fit(x, y, verbose=0, distributed="models")


def test_a_frozen_first_split_layer():
    """No layer before the frozen one trains: the backward pass stops there (it handed
    the earlier stages no cotangent and failed with a bare TypeError)."""
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(8, 12, 3)).astype(np.float32), rng.integers(0, 3, 8)

    def build():
        nn.set_seed(3)
        nn.clear_session()
        first = nn.Conv1D(4, 3)
        model = nn.Sequential([nn.Input((12, 3)), first, nn.Conv1D(4, 3), nn.Flatten(),
                               nn.Dense(3, activation="softmax")])
        first.trainable = False
        model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
        return model
    split, whole = build(), build()
    got = split.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False,
                    distributed="model").history["loss"]
    want = whole.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False).history["loss"]
    np.testing.assert_allclose(got, want, rtol=1e-4)
    for a, b in zip(split.get_weights(), whole.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_a_layer_with_weights_on_both_sides_of_a_split_layer_is_refused():
    """A functional model is cut at its split layers (model_parallel_graph.py): a layer
    used before and after one would get its gradients from two stages."""
    shared = nn.Dense(5, name="shared")
    inputs = nn.Input((5,))
    h = shared(nn.Dense(5, name="middle")(shared(inputs)))
    model = nn.Model(inputs, [nn.Dense(3, activation="softmax")(h), nn.Dense(1)(h)])
    model.compile("sgd", ["sparse_categorical_crossentropy", "mse"])
    x = np.zeros((4, 5), np.float32)
    with pytest.raises(PhylanxValueError, match="layer 'shared' .Dense. is used on both "
                                                "sides of a split layer") as e:
        model.fit(x, [np.zeros(4), np.zeros((4, 1))], verbose=0, distributed="model")
    assert __file__.rsplit("/", 1)[-1] in str(e.value)


def test_a_conv1d_with_an_activity_regularizer_runs_replicated_with_the_layers_after_it():
    """It is not split (its penalty is of its whole output): the run it heads is one
    replicated stage, penalty and all (a Conv1D stage of it alone dropped the layers
    after it and the penalty, a wrong loss and weights without an error)."""
    def layers():
        return [nn.Input((12, 3)), nn.Conv1D(4, 3, activity_regularizer="l2"),
                nn.Activation("relu"), nn.Conv1D(4, 3, activation="relu"),
                nn.GlobalAveragePooling1D(), nn.Dense(3, activation="softmax")]
    x, y = _data(8)
    (m, got_h, got_w), (_, want_h, want_w) = _fit_both(layers, lambda: nn.SGD(0.1), x, y)
    np.testing.assert_allclose(got_h["loss"], want_h["loss"], rtol=1e-5)
    for g, w in zip(got_w, want_w, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6)
    kinds = [type(s).__name__ for s in m._programs["train:model:batch"].stages]
    assert kinds == ["_ReplicatedStage", "_ConvStage", "_ReplicatedStage", "_DenseStage"]
