"""Regenerate the stored Keras references of an nn comparison cases module:

    KERAS_BACKEND=jax python tools/keras_case_references.py rnn_outputs
        (tests/nn/keras_rnn_output_cases.py: recurrent states, Bidirectional's
        backward_layer, models of several outputs -> tests/nn/data/keras_rnn_outputs.npz)
    KERAS_BACKEND=jax python tools/keras_case_references.py weights
        (tests/nn/keras_weight_cases.py: sample weights of models of several outputs
        and of masked outputs -> tests/nn/data/keras_weights.npz)
    KERAS_BACKEND=jax python tools/keras_case_references.py weighted_metrics
        (tests/nn/keras_weighted_metric_cases.py: compile's weighted_metrics ->
        tests/nn/data/keras_weighted_metrics.npz)

Each file is written atomically (tests/nn/keras_stored.py's ``regenerate``).
"""
from __future__ import annotations

import importlib
import os
import pathlib
import sys

os.environ.setdefault("KERAS_BACKEND", "jax")
ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.nn import keras_stored  # noqa: E402


def main(which: list[str]) -> None:
    unknown = sorted(set(which) - set(keras_stored.MODULES))
    if not which or unknown:
        sys.exit(f"name the cases: {' '.join(keras_stored.MODULES)} (got {which})")
    for name in which:
        keras_stored.regenerate(importlib.import_module(
            f"tests.nn.{keras_stored.MODULES[name]}"))


if __name__ == "__main__":
    main(sys.argv[1:])
