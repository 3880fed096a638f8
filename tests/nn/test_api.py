"""The Keras-like surface: models, fit/evaluate/predict, callbacks, printing, saving, and
the errors for shapes that do not fit, NaN losses and bad labels."""
from __future__ import annotations

import re

import numpy as np
import pytest

from phylanx import PhylanxError, nn

RNG = np.random.default_rng(5)


def _data(n=64, classes=3):
    x = RNG.normal(size=(n, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(int) + (x[:, 1] > 0.5).astype(int)
    return x, y % classes


def _model():
    nn.clear_session()
    nn.set_seed(0)
    model = nn.Sequential([nn.Dense(8, activation="relu", input_shape=(4,)),
                           nn.Dense(3, activation="softmax")])
    model.compile(nn.Adam(0.05), "sparse_categorical_crossentropy", metrics=["accuracy"])
    return model


def test_fit_learns_and_history_has_keras_keys():
    x, y = _data()
    model = _model()
    history = model.fit(x, y, epochs=8, batch_size=16, validation_split=0.25, verbose=0)
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert len(history.history["loss"]) == 8 and history.epoch == list(range(8))
    assert history.history["loss"][-1] < history.history["loss"][0]
    loss, accuracy = model.evaluate(x, y, verbose=0)
    assert accuracy == pytest.approx(np.mean(model.predict(x).argmax(1) == y))
    assert accuracy > 0.8


def test_functional_model_equals_sequential_with_the_same_weights():
    inputs = nn.Input((4,))
    hidden = nn.Dense(8, activation="relu")(inputs)
    outputs = nn.Dense(3, activation="softmax")(hidden)
    functional = nn.Model(inputs, outputs)
    sequential = _model()
    functional.set_weights(sequential.get_weights())
    x, _ = _data(5)
    np.testing.assert_allclose(functional.predict(x), sequential.predict(x), rtol=1e-6)
    probs = sequential.predict(x)
    assert probs.shape == (5, 3) and np.allclose(probs.sum(1), 1, atol=1e-5)


def test_progress_bar_as_keras_prints_it(capsys):
    x, y = _data(40)
    _model().fit(x, y, epochs=2, batch_size=16, validation_data=(x[:8], y[:8]))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2"
    pattern = (r"3/3 \[={30}\] - \d+s \d+(ms|us)/step - loss: \d\.\d{4} - accuracy: "
               r"\d\.\d{4} - val_loss: \d\.\d{4} - val_accuracy: \d\.\d{4}")
    assert re.fullmatch(pattern, lines[1]), lines[1]


def test_verbose_zero_is_silent(capsys):
    x, y = _data(20)
    model = _model()
    model.fit(x, y, epochs=2, verbose=0)
    model.evaluate(x, y, verbose=0)
    model.predict(x)
    assert capsys.readouterr().out == ""


def test_early_stopping_stops_after_patience_epochs_without_improvement():
    x, y = _data()
    model = _model()
    model.compile(nn.SGD(0.0), "sparse_categorical_crossentropy")   # nothing improves
    # (the epoch's loss still moves by float rounding: batches are shuffled)
    stop = nn.EarlyStopping(monitor="loss", patience=2, min_delta=1e-4,
                            restore_best_weights=True)
    history = model.fit(x, y, epochs=20, verbose=0, callbacks=[stop])
    assert len(history.history["loss"]) == 3
    assert stop.stopped_epoch == 2


def test_summary_save_and_load(tmp_path, capsys):
    x, y = _data(16)
    model = _model()
    model.fit(x, y, epochs=1, verbose=0)
    model.summary()
    text = capsys.readouterr().out
    assert 'Model: "sequential"' in text and "dense (Dense)" in text
    assert "(None, 8)" in text and "Total params: 67" in text
    path = tmp_path / "model.npz"
    model.save(path)
    loaded = nn.load_model(path)
    np.testing.assert_array_equal(loaded.predict(x), model.predict(x))
    assert loaded.evaluate(x, y, verbose=0) == pytest.approx(model.evaluate(x, y, verbose=0))
    assert [type(layer).__name__ for layer in loaded.layers] == ["Dense", "Dense"]


def test_layer_shapes_that_do_not_fit_name_both_layers():
    nn.clear_session()
    with pytest.raises(PhylanxError) as info:
        nn.Sequential([nn.Input((8, 3)), nn.Conv1D(4, 3), nn.Flatten(), nn.Conv1D(2, 2)])
    message = str(info.value)
    assert "'conv1d_1' (Conv1D)" in message and "'flatten' (Flatten)" in message
    assert "(None, 24)" in message and "rank 3" in message
    with pytest.raises(PhylanxError, match=r"'conv1d_2' \(Conv1D\) cannot take the output "
                                           r"of input .*\(None, 2, 3\).*kernel_size 3"):
        nn.Conv1D(4, 3)(nn.Input((2, 3)))


def test_shapes_checked_at_the_first_call_without_an_input_shape():
    nn.clear_session()
    model = nn.Sequential([nn.Dense(4), nn.Conv1D(2, 2)])
    model.compile("sgd", "mse")
    with pytest.raises(PhylanxError, match=r"'conv1d' \(Conv1D\) cannot take the output of "
                                           r"layer 'dense' \(Dense\), of shape \(None, 4\)"):
        model.fit(np.zeros((2, 3)), np.zeros((2, 2)), verbose=0)


def test_data_that_does_not_fit_the_input():
    model = _model()
    with pytest.raises(PhylanxError, match=r"input of shape \(3, 5\) does not fit model "
                                           r"'sequential', which takes \(None, 4\)"):
        model.predict(np.zeros((3, 5)))


def test_nan_loss_stops_naming_epoch_and_batch():
    x, y = _data(48)
    x[40, 0] = np.nan                     # the third batch of 16 without shuffling
    model = _model()
    before = model.get_weights()
    with pytest.raises(nn.TrainingDivergedError, match=r"epoch 1, batch 3"):
        model.fit(x, y, batch_size=16, shuffle=False, verbose=0)
    assert not np.array_equal(model.get_weights()[0], before[0])   # two batches ran
    assert all(np.isfinite(w).all() for w in model.get_weights())
    history = model.fit(x, y, batch_size=16, shuffle=False, verbose=0, stop_on_nan=False)
    assert np.isnan(history.history["loss"][0])


@pytest.mark.parametrize("loss,labels,match", [
    ("sparse_categorical_crossentropy", [0, 1, 3, 2], r"label 3 is out of range .* 3 output"),
    ("sparse_categorical_crossentropy", [0, -1, 1, 2], r"label -1 is out of range"),
    ("sparse_categorical_crossentropy", [0.5, 1, 1, 2], r"integer labels"),
    ("categorical_crossentropy", [0, 1, 2, 1], r"sparse_categorical_crossentropy"),
    ("binary_crossentropy", [[0, 2, 0]] * 4, r"targets in \[0, 1\]"),
])
def test_bad_labels_are_clear_errors(loss, labels, match):
    model = _model()
    model.compile("sgd", loss)
    with pytest.raises(PhylanxError, match=match):
        model.fit(np.zeros((4, 4)), np.array(labels), verbose=0)


def test_unknown_names_and_missing_compile():
    with pytest.raises(PhylanxError, match="unknown activation 'rleu'"):
        nn.Dense(3, activation="rleu")
    with pytest.raises(PhylanxError, match="unknown optimizer"):
        _model().compile("adamax", "mse")     # (AdamW is known now)
    model = nn.Sequential([nn.Dense(2, input_shape=(3,))])
    with pytest.raises(PhylanxError, match="must be compiled"):
        model.fit(np.zeros((2, 3)), np.zeros((2, 2)))


def test_dropout_and_batchnorm_differ_between_training_and_inference():
    nn.set_seed(4)
    model = nn.Sequential([nn.Input((50,)), nn.Dropout(0.4), nn.BatchNormalization()])
    model.compile(nn.SGD(0.0), "mse")
    x = RNG.normal(3.0, 2.0, size=(200, 50)).astype(np.float32)
    np.testing.assert_allclose(model.predict(x), (x - 0) / np.sqrt(1 + 1e-3), rtol=1e-5)
    model.fit(x, x, batch_size=200, epochs=1, verbose=0)
    bn = model.layers[1]
    moving_mean = bn.get_weights()[2]
    # dropout kept ~60% of the values, scaled by 1/0.6: the batch mean stays ~3
    assert 0.01 * 2.0 < moving_mean.mean() < 0.01 * 4.0


def test_get_and_set_weights_and_initializers():
    nn.set_seed(9)
    layer = nn.Dense(300, kernel_initializer="he_normal", input_shape=(200,))
    model = nn.Sequential([layer])
    kernel, bias = model.get_weights()
    assert kernel.dtype == np.float32 and not bias.any()
    assert kernel.std() == pytest.approx(np.sqrt(2 / 200), rel=0.05)
    limit = np.sqrt(6 / (200 + 300))
    nn.set_seed(9)
    glorot = nn.Sequential([nn.Dense(300, input_shape=(200,))]).get_weights()[0]
    assert abs(glorot).max() <= limit and abs(glorot).max() > 0.99 * limit
    with pytest.raises(PhylanxError, match="has shape"):
        model.set_weights([kernel.T, bias])


def test_input_is_reachable_as_keras_users_write_it():
    # keras.layers.Input and keras.Input are one function
    assert nn.layers.Input is nn.Input
    model = nn.Sequential([nn.layers.Input((3,)), nn.layers.Dense(2)])
    assert model.predict(np.ones((4, 3)), verbose=0).shape == (4, 2)
