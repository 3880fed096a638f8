"""Arguments of fit/evaluate/predict/compile, layers and optimizers are used as given or
refused (issue 26 item 5): each bad one is a located PhylanxTypeError/PhylanxValueError
naming it; ``validation_data=(x, y, sample_weight)`` weighs the validation loss as
Keras 3 does (``sum(w * loss) / n``)."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import nn
from phylanx.errors import PhylanxError, PhylanxTypeError, PhylanxValueError

RNG = np.random.default_rng(26)
X = RNG.normal(size=(12, 4)).astype(np.float32)
Y = RNG.integers(0, 3, 12)
T, V = PhylanxTypeError, PhylanxValueError


def _model(loss="sparse_categorical_crossentropy", units=3, activation="softmax"):
    nn.clear_session()
    nn.set_seed(1)
    model = nn.Sequential([nn.Input((4,)), nn.Dense(5, activation="tanh"),
                           nn.Dense(units, activation=activation)])
    model.compile(nn.SGD(0.1), loss, metrics=["accuracy"] if units > 1 else [])
    return model


def fit(**kw):
    return lambda m: m.fit(**{"x": X, "y": Y, "verbose": 0, **kw})


# (what is called on a compiled model, the error class, a word the message must hold)
BAD = {
    "batch_size=0": (fit(batch_size=0), V, "batch_size"),
    "batch_size=-4": (fit(batch_size=-4), V, "batch_size"),
    "batch_size=2.5": (fit(batch_size=2.5), T, "batch_size"),
    "batch_size=True": (fit(batch_size=True), T, "batch_size"),
    "batch_size='8'": (fit(batch_size="8"), T, "batch_size"),
    "batch_size=np.int64(0)": (fit(batch_size=np.int64(0)), V, "batch_size"),
    "epochs=2.0": (fit(epochs=2.0), T, "epochs"),
    "epochs=-1": (fit(epochs=-1), V, "epochs"),
    "epochs=True": (fit(epochs=True), T, "epochs"),
    "initial_epoch=-1": (fit(initial_epoch=-1), V, "initial_epoch"),
    "initial_epoch>epochs": (fit(epochs=2, initial_epoch=3), V, "initial_epoch"),
    "verbose=3": (fit(verbose=3), V, "verbose"),
    "verbose=True": (fit(verbose=True), T, "verbose"),
    "verbose='loud'": (fit(verbose="loud"), V, "verbose"),
    "validation_split=1.0": (fit(validation_split=1.0), V, "validation_split"),
    "validation_split=-0.1": (fit(validation_split=-0.1), V, "validation_split"),
    "validation_split=nan": (fit(validation_split=float("nan")), V, "validation_split"),
    "validation_split='0.1'": (fit(validation_split="0.1"), T, "validation_split"),
    "validation_split=True": (fit(validation_split=True), T, "validation_split"),
    "validation_split leaves nothing": (lambda m: m.fit(X[:2], Y[:2], verbose=0,
                                                        validation_split=0.6),
                                        V, "validation_split"),
    "validation_split and _data": (fit(validation_split=0.2, validation_data=(X, Y)), V,
                                   "validation_split"),
    "shuffle='batch'": (fit(shuffle="batch"), T, "shuffle"),
    "shuffle=1": (fit(shuffle=1), T, "shuffle"),
    "stop_on_nan=0": (fit(stop_on_nan=0), T, "stop_on_nan"),
    "sync_batchnorm=None": (fit(sync_batchnorm=None), T, "sync_batchnorm"),
    "callbacks=one": (fit(callbacks=nn.EarlyStopping()), T, "callbacks"),
    "callbacks=[object]": (fit(callbacks=[object()]), T, "callbacks"),
    "distributed=True": (fit(distributed=True), V, "distributed"),
    "y=None": (fit(y=None), T, "y"),
    "x=None": (fit(x=None), T, "x"),
    "x empty": (fit(x=X[:0], y=Y[:0]), V, "x"),
    "x, y lengths": (fit(y=Y[:-1]), V, "targets"),
    "x rank": (fit(x=X[:, :, None]), V, "x"),
    "x strings": (fit(x=np.array([["a"] * 4] * 12)), T, "x"),
    "x ragged": (fit(x=[[1.0, 2.0], [1.0]]), V, "x"),
    "x scalar": (fit(x=3.0), V, "x"),
    "y strings": (fit(y=np.array(["a"] * 12)), T, "y"),
    "validation_data 4-tuple": (fit(validation_data=(X, Y, np.ones(12), np.ones(12))), T,
                                "validation_data"),
    "validation_data 1-tuple": (fit(validation_data=(X,)), T, "validation_data"),
    "validation_data array": (fit(validation_data=X), T, "validation_data"),
    "validation_data y None": (fit(validation_data=(X, None)), T, "validation_data's y"),
    "validation_data empty": (fit(validation_data=(X[:0], Y[:0])), V, "validation_data"),
    "validation weights length": (fit(validation_data=(X, Y, np.ones(11))), V,
                                  "sample_weight"),
    "validation weights nan": (fit(validation_data=(X, Y, np.r_[np.nan, np.ones(11)])), V,
                               "sample_weight"),
    "validation weights strings": (fit(validation_data=(X, Y, ["a"] * 12)), T,
                                   "sample_weight"),
    "evaluate batch_size=0": (lambda m: m.evaluate(X, Y, batch_size=0, verbose=0), V,
                              "batch_size"),
    "evaluate verbose=True": (lambda m: m.evaluate(X, Y, verbose=True), T, "verbose"),
    "evaluate return_dict='yes'": (lambda m: m.evaluate(X, Y, verbose=0, return_dict="yes"),
                                   T, "return_dict"),
    "evaluate empty": (lambda m: m.evaluate(X[:0], Y[:0], verbose=0), V, "x"),
    "evaluate y=None": (lambda m: m.evaluate(X, None, verbose=0), T, "y"),
    "predict batch_size=2.5": (lambda m: m.predict(X, batch_size=2.5), T, "batch_size"),
    "predict verbose=5": (lambda m: m.predict(X, verbose=5), V, "verbose"),
    "predict rank": (lambda m: m.predict(X[0]), V, "x"),
    "compile metrics='accuracy'": (lambda m: m.compile("sgd", "mse", metrics="accuracy"), T,
                                   "metrics"),
    "compile loss=None": (lambda m: m.compile("sgd"), V, "loss"),
    "compile optimizer": (lambda m: m.compile("adagrad", "mse"), V, "optimizer"),
    "labels out of range": (fit(y=Y + 3), V, "label"),
    "learning_rate assigned a string": (
        lambda m: setattr(m.optimizer, "learning_rate", "0.1"), T, "learning_rate"),
}

# (a constructor call, the error class, the argument named)
BAD_CONSTRUCTORS = {
    "Dense(0)": (lambda: nn.Dense(0), V, "units"),
    "Dense(2.5)": (lambda: nn.Dense(2.5), T, "units"),
    "Dense(True)": (lambda: nn.Dense(True), T, "units"),
    "Dense use_bias=1": (lambda: nn.Dense(4, use_bias=1), T, "use_bias"),
    "Dense trainable='no'": (lambda: nn.Dense(4, trainable="no"), T, "trainable"),
    "Dense input_shape=(2.5,)": (lambda: nn.Dense(4, input_shape=(2.5,)), T, "input_shape"),
    "Dense input_dim=0": (lambda: nn.Dense(4, input_dim=0), V, "input_dim"),
    "Dense name=3": (lambda: nn.Dense(4, name=3), T, "name"),
    "Dense unknown": (lambda: nn.Dense(4, unit=3), T, "unit"),
    "Dropout(1.0)": (lambda: nn.Dropout(1.0), V, "rate"),
    "Dropout(-0.1)": (lambda: nn.Dropout(-0.1), V, "rate"),
    "Dropout('0.5')": (lambda: nn.Dropout("0.5"), T, "rate"),
    "Dropout seed (ignored)": (lambda: nn.Dropout(0.5, seed=3), V, "seed"),
    "Conv1D kernel_size=0": (lambda: nn.Conv1D(4, 0), V, "kernel_size"),
    "Conv1D filters=2.5": (lambda: nn.Conv1D(2.5, 3), T, "filters"),
    "Conv1D strides=1.5": (lambda: nn.Conv1D(4, 3, strides=1.5), T, "strides"),
    "Conv1D padding='full'": (lambda: nn.Conv1D(4, 3, padding="full"), V, "padding"),
    "Conv1D strides=2 dilation_rate=2": (lambda: nn.Conv1D(4, 3, strides=2, dilation_rate=2),
                                         V, "dilation_rate"),
    "MaxPooling1D padding='causal'": (lambda: nn.MaxPooling1D(2, padding="causal"), V,
                                      "padding"),
    "MaxPooling1D pool_size=0": (lambda: nn.MaxPooling1D(0), V, "pool_size"),
    "LSTM(0)": (lambda: nn.LSTM(0), V, "units"),
    "SimpleRNN return_sequences='yes'": (lambda: nn.SimpleRNN(4, return_sequences="yes"), T,
                                         "return_sequences"),
    "Embedding(0, 4)": (lambda: nn.Embedding(0, 4), V, "input_dim"),
    "Embedding output_dim=4.0": (lambda: nn.Embedding(10, 4.0), T, "output_dim"),
    "BatchNormalization momentum=1.5": (lambda: nn.BatchNormalization(momentum=1.5), V,
                                        "momentum"),
    "BatchNormalization axis=1": (lambda: nn.BatchNormalization(axis=1), V, "axis"),
    "Input((0,))": (lambda: nn.Input((0,)), V, "shape"),
    "Input(2.5)": (lambda: nn.Input(2.5), T, "shape"),
    "SGD(-0.1)": (lambda: nn.SGD(-0.1), V, "learning_rate"),
    "Adam('0.01')": (lambda: nn.Adam("0.01"), T, "learning_rate"),
    "Adam(True)": (lambda: nn.Adam(True), T, "learning_rate"),
    "SGD momentum=1.5": (lambda: nn.SGD(momentum=1.5), V, "momentum"),
    "SGD nesterov=1": (lambda: nn.SGD(nesterov=1), T, "nesterov"),
    "Adam beta_1=1.0": (lambda: nn.Adam(beta_1=1.0), V, "beta_1"),
    "RMSprop rho=-1": (lambda: nn.RMSprop(rho=-1), V, "rho"),
    "RMSprop momentum=1.5": (lambda: nn.RMSprop(momentum=1.5), V, "momentum"),
    "RMSprop centered=1": (lambda: nn.RMSprop(centered=1), T, "centered"),
    "SGD beta_1=0.9": (lambda: nn.SGD(beta_1=0.9), T, "beta_1"),
    "Adam use_ema=True": (lambda: nn.Adam(use_ema=True), V, "use_ema"),
    "SGD loss_scale_factor=2": (lambda: nn.SGD(loss_scale_factor=2.0), V, "loss_scale"),
    "Adam ema_momentum=0.5": (lambda: nn.Adam(ema_momentum=0.5), V, "ema_momentum"),
    # (Keras computes in the dtype asked: float32 silently stood in for it)
    "LayerNormalization dtype='float16'": (lambda: nn.LayerNormalization(dtype="float16"),
                                           V, "computes in float32"),
    "Dense dtype='mixed_float16'": (lambda: nn.Dense(2, dtype="mixed_float16"), V, "dtype"),
    "Dense dtype=float64": (lambda: nn.Dense(2, dtype=np.float64), V, "dtype"),
    "EarlyStopping patience=1.5": (lambda: nn.EarlyStopping(patience=1.5), T, "patience"),
    "EarlyStopping mode='up'": (lambda: nn.EarlyStopping(mode="up"), V, "mode"),
    "from_logits='yes'": (lambda: nn.losses.BinaryCrossentropy(from_logits="yes"), T,
                          "from_logits"),
}


def _check(info, cls, word):
    error = info.value
    assert type(error) is cls, (type(error), error)
    assert isinstance(error, PhylanxError)
    assert word in str(error), str(error)
    # located at the call in this file, not inside phylanx
    assert error.loc is not None and error.loc.file == __file__, error.loc


@pytest.mark.parametrize("call, cls, word", BAD.values(), ids=list(BAD))
def test_bad_argument_is_a_located_error_naming_it(call, cls, word):
    model = _model()
    before = model.get_weights()
    with pytest.raises(PhylanxError) as info:
        call(model)
    _check(info, cls, word)
    for b, a in zip(before, model.get_weights()):     # nothing was trained
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("call, cls, word", BAD_CONSTRUCTORS.values(),
                         ids=list(BAD_CONSTRUCTORS))
def test_bad_constructor_argument_is_a_located_error_naming_it(call, cls, word):
    with pytest.raises(PhylanxError) as info:
        call()
    _check(info, cls, word)


def test_accepted_forms_are_used_as_given():
    """NumPy integers and None (the default batch size) are accepted; epochs run as
    asked (initial_epoch=epochs trains nothing, as in Keras)."""
    model = _model()
    history = model.fit(X, Y, batch_size=np.int64(5), epochs=np.int32(2), verbose=0,
                        validation_split=np.float64(0.25), shuffle=np.bool_(False))
    assert history.epoch == [0, 1]
    assert model.optimizer.iterations == 2 * 2          # ceil(9 / 5) batches per epoch
    history = model.fit(X, Y, batch_size=None, epochs=3, initial_epoch=3, verbose=0)
    assert history.epoch == [] and model.optimizer.iterations == 4
    model.fit(X, Y, epochs=1, verbose=0)
    assert model.optimizer.iterations == 5              # one batch of the default 32
    assert model.predict(X[:0]).shape == (0, 3)         # no samples: no outputs


def test_keras_options_at_their_defaults_are_accepted():
    """Keras' ``use_ema=False`` and the like ask for nothing: accepted (Keras code that
    spells its defaults out runs), the same optimizer as without them."""
    plain, spelled = nn.Adam(0.01), nn.Adam(0.01, use_ema=False, ema_momentum=0.99,
                                            ema_overwrite_frequency=None,
                                            loss_scale_factor=None,
                                            gradient_accumulation_steps=None)
    assert plain.get_config() == spelled.get_config()
    for dtype in ("float32", np.float32, np.dtype("float32"), None):     # Keras' default
        assert nn.Dense(2, dtype=dtype).units == 2


def test_predict_verbose_is_honoured(capsys):
    model = _model()
    model.predict(X, batch_size=5, verbose=1)
    assert capsys.readouterr().out == f"3/3 [{'=' * 30}]\n"
    model.predict(X, batch_size=5)
    assert capsys.readouterr().out == ""


def test_complex_weights_are_refused():
    model = _model()
    values = model.get_weights()
    with pytest.raises(PhylanxError, match="real numbers"):
        model.set_weights([values[0] + 1j] + values[1:])
    with pytest.raises(PhylanxError, match="real numbers"):
        model.layers[0].set_weights([values[0] + 1j, values[1]])


def _per_sample_loss(loss, p, y):
    p = p.astype(np.float64)
    if loss == "sparse_categorical_crossentropy":
        return -np.log(p[np.arange(len(y)), y])
    if loss == "mse":
        return ((p - y) ** 2).mean(axis=-1)
    q = np.clip(p, 1e-7, 1 - 1e-7)
    return -(y * np.log(q) + (1 - y) * np.log(1 - q)).mean(axis=-1)


@pytest.mark.parametrize("loss, units, activation", [
    ("sparse_categorical_crossentropy", 3, "softmax"), ("mse", 3, None),
    ("binary_crossentropy", 1, "sigmoid")])
def test_validation_sample_weights_are_honoured(loss, units, activation):
    """val_loss is sum(w * loss_i) / n over the validation samples (Keras 3's
    sum_over_batch_size, batches weighted by their size), the metrics unweighted."""
    n = 13
    vx = RNG.normal(size=(n, 4)).astype(np.float32)
    if loss == "sparse_categorical_crossentropy":
        vy, y = RNG.integers(0, 3, n), Y
    elif loss == "mse":
        vy, y = RNG.normal(size=(n, 3)).astype(np.float32), RNG.normal(size=(12, 3))
    else:
        vy, y = RNG.integers(0, 2, (n, 1)).astype(np.float32), (Y[:, None] > 0) * 1.0
    w = RNG.uniform(0.0, 3.0, n).astype(np.float32)
    w[[2, 7]] = 0.0
    model = _model(loss, units, activation)
    shape = (n, 1) if loss == "mse" else (n,)           # (n, 1) is taken as (n,)
    history = model.fit(X, y, batch_size=5, epochs=1, verbose=0,
                        validation_data=(vx, vy, w.reshape(shape)))
    each = _per_sample_loss(loss, model.predict(vx), vy)
    want = float(np.sum(w * each) / n)
    got = history.history["val_loss"][0]
    assert got == pytest.approx(want, rel=1e-5, abs=1e-7 * float(np.abs(each).max()))
    assert abs(want - float(np.mean(each))) > 1e-3 * abs(want)    # the weights mattered
    if units > 1 and loss != "mse":
        accuracy = float(np.mean(model.predict(vx).argmax(1) == vy))
        assert history.history["val_accuracy"][0] == pytest.approx(accuracy)
    # unit weights: the unweighted validation loss (the same weights, no training)
    model.compile(nn.SGD(0.0), loss)
    plain = model.fit(X, y, epochs=1, verbose=0, validation_data=(vx, vy))
    ones = model.fit(X, y, epochs=1, verbose=0, validation_data=(vx, vy, np.ones(n)))
    assert ones.history["val_loss"][0] == pytest.approx(plain.history["val_loss"][0],
                                                        rel=1e-6)
