"""Smoke test of benchmarks/grad_mlp.py: a tiny run checks phylanx's value and gradients
against JAX's (it asserts before timing) and prints both timings and the ratio."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow            # a fresh process importing phylanx and JAX
def test_grad_mlp_tiny_run_agrees_with_jax():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "grad_mlp.py"), "--batch", "8",
         "--features", "6", "--repeat", "1", "--dtype", "float64"],
        capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "phylanx value_and_grad:" in proc.stdout
    assert "ratio phylanx / JAX:" in proc.stdout
