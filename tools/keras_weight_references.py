"""Regenerate the stored Keras references of tests/nn/keras_weight_cases.py
(sample weights of models of several outputs and of masked outputs).

    KERAS_BACKEND=jax python tools/keras_weight_references.py

Writes ``tests/nn/data/keras_weights.npz`` atomically (a temporary file renamed
over the old one, after every case has run: a failing run leaves the old file whole).
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
from tests.nn import keras_weight_cases as cases  # noqa: E402


def main() -> None:
    arrays: dict[str, np.ndarray] = {}
    for name in cases.CASES:
        arrays.update(cases.flatten(name, cases.reference(name)))
        print(f"{name}: done")
    with atomic.open_atomic(cases.STORED, "wb") as fh:
        np.savez_compressed(fh, **arrays)
    print(f"wrote {cases.STORED}")


if __name__ == "__main__":
    main()
