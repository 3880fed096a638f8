"""Recurrent ``return_state``, ``dropout``/``recurrent_dropout``, Bidirectional's
``backward_layer`` and models of several outputs (issue 29 item 1), against Keras 3's
stored results (``tests/nn/keras_rnn_output_cases.py``; live with
``PHYLANX_KERAS_LIVE=1``): predictions to float32 rounding, per-epoch History values
(Keras' keys) to 1e-5 relative, final weights to rounding.  Dropout's random masks
differ from Keras' generator: checked by inference equality (no dropout at predict)
and by the statistics of the masks (drawn once per batch, reused at every step).  Bad
arguments are errors at the user's line before any step."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import execution_tree, nn
from phylanx.autodiff.symbolic import Graph, literal
from phylanx.errors import PhylanxValueError
from phylanx.nn.layers_core import Context

from . import keras_rnn_output_cases as cases
from . import keras_stored
from .located import raises_in

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning:keras"),
              pytest.mark.filterwarnings("ignore::UserWarning:keras")]


def _check(name: str, reference: dict) -> None:
    model = cases.phylanx_model(name)
    assert [w.shape for w in model.get_weights()] == [w.shape for w in reference["initial"]]
    model.set_weights(reference["initial"])
    ours = cases.run(model, name, keras_api=False)
    for mine, theirs in zip(ours["prediction"], reference["prediction"], strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)
    keras_stored.assert_same(ours, reference, ("history", "evaluate"))


test_equals_stored_keras_reference, test_equals_keras_live = \
    keras_stored.comparisons(cases, _check)


def test_return_state_outputs_are_the_last_states():
    """LSTM's ``[output, h, c]``: h is the last output; SimpleRNN's state likewise."""
    x = nn.Input((3, 2))
    out, h, c = nn.LSTM(3, return_state=True)(x)
    seq, state = nn.SimpleRNN(2, return_sequences=True, return_state=True)(x)
    model = nn.Model(x, [out, h, c, seq, state])
    data = np.random.default_rng(0).normal(size=(5, 3, 2)).astype(np.float32)
    out, h, c, seq, state = model.predict(data)
    np.testing.assert_array_equal(out, h)
    np.testing.assert_array_equal(seq[:, -1], state)
    assert c.shape == (5, 3) and not np.allclose(c, h)


# -- dropout: masks of Keras 3's cells ---------------------------------------------------
@pytest.mark.parametrize("kind", ["SimpleRNN", "LSTM", "GRU"])
def test_dropout_changes_nothing_at_inference(kind):
    x = nn.Input((3, 2))
    with_dropout = nn.Model(x, getattr(nn, kind)(2, dropout=0.3, recurrent_dropout=0.2,
                                                  return_sequences=True)(x))
    y = nn.Input((3, 2))
    plain = nn.Model(y, getattr(nn, kind)(2, return_sequences=True)(y))
    plain.set_weights(with_dropout.get_weights())
    data = np.random.default_rng(1).normal(size=(6, 3, 2)).astype(np.float32)
    np.testing.assert_array_equal(with_dropout.predict(data), plain.predict(data))


def _training_forward(layer, x: np.ndarray, weights: list) -> np.ndarray:
    """The layer's output in training mode (dropout on), compiled alone."""
    g = Graph(prefix="t")
    xv = g.input("x", (None,) + x.shape[1:])
    names = [w.name.split("/", 1)[1] for w in layer.weights]
    ws = {n: g.input(f"w{i}", np.shape(v)) for i, (n, v) in enumerate(zip(names, weights))}
    out = layer.forward(Context(g, ws, True), xv)
    body = ", ".join(g.physl() + [literal(out)])
    params = ", ".join(["x", *(v.name for v in ws.values())])
    text = f"define(fwd, {params}, block({body}))"
    state = execution_tree.compiler_state(f"test:{layer.name}", "<test>")
    execution_tree.compile(state, "<test>", "fwd", text)
    return np.asarray(execution_tree.invoke(state.lookup("fwd"), [x, *weights], {}))


def _identity_rnn(**options):
    layer = nn.SimpleRNN(5, activation=None, use_bias=False, return_sequences=True, **options)
    nn.Model(x := nn.Input((4, 5)), layer(x))
    return layer, [np.eye(5, dtype=np.float32), np.eye(5, dtype=np.float32)]


