"""phylanx.nn's training features against Keras 3 (JAX backend), from the same data,
initial weights and settings (tests/nn/keras_scenarios.py): sample and class weights,
clipnorm/clipvalue/global_clipnorm, weight decay and AdamW, RMSprop's momentum and
centered form, Adam's amsgrad, L1/L2 regularizers, the
learning-rate schedules, ReduceLROnPlateau and LearningRateScheduler, and the
``*_on_batch`` methods.

Every per-epoch value (loss, metrics, validation values, learning rate) agrees to 1e-5
relative and the weights to float32 rounding.  With Keras installed the comparison is
with Keras itself (slow: Keras compiles each model); always, with the stored Keras
results of tests/nn/refs/ (tools/regen_keras_refs.py writes them).
"""
from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import numpy as np
import pytest

from tests.nn import keras_scenarios

os.environ.setdefault("KERAS_BACKEND", "jax")     # (before any import of keras)
REFS = Path(__file__).parent / "refs"
NAMES = list(keras_scenarios.SCENARIOS)


def _stored(name: str) -> dict:
    values = json.loads((REFS / "keras_training.json").read_text())["scenarios"][name]
    with np.load(REFS / "keras_training.npz") as arrays:
        values["weights"] = [arrays[k] for k in sorted(
            (k for k in arrays.files if k.startswith(f"{name}/weights/")),
            key=lambda k: int(k.rsplit("/", 1)[1]))]
        if f"{name}/predict_on_batch" in arrays.files:
            values["predict_on_batch"] = arrays[f"{name}/predict_on_batch"]
    return values


def _assert_same(ours: dict, keras: dict) -> None:
    for part in ("history", "evaluate"):
        assert (part in ours) == (part in keras)
        if part in keras:
            assert set(ours[part]) == set(keras[part]), part
            for key, values in keras[part].items():
                np.testing.assert_allclose(ours[part][key], values, rtol=1e-5, atol=1e-7,
                                           err_msg=f"{part}[{key!r}]")
    if "on_batch" in keras:
        assert len(ours["on_batch"]) == len(keras["on_batch"])
        for mine, theirs in zip(ours["on_batch"], keras["on_batch"]):
            assert set(mine) == set(theirs)
            for key in theirs:
                np.testing.assert_allclose(mine[key], theirs[key], rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(ours["predict_on_batch"], keras["predict_on_batch"],
                                   rtol=1e-5, atol=1e-6)
    assert len(ours["weights"]) == len(keras["weights"])
    for mine, theirs in zip(ours["weights"], keras["weights"]):
        # float32 rounding over a few dozen updates
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)


@pytest.fixture(scope="module")
def phylanx_run():
    """``run_phylanx(name)`` once per scenario in this module: a run is deterministic
    (fixed data, initial weights and seed), so the stored comparison, the live one and
    the guard all read the same records instead of training each scenario again."""
    runs: dict[str, dict] = {}

    def run(name: str) -> dict:
        if name not in runs:
            runs[name] = keras_scenarios.run_phylanx(name)
        return runs[name]
    yield run
    runs.clear()


@pytest.mark.parametrize("name", NAMES)
def test_matches_stored_keras_results(name, phylanx_run):
    _assert_same(phylanx_run(name), _stored(name))


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_matches_keras(name, phylanx_run):
    pytest.importorskip("keras")
    with warnings.catch_warnings():
        # Keras' own deprecation notices under NumPy 2 (not phylanx's business)
        warnings.simplefilter("ignore", DeprecationWarning)
        theirs = keras_scenarios.run_keras(name)
    _assert_same(phylanx_run(name), theirs)
    # and the stored results are still Keras' (else: tools/regen_keras_refs.py)
    _assert_same(_stored(name), theirs)


def test_the_scenarios_exercise_what_they_name(phylanx_run):
    """Guard: each optimizer option changes the result (else agreeing with Keras would
    prove nothing): the scenario without its option ends with other weights."""
    for name, option in (("clipnorm", "clipnorm"), ("clipvalue", "clipvalue"),
                         ("global_clipnorm", "global_clipnorm"),
                         ("weight_decay", "weight_decay"),
                         ("rmsprop_centered", "momentum"), ("rmsprop_centered", "centered"),
                         ("amsgrad", "amsgrad")):
        spec = keras_scenarios.SCENARIOS[name]
        opt, options = spec["optimizer"]
        stripped = {k: v for k, v in options.items() if k != option}
        keras_scenarios.SCENARIOS[f"{name}_off"] = {**spec, "optimizer": (opt, stripped)}
        try:
            with_it = phylanx_run(name)["weights"]
            without = keras_scenarios.run_phylanx(f"{name}_off")["weights"]
        finally:
            del keras_scenarios.SCENARIOS[f"{name}_off"]
        assert max(np.abs(a - b).max() for a, b in zip(with_it, without)) > 1e-4, name
