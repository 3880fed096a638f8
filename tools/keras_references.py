"""Regenerate the stored Keras reference values of the nn layer tests (issue 29).

    KERAS_BACKEND=jax python tools/keras_references.py

Runs Keras 3 on every case of ``tests/nn/keras_cases.py`` and on the transformer
example's comparison (``tests/nn/test_transformer.py``) and writes what the tests
compare with when Keras is absent, ``tests/nn/data/keras_layers.npz``, and the weights
files Keras writes for the branched models of ``keras_cases.WEIGHT_FILE_CASES`` (their
initial weights, ``tests/nn/data/<case>.weights.h5``), each atomically (a temporary file
renamed over the old one: an interrupted run leaves the previous file).
"""
from __future__ import annotations

import os
import pathlib
import sys

os.environ.setdefault("KERAS_BACKEND", "jax")
ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from phylanx import atomic  # noqa: E402
from tests.nn import keras_cases, test_transformer  # noqa: E402


def main() -> None:
    arrays: dict[str, np.ndarray] = {}
    references = {name: keras_cases.reference(name) for name in keras_cases.CASES}
    references["transformer"] = test_transformer.keras_reference()
    for name, ref in references.items():
        for key, value in ref.items():
            if isinstance(value, list):
                for i, item in enumerate(value):
                    arrays[f"{name}/{key}/{i}"] = np.asarray(item)
            else:
                arrays[f"{name}/{key}"] = np.asarray(value)
    with atomic.open_atomic(keras_cases.STORED, "wb") as fh:
        np.savez_compressed(fh, **arrays)
    print(f"wrote {keras_cases.STORED} ({len(references)} cases)")
    write_weights_files()


def write_weights_files() -> None:
    """Keras' own ``save_weights`` of each branched case, from the stored initial weights."""
    for name in keras_cases.WEIGHT_FILE_CASES:
        path = pathlib.Path(keras_cases.weights_file(name))
        model = keras_cases.keras_model(name)
        model.set_weights(keras_cases.stored(name)["initial"])
        # (Keras insists on the '.weights.h5' ending, so the temporary file keeps it)
        tmp = path.with_name(f".tmp-{os.getpid()}-{path.name}")
        try:
            model.save_weights(tmp)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
