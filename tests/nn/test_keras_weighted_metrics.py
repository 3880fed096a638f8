"""compile's ``weighted_metrics`` against Keras 3's stored results
(``tests/nn/keras_weighted_metric_cases.py``; live with ``PHYLANX_KERAS_LIVE=1``):
History (Keras' keys: ``weighted_<metric>`` when an unweighted metric has the name),
``evaluate`` and the ``*_on_batch`` values to 1e-5 relative, final weights to float32
rounding; the epoch's reduction (``sum(w * value) / sum(w)`` over all its samples, not
a mean of the batches') and a masked output's training values against NumPy (Keras
3.15 on JAX loses the mask in training); bad ``weighted_metrics`` refused at the user's
compile line.  (Data parallel: ``tests/distributed/programs/nn_data_parallel_options.py``.)"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import nn

from . import keras_stored
from . import keras_weighted_metric_cases as cases
from .located import raises_in

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning:keras"),
              pytest.mark.filterwarnings("ignore::UserWarning:keras")]


def _assert_same(ours: dict, reference: dict, name: str) -> None:
    keras_stored.assert_same(ours, reference, keras_stored.PARTS,
                             cases.KERAS_TRAINING_MASK_LOST.get(name, ()))


def _run(name: str, initial: list) -> dict:
    model = cases.phylanx_model(name)
    model.set_weights(initial)
    return cases.run(model, name, keras_api=False)


def _check(name: str, reference: dict) -> None:
    _assert_same(_run(name, reference["initial"]), reference, name)


test_equals_stored_keras_reference, test_equals_keras_live = \
    keras_stored.comparisons(cases, _check)


def _compiled(name: str) -> nn.Model:
    model = cases.phylanx_model(name)
    model.compile(nn.SGD(cases.LEARNING_RATE), **cases.COMPILE[name])
    return model


def test_epoch_value_is_the_weighted_mean_over_its_samples():
    """evaluate in batches of 5 (the last of 1): ``sum(w * hit) / sum(w)`` over all the
    samples (a mean of the batches' values, or of them weighed by their sizes, differs);
    the list's order is Keras' (the renamed metric last); no weights: the metric."""
    model = _compiled("classes")
    given = cases.data("classes")
    x, y, w = given["x"], given["y"], given["ew"]
    hits = model.predict(x).argmax(-1) == y
    scores = model.evaluate(x, y, sample_weight=w, batch_size=5, verbose=0)
    want = (w * hits).sum() / w.sum()
    by_batch = [(w[i:i + 5] * hits[i:i + 5]).sum() / w[i:i + 5].sum()
                for i in range(0, len(x), 5)]
    assert abs(np.average(by_batch, weights=[5, 5, 5, 1]) - want) > 1e-3
    np.testing.assert_allclose(scores[1:], [hits.mean(), want], rtol=1e-6)
    plain = model.evaluate(x, y, batch_size=5, verbose=0, return_dict=True)
    assert plain["weighted_accuracy"] == pytest.approx(hits.mean(), rel=1e-6)
    zero = model.test_on_batch(x[:3], y[:3], sample_weight=np.zeros(3), return_dict=True)
    assert zero["weighted_accuracy"] == 0.0       # (Keras' divide_no_nan)


def test_masked_weighted_metric_in_training_against_numpy():
    """A masked output's weighted accuracy in ``train_on_batch`` (of the weights before
    the step) is ``sum(w * mask * hit) / sum(w * mask)``, a weight per sample of shape
    ``(n,)`` taken as ``(n, 1)`` (per step: the stored Keras run's evaluation, the same
    reduction)."""
    model = _compiled("masked")
    given = cases.data("masked")
    x, y, w = given["x"], given["y"], given["w"][:, 0]
    hits = model.predict(x).argmax(-1) == y
    mask = x != 0
    want = (w[:, None] * mask * hits).sum() / (w[:, None] * mask).sum()
    assert abs(want - hits[mask].mean()) > 1e-3
    got = model.train_on_batch(x, y, sample_weight=w, return_dict=True)
    assert got["accuracy"] == pytest.approx(want, rel=1e-5)


def test_bad_weighted_metrics_are_located_errors_at_compile():
    one = cases.phylanx_model("classes")
    loss = "sparse_categorical_crossentropy"
    for bad, words in ((["accuracy", "auc"], ("unknown metric 'auc'",)),
                       ("accuracy", ("weighted_metrics must be a list",))):
        raises_in(__file__, lambda bad=bad: one.compile("sgd", loss,
                                                        weighted_metrics=bad), *words)
    two = cases.phylanx_model("two_outputs")
    loss = ["sparse_categorical_crossentropy", "mse"]
    for bad, words in (({"c": ["mae"]}, ("weighted_metrics names output(s) ['c']",)),
                       ([["accuracy"]], ("weighted_metrics has 1 entries", "['a', 'b']")),
                       ({"b": ["nonesuch"]}, ("unknown metric 'nonesuch'",)),
                       (["accuracy", "mae"], ("one list of metric names per output",))):
        raises_in(__file__, lambda bad=bad: two.compile("sgd", loss,
                                                        weighted_metrics=bad), *words)
    assert two.loss is None             # (a refused compile changes nothing)


@pytest.mark.parametrize("name", ["classes", "regression"])
def test_model_parallel_fit_weighs_as_fit_in_one_process(name):
    """``fit(distributed="model")`` with ``class_weight`` (``classes``, weighted
    validation data) or ``sample_weight`` split by ``validation_split``
    (``regression``): the History of plain ``fit``, weighted metrics and weighted loss
    (under mpiexec: ``tests/distributed/programs/nn_model_parallel_fit.py``)."""
    given = cases.data(name)
    fit = {"validation_data": (given["vx"], given["vy"], given["vw"])} if "vx" in given \
        else {"validation_split": 0.25}
    found = []
    for distributed in ("model", None):
        model = _compiled(name)
        found.append(model.fit(given["x"], given["y"], sample_weight=given.get("w"),
                               class_weight=given.get("cw"), batch_size=cases.BATCH,
                               epochs=cases.EPOCHS, verbose=0, distributed=distributed,
                               **fit).history)
    got, want = found
    assert list(got) == list(want)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=1e-7, err_msg=key)
    # (the weights count: the weighted values are not the unweighted ones)
    plain = "accuracy" if name == "classes" else "mae"
    assert not np.allclose(want[f"weighted_{plain}"], want[plain])


def test_load_model_compiles_the_saved_weighted_metrics(tmp_path):
    model = _compiled("classes")
    again = nn.load_model(nn.save_model(model, tmp_path / "weighted.npz"))
    given = cases.data("classes")
    x, y, w = given["x"], given["y"], given["ew"]
    assert again.evaluate(x, y, sample_weight=w, verbose=0, return_dict=True) == \
        pytest.approx(model.evaluate(x, y, sample_weight=w, verbose=0, return_dict=True),
                      rel=1e-6)
    assert again.log_names() == ["loss", "accuracy", "weighted_accuracy"]


def test_acc_is_logged_as_acc_as_keras_3_names_it():
    """Keras 3.15 names a metric by the string given (``{'acc': ..., 'weighted_acc':
    ...}``; phylanx logged ``accuracy`` for ``acc`` before)."""
    model = cases.phylanx_model("classes")
    model.compile(nn.SGD(0.1), "sparse_categorical_crossentropy", metrics=["acc"],
                  weighted_metrics=["acc"])
    assert model.log_names() == ["loss", "acc", "weighted_acc"]


def test_a_batch_whose_weights_sum_to_zero_keeps_its_weighted_sum():
    """Negative weights: a batch of ``sum(w) == 0`` and ``sum(w * hit) != 0`` adds its
    sum to the epoch's (Keras' ``Mean``: total ``sum(w * v)``, count ``sum(w)``), and
    alone is 0 (``divide_no_nan``), in ``train_on_batch`` as in ``test_on_batch``."""
    model = _compiled("classes")
    given = cases.data("classes")
    x, y = given["x"], given["y"]
    hits = model.predict(x).argmax(-1) == y
    pair = [int(np.flatnonzero(hits)[0]), int(np.flatnonzero(~hits)[0])]
    xs, ys, w = x[pair * 2], y[pair * 2], np.array([1.0, -1.0, 1.0, 1.0], np.float32)
    want = (w * hits[pair * 2]).sum() / w.sum()          # 2 / 2, not the 2nd batch's 1 / 2
    got = model.evaluate(xs, ys, sample_weight=w, batch_size=2, verbose=0, return_dict=True)
    assert got["weighted_accuracy"] == pytest.approx(want, rel=1e-6)
    for step in (model.test_on_batch, model.train_on_batch):
        alone = step(xs[:2], ys[:2], sample_weight=w[:2], return_dict=True)
        assert alone["weighted_accuracy"] == 0.0, step.__name__


def test_a_metric_is_logged_by_the_string_given_case_and_all():
    """Keras 3.15 logs ``metrics=["ACC"], weighted_metrics=["Accuracy"]`` as ``ACC`` and
    ``Accuracy`` (a callback reading ``logs["ACC"]`` finds it), ``"MAE"`` as ``MAE``."""
    model = cases.phylanx_model("classes")
    model.compile(nn.SGD(0.1), "sparse_categorical_crossentropy", metrics=["ACC", "MAE"],
                  weighted_metrics=["Accuracy"])
    assert model.log_names() == ["loss", "ACC", "MAE", "Accuracy"]
    # (mode="auto" maximises it, whatever its case: Keras 3 asks the metric its direction)
    assert nn.EarlyStopping(monitor="val_ACC").sign == 1.0
    assert nn.callbacks.ReduceLROnPlateau(monitor="Accuracy").sign == 1.0
