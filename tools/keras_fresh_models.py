"""Eleven small models, each trained by phylanx.nn and by Keras 3 (JAX backend) from
the same initial weights and data, compared: per-epoch History values, a
``train_on_batch``, ``evaluate`` (1e-5 relative), predictions, the final weights and
the ``.weights.h5`` files each writes (the same keys and values; Keras' optimizer
variables aside).  A Keras user's check of issue 29's features together: Conv2D and
pooling, GRU/LSTM/SimpleRNN/Bidirectional, LayerNormalization, MultiHeadAttention with
Embedding masks and a causal mask, regularizers, clipnorm/clipvalue/global_clipnorm,
AdamW and weight_decay, RMSprop's momentum/centered, the schedules,
ReduceLROnPlateau, CSVLogger (the files compared), ModelCheckpoint, class and sample
weights (per step of a masked output; a list per output), several outputs.

    KERAS_BACKEND=jax python tools/keras_fresh_models.py [model names]

Prints one line per model (OK, or each difference) and exits 1 on a difference.  Keras
builds each model in tens of seconds: a tool, not a test (the tests' stored references
cover these features one by one).
"""
from __future__ import annotations

import os
import pathlib
import sys
import tempfile

os.environ.setdefault("KERAS_BACKEND", "jax")
ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import h5py  # noqa: E402
import numpy as np  # noqa: E402

R = np.random.default_rng(11)
IMAGES = R.normal(size=(24, 8, 8, 2)).astype(np.float32)
LABELS = R.integers(0, 3, 24)
SEQUENCES = R.normal(size=(24, 6, 3)).astype(np.float32)
TOKENS = R.integers(1, 9, (24, 6))
TOKENS[np.arange(6) >= R.integers(1, 7, 24)[:, None]] = 0
VECTORS = R.normal(size=(24, 5)).astype(np.float32)
VALUES = R.normal(size=(24, 2)).astype(np.float32)
BINARY = R.integers(0, 2, (24, 1)).astype(np.float32)
STEP_LABELS = np.random.default_rng(12).integers(0, 3, (24, 6))
STEP_WEIGHTS = np.random.default_rng(13).uniform(0, 2, (24, 6)).astype(np.float32)
SAMPLE_WEIGHTS = np.random.default_rng(14).uniform(0, 2, 24).astype(np.float32)


def _conv2d(k, out):
    L = k.L
    x = L.Input((8, 8, 2))
    h = L.MaxPooling2D(2)(L.Conv2D(4, 3, activation="relu")(x))
    return (k.Model(x, L.Dense(3, activation="softmax")(L.Flatten()(h))),
            dict(optimizer=k.opt.Adam(0.01, clipnorm=0.5),
                 loss="sparse_categorical_crossentropy", metrics=["accuracy"]),
            (IMAGES, LABELS), dict(validation_split=0.25))


def _conv2d_same(k, out):
    L = k.L
    x = L.Input((8, 8, 2))
    h = L.Conv2D(3, (3, 3), strides=2, padding="same", activation="tanh")(x)
    h = L.AveragePooling2D(2, padding="same")(h)
    return (k.Model(x, L.Dense(2)(L.Flatten()(h))),
            dict(optimizer=k.opt.SGD(0.05, momentum=0.9, nesterov=True, clipvalue=0.1),
                 loss="mse", metrics=["mae"]), (IMAGES, VALUES),
            dict(callbacks=[k.cb.CSVLogger(os.path.join(out, f"log_{k.name}.csv"))]))


def _gru_layer_norm(k, out):
    L = k.L
    x = L.Input((6, 3))
    h = L.LayerNormalization()(L.GRU(4, return_sequences=True)(x))
    return (k.Model(x, L.Dense(3, activation="softmax")(L.GlobalAveragePooling1D()(h))),
            dict(optimizer=k.opt.AdamW(0.02, weight_decay=0.05),
                 loss="sparse_categorical_crossentropy", metrics=["accuracy"]),
            (SEQUENCES, LABELS),
            dict(validation_split=0.25, callbacks=[k.cb.ReduceLROnPlateau(
                monitor="val_loss", factor=0.5, patience=0, min_delta=1.0)]))


def _attention_masked(k, out):
    L = k.L
    x = L.Input((6,))
    e = L.Embedding(9, 4, mask_zero=True)(x)
    h = L.LayerNormalization(epsilon=1e-3)(L.Add()([e, L.MultiHeadAttention(2, 2)(e, e)]))
    return (k.Model(x, L.Dense(3, activation="softmax")(L.GlobalAveragePooling1D()(h))),
            dict(optimizer=k.opt.RMSprop(k.sch.ExponentialDecay(0.01, 2, 0.7)),
                 loss="sparse_categorical_crossentropy", metrics=["accuracy"]),
            (TOKENS, LABELS), {})


