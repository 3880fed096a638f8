"""Smoke test of benchmarks/distributed.py: a tiny run on 2 localities of the unchanged
LRA and k-means and the power iteration beside their mpi4py peers, with the cost
model's predictions; the results agree with the peers and the numbers are sane."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.mpi


def test_distributed_quick(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "distributed.py"), "--quick", "--ranks",
         "2", "--repeat", "1", "--only", "lra,kmeans,power", "--simulate",
         "--out", str(tmp_path)], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (result,) = tmp_path.glob("*-distributed-quick.json")
    report = json.loads(result.read_text())
    run = report["runs"]["2"]
    assert run["ranks"] == 2 and run["blas_threads"] == "1"
    for name in ("lra", "kmeans", "power"):
        assert run[name]["rel_diff"] <= 1e-6, name
        for variant in ("phylanx", "mpi4py"):
            seconds = run[name][variant]["min_s"]
            assert 0 < seconds < 60 and math.isfinite(seconds), (name, variant)
    calibration = run["calibration"]
    assert calibration["latency_s"] > 0 and calibration["madd_s"] > 0
    text = (tmp_path / result.name.replace(".json", ".md")).read_text()
    assert "| lra | 2 |" in text and "Cost model" in text and "| kmeans | mpi4py | 64 |" in text