def test_input_dropout_mask_is_drawn_once_per_batch_and_reused_at_every_step():
    """h_t = (x_t * m) @ I with the recurrent kernel 0: every step shows the mask."""
    layer, (kernel, _) = _identity_rnn(dropout=0.5)
    nn.set_seed(5)
    out = _training_forward(layer, np.ones((200, 4, 5), np.float32),
                            [kernel, np.zeros((5, 5), np.float32)])
    for t in range(1, 4):                        # the same mask at every step
        np.testing.assert_array_equal(out[:, t], out[:, 0])
    assert set(np.unique(out)) == {0.0, 2.0}     # kept values scaled by 1 / (1 - rate)
    assert abs(np.mean(out[:, 0] == 0) - 0.5) < 0.06     # 1,000 draws: sd 0.016
    assert len({row.tobytes() for row in out[:, 0]}) > 16    # a mask per sample (of 32)


def test_recurrent_dropout_mask_is_reused_across_steps():
    """x = (1, 0, 0, 0), kernels I: h_0 = 1, h_t = h_{t-1} * m, so h_2 = m * m: with one
    mask for all steps it is 0 or 4 (kept with probability 1/2); masks drawn per step
    would give 4 with probability 1/4."""
    layer, weights = _identity_rnn(recurrent_dropout=0.5)
    x = np.zeros((400, 4, 5), np.float32)
    x[:, 0] = 1.0
    nn.set_seed(6)
    out = _training_forward(layer, x, weights)
    np.testing.assert_array_equal(out[:, 0], 1.0)
    assert set(np.unique(out[:, 2])) == {0.0, 4.0}
    assert abs(np.mean(out[:, 2] == 4.0) - 0.5) < 0.05    # 2,000 draws: sd 0.011
    np.testing.assert_array_equal(out[:, 3] != 0, out[:, 2] != 0)


# -- bad input: located errors before any step ---------------------------------------------
def _raises_here(fn, *words):
    raises_in(__file__, fn, *words)


def _two_outputs():
    nn.clear_session()
    x = nn.Input((3,))
    h = nn.Dense(4)(x)
    return nn.Model(x, [nn.Dense(3, activation="softmax", name="a")(h),
                        nn.Dense(2, name="b")(h)])


def test_bad_recurrent_arguments_are_located_errors():
    _raises_here(lambda: nn.LSTM(2, stateful=True), "stateful=True is not supported")
    _raises_here(lambda: nn.GRU(2, dropout=1.0), "dropout")
    _raises_here(lambda: nn.SimpleRNN(2, recurrent_dropout=-0.1), "recurrent_dropout")
    _raises_here(lambda: nn.SimpleRNN(2, seed=3), "seed=3")
    _raises_here(lambda: nn.Sequential([nn.Input((4, 2)), nn.LSTM(3, return_state=True)]),
                 "3 outputs")


def test_bad_compile_arguments_of_several_outputs_are_located_errors():
    model = _two_outputs()
    _raises_here(lambda: model.compile("sgd", ["mse"]), "loss has 1 entries", "2 outputs")
    _raises_here(lambda: model.compile("sgd", ["mse", "mse", "mse"]), "3 entries")
    _raises_here(lambda: model.compile("sgd", {"a": "mse"}), "none for output(s) ['b']")
    _raises_here(lambda: model.compile("sgd", {"a": "mse", "b": "mse", "c": "mse"}),
                 "['c']")
    _raises_here(lambda: model.compile("sgd", "mse", loss_weights=[1.0]), "loss_weights")
    # a dict missing an output: Keras 3 raises (a KeyError at fit; with one loss for
    # all outputs it took the one weight given for every output)
    for loss in ("mse", ["mse", "mse"], {"a": "mse", "b": "mse"}):
        _raises_here(lambda loss=loss: model.compile("sgd", loss, loss_weights={"a": 2.0}),
                     "loss_weights", "none for output(s) ['b']")
    _raises_here(lambda: model.compile("sgd", "mse", metrics=["mae"]), "one list of metric")
    _raises_here(lambda: model.compile("sgd", "mse", metrics={"c": ["mae"]}), "['c']")
    assert model.loss is None              # (a refused compile changes nothing)