def _regularized(k, out):
    L = k.L
    x = L.Input((5,))
    h = L.Dense(6, activation="relu", kernel_regularizer=k.reg.l1_l2(0.01, 0.02),
                bias_regularizer=k.reg.l2(0.05))(x)
    return (k.Model(x, L.Dense(1, activation="sigmoid")(L.BatchNormalization()(h))),
            dict(optimizer=k.opt.SGD(k.sch.CosineDecay(0.1, 6, alpha=0.2)),
                 loss="binary_crossentropy", metrics=["accuracy"]),
            (VECTORS, BINARY), dict(validation_data=(VECTORS[:8], BINARY[:8])))


def _conv1d_lstm(k, out):
    L = k.L
    x = L.Input((6, 3))
    h = L.MaxPooling1D(2)(L.Conv1D(4, 2, activation="relu")(x))
    checkpoint = k.cb.ModelCheckpoint(os.path.join(out, f"best_{k.name}.weights.h5"),
                                      monitor="loss", save_best_only=True,
                                      save_weights_only=True)
    return (k.Model(x, L.Dense(2)(L.LSTM(3)(h))),
            dict(optimizer=k.opt.Adam(k.sch.PiecewiseConstantDecay([2, 4],
                                                                    [0.05, 0.02, 0.01])),
                 loss="mse"), (SEQUENCES, VALUES), dict(callbacks=[checkpoint]))


def _bidirectional(k, out):
    L = k.L
    x = L.Input((6, 3))
    return (k.Model(x, L.Dense(3, activation="softmax")(L.Bidirectional(L.GRU(3))(x))),
            dict(optimizer=k.opt.Adam(0.02, global_clipnorm=0.3),
                 loss="categorical_crossentropy", metrics=["accuracy"]),
            (SEQUENCES, np.eye(3, dtype=np.float32)[LABELS]),
            dict(class_weight={0: 2.0, 1: 0.5}))


def _causal_attention(k, out):
    L = k.L
    x = L.Input((6, 3))
    a = L.MultiHeadAttention(2, 3)(x, x, use_causal_mask=True)
    return (k.Model(x, L.Dense(3, activation="softmax")(L.LayerNormalization()(a))),
            dict(optimizer=k.opt.SGD(0.1), loss="sparse_categorical_crossentropy",
                 metrics=["accuracy"]), (SEQUENCES, STEP_LABELS), {})


def _masked_steps(k, out):
    L = k.L
    x = L.Input((6,))
    h = L.LSTM(4, return_sequences=True)(L.Embedding(9, 3, mask_zero=True)(x))
    return (k.Model(x, L.Dense(3, activation="softmax")(h)),
            dict(optimizer=k.opt.Adam(0.02, weight_decay=0.01),
                 loss="sparse_categorical_crossentropy"), (TOKENS, STEP_LABELS),
            dict(sample_weight=STEP_WEIGHTS))


def _simple_rnn(k, out):
    L = k.L
    x = L.Input((6, 3))
    h = L.Dropout(0.0)(L.SimpleRNN(4, activation="relu")(x))
    return (k.Model(x, L.Dense(2, activity_regularizer=k.reg.l2(0.01))(h)),
            dict(optimizer=k.opt.RMSprop(0.01, rho=0.8, momentum=0.5, centered=True),
                 loss="mae", metrics=["mse"]), (SEQUENCES, VALUES),
            dict(sample_weight=SAMPLE_WEIGHTS))


def _two_outputs(k, out):
    L = k.L
    x = L.Input((5,))
    h = L.Dense(6, activation="relu")(x)
    outputs = [L.Dense(3, activation="softmax", name="cls")(h), L.Dense(2, name="reg")(h)]
    # (Keras 3.15 wants the targets' structure for the weights': a list for a list)
    return (k.Model(x, outputs),
            dict(optimizer=k.opt.Adam(0.01),
                 loss={"cls": "sparse_categorical_crossentropy", "reg": "mse"},
                 loss_weights={"cls": 0.7, "reg": 1.5},
                 metrics={"cls": ["accuracy"], "reg": ["mae"]}),
            (VECTORS, [LABELS, VALUES]),
            dict(sample_weight=[SAMPLE_WEIGHTS, None], validation_split=0.25))


MODELS = {"conv2d": _conv2d, "conv2d_same": _conv2d_same, "gru_layer_norm": _gru_layer_norm,
          "attention_masked": _attention_masked, "regularized": _regularized,
          "conv1d_lstm": _conv1d_lstm, "bidirectional": _bidirectional,
          "causal_attention": _causal_attention, "masked_steps": _masked_steps,
          "simple_rnn": _simple_rnn, "two_outputs": _two_outputs}


