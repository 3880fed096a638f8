"""Regenerate tests/nn/refs/keras_training.{json,npz}: Keras 3's results of the
training scenarios of tests/nn/keras_scenarios.py, which tests/nn/test_keras_training.py
compares phylanx.nn with when Keras is not installed.

    KERAS_BACKEND=jax python tools/regen_keras_refs.py

Both files are written atomically (phylanx.atomic), after every scenario has run: a
failing run leaves the old references whole.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
REFS = ROOT / "tests" / "nn" / "refs"


def main() -> int:
    os.environ.setdefault("KERAS_BACKEND", "jax")
    sys.path.insert(0, str(ROOT))
    import keras

    from phylanx import atomic
    from tests.nn import keras_scenarios

    if keras.backend.backend() != "jax":
        print(f"Keras runs on {keras.backend.backend()}, not jax", file=sys.stderr)
        return 1
    values: dict = {"keras": keras.__version__, "scenarios": {}}
    arrays: dict = {}
    for name in keras_scenarios.SCENARIOS:
        record = keras_scenarios.run_keras(name)
        for i, w in enumerate(record.pop("weights")):
            arrays[f"{name}/weights/{i}"] = w
        if "predict_on_batch" in record:
            arrays[f"{name}/predict_on_batch"] = record.pop("predict_on_batch")
        values["scenarios"][name] = record
        print(f"{name}: done")
    REFS.mkdir(parents=True, exist_ok=True)
    atomic.write_text(REFS / "keras_training.json",
                      json.dumps(values, indent=1, sort_keys=True) + "\n")
    with atomic.open_atomic(REFS / "keras_training.npz", "wb") as fh:
        np.savez(fh, **arrays)
    return 0


if __name__ == "__main__":
    sys.exit(main())