def test_bad_targets_of_several_outputs_are_located_errors_before_any_step():
    model = _two_outputs()
    model.compile("sgd", ["sparse_categorical_crossentropy", "mse"])
    x = np.zeros((4, 3), np.float32)
    weights = model.get_weights()
    _raises_here(lambda: model.fit(x, [np.zeros(4)], verbose=0), "1 target arrays")
    _raises_here(lambda: model.fit(x, np.zeros((4, 2)), verbose=0), "list of target arrays")
    _raises_here(lambda: model.fit(x, {"a": np.zeros(4)}, verbose=0), "['a']")
    _raises_here(lambda: model.fit(x, [np.full(4, 5), np.zeros((4, 2))], verbose=0),
                 "output 'a'", "label 5")
    targets = [np.zeros(4), np.zeros((4, 2))]
    # Keras 3's forms of sample weights: one array per output, or one for all
    _raises_here(lambda: model.fit(x, targets, verbose=0, sample_weight=[np.ones(4)]),
                 "1 arrays", "2 outputs")
    _raises_here(lambda: model.fit(x, targets, verbose=0, sample_weight={"a": np.ones(4)}),
                 "['a']")
    _raises_here(lambda: model.fit(x, targets, verbose=0, sample_weight=np.ones((4, 2))),
                 "sample_weight", "one weight per sample")
    _raises_here(lambda: model.fit(x, targets, verbose=0,
                                   sample_weight=[None, np.ones(3)]), "output 'b'", "(4,)")
    _raises_here(lambda: model.fit(x, targets, validation_data=(x, targets, [np.ones(5)] * 2),
                                   verbose=0), "validation_data's sample_weight")
    _raises_here(lambda: model.fit(x, targets, verbose=0, class_weight={0: 2.0}),
                 "class_weight", "single output")
    for before, after in zip(weights, model.get_weights()):
        np.testing.assert_array_equal(before, after)


def test_loss_weights_and_one_loss_for_every_output():
    """A loss given once applies to each output; the loss is the weighted sum of the
    outputs' losses (each reported unweighted)."""
    model = _two_outputs()
    model.compile("sgd", "mse", loss_weights={"a": 2.0, "b": 0.5})
    x = np.random.default_rng(2).normal(size=(5, 3)).astype(np.float32)
    ya, yb = np.ones((5, 3), np.float32), np.zeros((5, 2), np.float32)
    pa, pb = model.predict(x)
    scores = model.evaluate(x, {"b": yb, "a": ya}, return_dict=True, verbose=0)
    assert list(scores) == ["loss", "a_loss", "b_loss"]
    np.testing.assert_allclose(scores["a_loss"], np.mean((pa - ya) ** 2), rtol=1e-5)
    np.testing.assert_allclose(scores["b_loss"], np.mean(pb ** 2), rtol=1e-5)
    np.testing.assert_allclose(scores["loss"], 2 * scores["a_loss"] + 0.5 * scores["b_loss"],
                               rtol=1e-5)


def test_bidirectional_config_keeps_the_users_backward_layer():
    nn.clear_session()
    wrapped = nn.Bidirectional(nn.LSTM(2, return_sequences=True, dropout=0.25),
                               backward_layer=nn.GRU(2, return_sequences=True,
                                                     go_backwards=True, name="back"))
    again = nn.Bidirectional.from_config(wrapped.get_config())
    assert (type(again.backward_layer), again.backward_layer.name) == (nn.GRU, "back")
    assert (again.forward_layer.name, again.forward_layer.dropout) == ("forward_lstm", 0.25)
    assert again.get_config() == wrapped.get_config()


@pytest.mark.parametrize("kind", ["SimpleRNN", "LSTM", "GRU"])
def test_recurrent_defaults_are_keras_ones(kind):
    layer = getattr(nn, kind)(2)
    assert (layer.return_state, layer.dropout, layer.recurrent_dropout, layer.stateful,
            layer.unroll, layer.seed) == (False, 0.0, 0.0, False, False, None)
    assert nn.Bidirectional(layer).merge_mode == "concat"


