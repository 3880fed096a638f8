"""Files written during and after training: ModelCheckpoint, CSVLogger, History as CSV
and JSON, save_weights/load_weights (Keras 3's ``.weights.h5`` layout and ``.npz``),
and summary()'s table.  A path that cannot be written, or a file that does not fit the
model, is a located error before anything is trained or changed."""
from __future__ import annotations

import csv
import json
import os
import warnings

import numpy as np
import pytest

from phylanx import nn
from phylanx.errors import PhylanxValueError

os.environ.setdefault("KERAS_BACKEND", "jax")     # (before any import of keras)
RNG = np.random.default_rng(9)
X = RNG.standard_normal((40, 4)).astype(np.float32)
Y = RNG.integers(0, 3, 40)


def _model(hidden=5):
    nn.clear_session()
    nn.set_seed(6)
    model = nn.Sequential([nn.Input((4,)), nn.Dense(hidden, activation="relu"),
                           nn.Dense(3, activation="softmax")])
    model.compile(optimizer=nn.SGD(0.2), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    return model


def _quiet_keras():
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "jax":
        pytest.skip("Keras is not on the JAX backend here")
    return keras


# -- ModelCheckpoint ----------------------------------------------------------------------
def test_checkpoint_best_only_names_files_by_epoch_and_val_loss(tmp_path):
    model = _model()
    pattern = str(tmp_path / "ck-{epoch:02d}-{val_loss:.4f}.weights.h5")
    check = nn.callbacks.ModelCheckpoint(pattern, monitor="val_loss", save_best_only=True,
                                         save_weights_only=True)
    history = model.fit(X, Y, batch_size=8, epochs=6, validation_split=0.25, shuffle=False,
                        verbose=0, callbacks=[check])
    losses = history.history["val_loss"]
    improving = [e for e in range(len(losses)) if losses[e] < min(losses[:e], default=np.inf)]
    expected = {f"ck-{e + 1:02d}-{losses[e]:.4f}.weights.h5" for e in improving}
    assert {p.name for p in tmp_path.iterdir()} == expected
    # each file holds the weights of its epoch: they give that epoch's val_loss
    vx, vy = X[30:], Y[30:]
    for e in improving:
        probe = _model()
        probe.load_weights(tmp_path / f"ck-{e + 1:02d}-{losses[e]:.4f}.weights.h5")
        assert probe.evaluate(vx, vy, verbose=0)[0] == pytest.approx(losses[e], rel=1e-5)


def test_checkpoint_of_the_whole_model_every_epoch(tmp_path):
    model = _model()
    check = nn.callbacks.ModelCheckpoint(str(tmp_path / "sub" / "m{epoch}.npz"),
                                         monitor="loss")
    model.fit(X, Y, epochs=2, verbose=0, callbacks=[check])
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == ["m1.npz", "m2.npz"]
    again = nn.load_model(tmp_path / "sub" / "m2.npz")
    np.testing.assert_array_equal(again.predict(X), model.predict(X))


@pytest.mark.parametrize("filepath, options, message", [
    ("{folder}/not_a_folder/ck.weights.h5", {"save_weights_only": True},
     "is not an existing folder"),
    ("{folder}/ck-{{val_loss:.2f}}.weights.h5", {"save_weights_only": True,
                                                 "monitor": "loss"}, "cannot be filled in"),
    ("{folder}/ck.weights.h5", {"save_weights_only": True, "save_best_only": True},
     "no validation data"),
    # (a folder that takes no new file, root or not: it failed after the first epoch)
    ("/proc/ck.weights.h5", {"save_weights_only": True, "save_best_only": True,
                             "monitor": "loss"}, "cannot write '/proc/ck.weights.h5'"),
])
def test_checkpoint_that_cannot_be_written_fails_before_training(tmp_path, filepath,
                                                                 options, message):
    (tmp_path / "not_a_folder").write_text("a file")
    model = _model()
    before = model.get_weights()
    check = nn.callbacks.ModelCheckpoint(filepath.format(folder=tmp_path), **options)
    with pytest.raises(PhylanxValueError, match=message) as info:
        model.fit(X, Y, epochs=2, verbose=0, callbacks=[check])
    assert info.value.loc is not None and info.value.loc.file == __file__
    assert model.optimizer.iterations == 0
    for a, b in zip(model.get_weights(), before):
        np.testing.assert_array_equal(a, b)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not_a_folder"]


def test_checkpoint_every_few_batches_names_epoch_and_batch(tmp_path):
    model = _model()
    check = nn.callbacks.ModelCheckpoint(str(tmp_path / "e{epoch}b{batch}-{loss:.3f}.npz"),
                                         save_freq=2, save_weights_only=True)
    model.fit(X, Y, batch_size=8, epochs=2, verbose=0, callbacks=[check])
    # 5 batches an epoch, the count going on across epochs (as Keras counts)
    names = sorted(p.name.split("-")[0] for p in tmp_path.iterdir())
    assert names == sorted(["e1b2", "e1b4", "e2b1", "e2b3", "e2b5"])
    with pytest.raises(PhylanxValueError, match="cannot be filled in"):
        model.fit(X, Y, epochs=1, verbose=0, validation_split=0.25, callbacks=[
            nn.callbacks.ModelCheckpoint(str(tmp_path / "{val_loss}.npz"), save_freq=3,
                                         save_weights_only=True)])


def test_checkpoint_file_names_are_checked_when_made():
    with pytest.raises(PhylanxValueError, match="must end in '.npz'"):
        nn.callbacks.ModelCheckpoint("model.keras")
    with pytest.raises(PhylanxValueError, match=r"\.weights\.h5"):
        nn.callbacks.ModelCheckpoint("w.h5", save_weights_only=True)


# -- CSVLogger and History ------------------------------------------------------------------
def _fit_logged(tmp_path, **logger):
    model = _model()
    logger_cb = nn.callbacks.CSVLogger(tmp_path / "log.csv", **logger)
    history = model.fit(X, Y, epochs=3, verbose=0, validation_split=0.25, shuffle=False,
                        callbacks=[logger_cb])
    return history


def test_csv_logger_rows_are_the_history(tmp_path):
    history = _fit_logged(tmp_path)
    with open(tmp_path / "log.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["epoch", *sorted(history.history)]
    assert [int(r["epoch"]) for r in rows] == history.epoch
    for key, values in history.history.items():
        assert [float(r[key]) for r in rows] == values      # exact: repr of each float
    history.to_csv(tmp_path / "again.csv")
    assert (tmp_path / "again.csv").read_text() == (tmp_path / "log.csv").read_text()
    history.to_json(tmp_path / "h.json")
    saved = json.loads((tmp_path / "h.json").read_text())
    assert saved == {"epoch": history.epoch, "history": history.history}


def test_csv_logger_appends(tmp_path):
    first = _fit_logged(tmp_path)
    _fit_logged(tmp_path, append=True)
    lines = (tmp_path / "log.csv").read_text().splitlines()
    assert len(lines) == 1 + 2 * len(first.epoch)       # one header
    assert lines.count(lines[0]) == 1


def test_csv_logger_writes_what_keras_writes(tmp_path):
    """Keras' own CSVLogger, given the same logs, writes the same bytes."""
    keras = _quiet_keras()
    history = _fit_logged(tmp_path)
    theirs = keras.callbacks.CSVLogger(str(tmp_path / "keras.csv"))
    theirs.on_train_begin()
    for i, epoch in enumerate(history.epoch):
        theirs.on_epoch_end(epoch, {k: v[i] for k, v in history.history.items()})
    theirs.on_train_end()
    assert (tmp_path / "keras.csv").read_text() == (tmp_path / "log.csv").read_text()
    # without validation values Keras adds empty val_ columns (NA): so do we
    model = _model()
    model.fit(X, Y, epochs=1, verbose=0, callbacks=[nn.callbacks.CSVLogger(tmp_path / "n.csv")])
    header = (tmp_path / "n.csv").read_text().splitlines()[0]
    assert header == "epoch,accuracy,loss,val_accuracy,val_loss"
    assert (tmp_path / "n.csv").read_text().splitlines()[1].endswith(",NA,NA")


def test_csv_logger_to_a_folder_that_is_missing_fails_before_training(tmp_path):
    model = _model()
    with pytest.raises(PhylanxValueError, match="not an existing folder"):
        model.fit(X, Y, epochs=1, verbose=0,
                  callbacks=[nn.callbacks.CSVLogger(tmp_path / "missing" / "log.csv")])
    assert model.optimizer.iterations == 0 and not (tmp_path / "missing").exists()


# -- save_weights / load_weights ----------------------------------------------------------
@pytest.mark.parametrize("name", ["w.weights.h5", "w.npz"])
def test_weights_round_trip(tmp_path, name):
    model = _model()
    model.fit(X, Y, epochs=1, verbose=0)
    model.save_weights(tmp_path / name)
    other = _model()
    other.load_weights(tmp_path / name)
    for a, b in zip(other.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", ["w.weights.h5", "w.npz"])
def test_loading_weights_of_another_shape_is_a_located_error_changing_nothing(tmp_path,
                                                                               name):
    _model(hidden=7).save_weights(tmp_path / name)
    model = _model()
    before = model.get_weights()
    with pytest.raises(PhylanxValueError, match=r"dense/kernel.*shape \(4, 5\).*\(4, 7\)") \
            as info:
        model.load_weights(tmp_path / name)
    assert info.value.loc is not None and info.value.loc.file == __file__
    for a, b in zip(model.get_weights(), before):
        np.testing.assert_array_equal(a, b)
    deeper = nn.Sequential([nn.Input((4,)), nn.Dense(5), nn.Dense(5), nn.Dense(3)])
    with pytest.raises(PhylanxValueError, match="another architecture"):
        deeper.load_weights(tmp_path / name)


def test_save_weights_refuses_bad_paths_and_writes_nothing(tmp_path):
    model = _model()
    with pytest.raises(PhylanxValueError, match="must end in '.weights.h5'"):
        model.save_weights(tmp_path / "w.h5")
    with pytest.raises(PhylanxValueError, match="not an existing folder"):
        model.save_weights(tmp_path / "nowhere" / "w.weights.h5")
    model.save_weights(tmp_path / "w.npz")
    with pytest.raises(PhylanxValueError, match="overwrite=False"):
        model.save_weights(tmp_path / "w.npz", overwrite=False)
    assert [p.name for p in tmp_path.iterdir()] == ["w.npz"]


def test_weights_files_are_read_and_written_by_keras(tmp_path):
    keras = _quiet_keras()
    model = _model()
    model.fit(X, Y, epochs=1, verbose=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)     # Keras' own, NumPy 2
        theirs = keras.Sequential([keras.Input((4,)), keras.layers.Dense(5, activation="relu"),
                                   keras.layers.Dense(3, activation="softmax")])
        model.save_weights(tmp_path / "ours.weights.h5")
        theirs.load_weights(str(tmp_path / "ours.weights.h5"))
        np.testing.assert_allclose(np.asarray(theirs.predict(X, verbose=0)), model.predict(X),
                                   rtol=1e-5, atol=1e-6)
        theirs.set_weights([w * 0.5 for w in theirs.get_weights()])
        theirs.save_weights(str(tmp_path / "theirs.weights.h5"))
        expected = np.asarray(theirs.predict(X, verbose=0))
    model.load_weights(tmp_path / "theirs.weights.h5")
    np.testing.assert_allclose(model.predict(X), expected, rtol=1e-5, atol=1e-6)


# -- summary --------------------------------------------------------------------------------
def test_summary_aligns_long_names_and_counts_as_keras(capsys):
    nn.clear_session()
    long_name = "a_layer_name_that_is_forty_characters_xx"
    assert len(long_name) == 40
    model = nn.Sequential([nn.Input((12, 3)), nn.Conv1D(4, 3, name=long_name),
                           nn.BatchNormalization(), nn.LSTM(5), nn.Dense(1000)])
    model.summary()
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if "Layer (type)" in line)
    rows = [line for line in lines if "(None" in line]
    assert len(rows) == 4 and f"{long_name} (Conv1D)" in rows[0]
    shape_column = header.index("Output Shape")
    ends = {len(header)} | {len(r) for r in rows}
    assert len(ends) == 1                           # counts right-aligned under "Param #"
    for row in rows:
        assert row[shape_column] == "(" and row[shape_column - 1] == " "
    counts = [int(r.split()[-1].replace(",", "")) for r in rows]
    assert counts == [layer.count_params() for layer in model.layers]
    keras = _quiet_keras()
    theirs = keras.Sequential([keras.Input((12, 3)), keras.layers.Conv1D(4, 3),
                               keras.layers.BatchNormalization(), keras.layers.LSTM(5),
                               keras.layers.Dense(1000)])
    assert counts == [layer.count_params() for layer in theirs.layers]
    printed = []
    theirs.summary(print_fn=lambda text, line_break=True: printed.extend(text.splitlines()))
    totals = [line.strip() for line in printed if "params:" in line]
    assert len(totals) == 3
    assert [line.strip() for line in lines if "params:" in line] == totals
