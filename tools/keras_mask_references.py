"""Regenerate the stored Keras reference values of the masked models
(``tests/nn/keras_mask_cases.py``):

    KERAS_BACKEND=jax python tools/keras_mask_references.py [case ...]

writes ``tests/nn/data/keras_masks.npz`` atomically (tests/nn/test_keras_masks.py
compares phylanx with it when Keras is absent, and checks it is still Keras' when not).
Named cases: only theirs are recomputed, the other cases' stored values kept.
"""
from __future__ import annotations

import os
import pathlib
import sys
import warnings

os.environ.setdefault("KERAS_BACKEND", "jax")
ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from phylanx import atomic  # noqa: E402
from tests.nn import keras_mask_cases  # noqa: E402


def main(names: list[str]) -> None:
    unknown = sorted(set(names) - set(keras_mask_cases.CASES))
    if unknown:
        sys.exit(f"unknown case(s) {unknown}: the cases are {list(keras_mask_cases.CASES)}")
    names = names or list(keras_mask_cases.CASES)
    arrays: dict[str, np.ndarray] = {}
    if set(names) != set(keras_mask_cases.CASES):
        with np.load(keras_mask_cases.STORED) as saved:
            arrays = {key: saved[key] for key in saved.files
                      if key.split("/", 1)[0] in keras_mask_cases.CASES
                      and key.split("/", 1)[0] not in names}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # (Keras' warning of a dropped mask)
        for name in names:
            for key, value in keras_mask_cases.reference(name).items():
                if isinstance(value, list):
                    for i, item in enumerate(value):
                        arrays[f"{name}/{key}/{i}"] = np.asarray(item)
                else:
                    arrays[f"{name}/{key}"] = np.asarray(value)
    with atomic.open_atomic(keras_mask_cases.STORED, "wb") as fh:
        np.savez_compressed(fh, **arrays)
    print(f"wrote {keras_mask_cases.STORED}")


if __name__ == "__main__":
    main(sys.argv[1:])
