"""examples/transformer.py (issue 29 item 2): its encoder block trains to the loss curve
Keras 3 draws for the same model from the same weights (dropout 0, Adam, batches in
order), live when Keras is installed and from the stored reference otherwise; with
dropout it learns the task.  (2 localities against 1: tests/distributed/
test_nn_parallel_mpi.py, programs/transformer_parallel.py.)"""
from __future__ import annotations

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

from phylanx import nn

from . import keras_cases

# Keras' own warnings (NumPy 2's copy keyword, masks Permute drops) are not ours
pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning:keras"),
              pytest.mark.filterwarnings("ignore::UserWarning:keras")]

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
SIZES = {"steps": 8, "vocab": 10, "dim": 8, "heads": 2, "hidden": 16}
SAMPLES, BATCH, EPOCHS, LEARNING_RATE = 64, 16, 3, 0.01


def example():
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    spec = importlib.util.spec_from_file_location("phylanx_example_transformer",
                                                  EXAMPLES / "transformer.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _setting():
    ex = example()
    x, y = ex.order_data(SAMPLES, SIZES["steps"], SIZES["vocab"], seed=3)
    nn.clear_session()
    nn.set_seed(5)
    return ex, x, y, ex.build(**SIZES, dropout=0.0)


def keras_reference() -> dict:
    """Keras' per-epoch losses and final weights from the phylanx model's initial ones."""
    import keras
    ex, x, y, model = _setting()
    initial = model.get_weights()
    theirs = ex.keras_model(**SIZES, dropout=0.0)
    theirs.set_weights(initial)
    theirs.compile(keras.optimizers.Adam(LEARNING_RATE), "sparse_categorical_crossentropy")
    history = theirs.fit(x.astype(np.int32), y, batch_size=BATCH, epochs=EPOCHS,
                         shuffle=False, verbose=0)
    return {"initial": initial, "losses": np.asarray(history.history["loss"]),
            "final": [np.asarray(w) for w in theirs.get_weights()]}


@pytest.fixture(scope="module")
def phylanx_run():
    """The example model's per-epoch losses and final weights trained from ``initial``
    weights, once per initial weights in this module: training is deterministic
    (dropout 0, batches in order), so the live and the stored comparison share it."""
    runs: dict[tuple, tuple] = {}

    def run(initial: list) -> tuple:
        key = tuple((w.shape, w.dtype.str, w.tobytes()) for w in map(np.asarray, initial))
        if key not in runs:
            _, x, y, model = _setting()
            model.set_weights(initial)
            model.compile(nn.Adam(LEARNING_RATE), "sparse_categorical_crossentropy")
            history = model.fit(x, y, batch_size=BATCH, epochs=EPOCHS, shuffle=False,
                                verbose=0)
            runs[key] = (history.history["loss"], model.get_weights(),
                         [w.name for w in model.weights])
        return runs[key]
    yield run
    runs.clear()


#: weights whose gradient is exactly zero: the key projection's bias adds q . b to every
#: logit of a query's row, which the softmax over that row ignores; what training does to
#: them (in Keras as here) is float32 rounding noise, amplified by Adam's normalisation
ZERO_GRADIENT = ("multi_head_attention/key/bias",)


def _check_against(reference: dict, run) -> None:
    losses, weights, names = run(reference["initial"])
    np.testing.assert_allclose(losses, reference["losses"], rtol=1e-5)
    moved = max(float(np.abs(np.asarray(w) - np.asarray(w0)).max())
                for w, w0 in zip(reference["final"], reference["initial"], strict=True))
    for name, mine, theirs, start in zip(names, weights, reference["final"],
                                         reference["initial"], strict=True):
        if name.endswith(ZERO_GRADIENT):
            # both stay at their initial values to rounding: within 1e-4 of the largest
            # step training took (noise of different summation orders is not compared)
            for w in (mine, theirs):
                np.testing.assert_allclose(w, start, rtol=0, atol=1e-4 * moved, err_msg=name)
            continue
        np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=2e-6, err_msg=name)


@pytest.mark.slow
def test_loss_curve_equals_keras_live(phylanx_run):
    pytest.importorskip("keras")
    _check_against(keras_reference(), phylanx_run)


def test_loss_curve_equals_stored_keras_reference(phylanx_run):
    _check_against(keras_cases.stored("transformer"), phylanx_run)


def test_keras_and_phylanx_models_have_one_weight_layout():
    pytest.importorskip("keras")
    ex = example()
    nn.clear_session()
    mine = ex.build(**SIZES)
    theirs = ex.keras_model(**SIZES)
    assert [w.shape for w in mine.get_weights()] == [w.shape for w in theirs.get_weights()]


def test_the_example_learns_the_order_task(capsys):
    accuracy = example().main(["--epochs", "6", "--samples", "768", "--verbose", "0"])
    assert accuracy >= 0.75          # chance is 0.5
    assert "test accuracy" in capsys.readouterr().out


def test_the_task_needs_two_positions():
    x, y = example().order_data(400, 10, 12, seed=1)
    first_a = np.argmax(x == 1, axis=1)
    first_b = np.argmax(x == 2, axis=1)
    np.testing.assert_array_equal(y, first_a < first_b)
    assert ((x == 1).sum(axis=1) == 1).all() and ((x == 2).sum(axis=1) == 1).all()
    assert 0.35 < y.mean() < 0.65