class _Lib:
    def __init__(self, name: str) -> None:
        self.name = name
        if name == "keras":
            import keras
            self.L, self.opt, self.Model = keras.layers, keras.optimizers, keras.Model
            self.sch, self.cb = keras.optimizers.schedules, keras.callbacks
            self.reg = keras.regularizers
        else:
            from phylanx import nn
            self.L, self.opt, self.Model = nn, nn.optimizers, nn.Model
            self.sch, self.cb, self.reg = nn.schedules, nn.callbacks, nn.regularizers


def _batch(y, n):
    return [v[:n] for v in y] if isinstance(y, list) else y[:n]


def run(name: str, lib: _Lib, out: str, initial=None) -> dict:
    if lib.name == "phylanx":
        from phylanx import nn
        nn.clear_session()
        nn.set_seed(5)
    model, settings, (x, y), fit = MODELS[name](lib, out)
    if initial is not None:
        model.set_weights(initial)
    record = {"initial": [np.asarray(w) for w in model.get_weights()]}
    model.compile(**settings)
    history = model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0, **fit)
    record["history"] = {k: np.asarray(v) for k, v in history.history.items()}
    record["train_on_batch"] = model.train_on_batch(x[:8], _batch(y, 8), return_dict=True)
    record["evaluate"] = model.evaluate(x, y, verbose=0, return_dict=True)
    prediction = model.predict(x[:4], verbose=0)
    record["predict"] = prediction if isinstance(prediction, list) else [prediction]
    record["final"] = [np.asarray(w) for w in model.get_weights()]
    model.save_weights(os.path.join(out, f"{name}_{lib.name}.weights.h5"))
    return record


def _h5(path: str) -> dict:
    found = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda key, obj: found.__setitem__(key, np.asarray(obj))
                     if isinstance(obj, h5py.Dataset) and not key.startswith("optimizer/")
                     else None)
    return found


def differences(name: str, ours: dict, theirs: dict, out: str) -> list[str]:
    found = []
    for part in ("history", "train_on_batch", "evaluate"):
        if set(ours[part]) != set(theirs[part]):
            found.append(f"{part}: keys {sorted(ours[part])} vs {sorted(theirs[part])}")
        for key in set(ours[part]) & set(theirs[part]):
            if not np.allclose(ours[part][key], theirs[part][key], rtol=1e-5, atol=1e-7):
                found.append(f"{part}[{key}]: {ours[part][key]} vs {theirs[part][key]}")
    pairs = [("predict", a, b) for a, b in zip(ours["predict"], theirs["predict"])] + \
        [("final weights", a, b) for a, b in zip(ours["final"], theirs["final"])]
    for what, a, b in pairs:
        if not np.allclose(a, b, rtol=1e-5, atol=1e-5):
            found.append(f"{what}: largest difference {np.abs(a - b).max()}")
    mine, keras_file = (_h5(os.path.join(out, f"{name}_{lib}.weights.h5"))
                        for lib in ("phylanx", "keras"))
    if set(mine) != set(keras_file):
        found.append(f".weights.h5 keys differ: {sorted(set(mine) ^ set(keras_file))}")
    return found


def main(names: list[str]) -> int:
    import warnings
    warnings.simplefilter("ignore")
    failed = False
    with tempfile.TemporaryDirectory() as out:
        for name in names or list(MODELS):
            ours = run(name, _Lib("phylanx"), out)
            theirs = run(name, _Lib("keras"), out, ours["initial"])
            found = differences(name, ours, theirs, out)
            print(f"{name}: {'OK' if not found else 'DIFFERS'}", *found, sep="\n  ")
            failed |= bool(found)
        # the CSV logs' values (Keras' are float32 averages, phylanx's float64) and the
        # checkpoints' weights
        for kind, ending in (("log", ".csv"), ("best", ".weights.h5")):
            files = [os.path.join(out, f"{kind}_{lib}{ending}") for lib in ("phylanx", "keras")]
            if not all(os.path.exists(f) for f in files):
                continue
            if ending == ".csv":
                a, b = (np.genfromtxt(f, delimiter=",", names=True) for f in files)
                same = a.dtype.names == b.dtype.names and all(
                    np.allclose(a[c], b[c], rtol=1e-5, equal_nan=True) for c in a.dtype.names)
            else:
                a, b = (_h5(f) for f in files)
                same = set(a) == set(b) and all(np.allclose(a[k], b[k], atol=1e-5) for k in a)
            print(f"{kind} files: {'OK' if same else 'DIFFER'}")
            failed |= not same
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