def test_lists_of_several_outputs_take_keras_order():
    """``evaluate`` (and ``*_on_batch``) without ``return_dict``: Keras 3's
    ``_flatten_metrics_in_order`` gives the loss, each output's loss in the outputs'
    order, then the metrics by name (its metric objects' bare names match no
    ``<output>_<metric>`` key, so those come sorted), whatever the outputs' order."""
    nn.clear_session()
    x = nn.Input((3,))
    h = nn.Dense(4)(x)
    model = nn.Model(x, [nn.Dense(2, name="z")(h),
                         nn.Dense(3, activation="softmax", name="a")(h)])
    model.compile("sgd", {"z": "mse", "a": "sparse_categorical_crossentropy"},
                  metrics={"z": ["mse", "mae"], "a": ["accuracy"]})
    rng = np.random.default_rng(3)
    data = rng.normal(size=(6, 3)).astype(np.float32)
    y = [rng.normal(size=(6, 2)).astype(np.float32), rng.integers(0, 3, 6)]
    keras_order = ["loss", "z_loss", "a_loss", "a_accuracy", "z_mae", "z_mse"]
    scores = model.evaluate(data, y, verbose=0, return_dict=True)
    assert sorted(scores) == sorted(keras_order)
    assert model.evaluate(data, y, verbose=0) == [scores[k] for k in keras_order]
    batch = model.test_on_batch(data, y, return_dict=True)
    assert model.test_on_batch(data, y) == [batch[k] for k in keras_order]


def test_saved_model_keeps_its_loss_weight(tmp_path):
    """load_model compiles again with the saved loss weight (a loss 3 times smaller and
    its gradients too, without it)."""
    nn.clear_session()
    model = nn.Sequential([nn.Input((3,)), nn.Dense(2)])
    model.compile("sgd", "mse", loss_weights=3.0)
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=(5, 3)).astype(np.float32), rng.normal(size=(5, 2))
    again = nn.load_model(nn.save_model(model, tmp_path / "weighted.npz"))
    assert again.evaluate(x, y, verbose=0) == model.evaluate(x, y, verbose=0)


def test_evaluate_lists_several_outputs_scores_in_keras_order():
    """``evaluate``'s list for several outputs is Keras 3's: the loss, each output's loss
    in the outputs' order, then the metrics sorted by key (Keras 3.15.1, outputs
    ``[val, lab]``, metrics ``[["mae", "mse"], ["accuracy"]]``: loss, val_loss,
    lab_loss, lab_accuracy, val_mae, val_mse).  It was the order of computation
    (val_mae, val_mse, lab_accuracy): unpacked as in Keras, silently other numbers."""
    nn.clear_session()
    x = nn.Input((3,))
    h = nn.Dense(4, activation="tanh")(x)
    model = nn.Model(x, [nn.Dense(2, name="val")(h),
                         nn.Dense(3, activation="softmax", name="lab")(h)])
    model.compile("sgd", ["mse", "sparse_categorical_crossentropy"],
                  metrics=[["mae", "mse"], ["accuracy"]])
    rng = np.random.default_rng(4)
    data = (rng.normal(size=(6, 3)).astype(np.float32),
            [rng.normal(size=(6, 2)).astype(np.float32), rng.integers(0, 3, 6)])
    scores = model.evaluate(*data, return_dict=True, verbose=0)
    listed = model.evaluate(*data, verbose=0)
    keras_order = ["loss", "val_loss", "lab_loss", "lab_accuracy", "val_mae", "val_mse"]
    assert sorted(scores) == sorted(keras_order)
    np.testing.assert_array_equal(listed, [scores[k] for k in keras_order])
    # test_on_batch and train_on_batch list their logs likewise (Keras' same function)
    batch = model.test_on_batch(*data, return_dict=True)
    np.testing.assert_array_equal(model.test_on_batch(*data), [batch[k] for k in keras_order])
    listed = model.train_on_batch(*data)
    assert len(listed) == len(keras_order)
    np.testing.assert_allclose(listed[3], scores["lab_accuracy"])   # weights before the step


def test_saved_loss_weight_missing_is_an_error_naming_the_file(tmp_path):
    """A saved output entry without its loss_weight is not taken as 1 (as compile
    refuses a loss_weights dict missing an output): an error naming the file."""
    import json
    nn.clear_session()
    model = nn.Sequential([nn.Input((3,)), nn.Dense(2)])
    model.compile("sgd", "mse", loss_weights=3.0)
    path = nn.save_model(model, tmp_path / "weighted.npz")
    with np.load(path) as saved:
        arrays = {k: saved[k] for k in saved.files}
    config = json.loads(str(arrays["__config__"]))
    assert config["compile"]["outputs"][0].pop("loss_weight") == 3.0
    arrays["__config__"] = np.array(json.dumps(config))
    np.savez(path, **arrays)
    with pytest.raises(PhylanxValueError, match="loss_weight") as info:
        nn.load_model(path)
    assert str(path) in str(info.value)
