"""benchmarks/transformer_step.py runs at a tiny size and reports each peer's time and
its ratio to Keras, with the machine's load (guard: keeps the script working)."""
from __future__ import annotations

import importlib.util
import os
import pathlib

import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
pytest.importorskip("keras")
pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning:keras")]

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "transformer_step.py"


def test_transformer_step_reports_ratios(capsys):
    spec = importlib.util.spec_from_file_location("transformer_step_bench", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    medians = module.main(["--steps", "6", "--dim", "8", "--heads", "2", "--batch", "8",
                           "--calls", "2", "--warmup", "1"])
    assert set(medians) >= {"phylanx.nn (one tree)", "Keras 3 (JAX, XLA)"}
    assert all(t > 0 for t in medians.values())
    out = capsys.readouterr().out
    assert "x Keras" in out and "load average" in out
    if importlib.util.find_spec("torch") is not None:       # the PyTorch peer's ratio
        assert "torch (eager)" in medians and "x torch" in out
