"""Smoke test of benchmarks/run.py: a tiny run writes its JSON and Markdown, and
phylanx's result was checked against NumPy's and agreed."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_run_quick_w1(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--only", "W1",
         "--peers", "numpy,phylanx", "--repeat", "1", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (result,) = tmp_path.glob("*.json")
    (md,) = tmp_path.glob("*.md")
    data = json.loads(result.read_text())
    assert [c["workload"] for c in data["cases"]] == ["W1", "W1"]
    for case in data["cases"]:
        ph = case["peers"]["phylanx"]
        assert ph["status"] == "ok", ph          # checked against NumPy, and agreed
        assert ph["max_rel_err"] <= 1e-6
        assert len(ph["times_s"]) == 1 and ph["ratio_to_numpy"] > 0
    text = md.read_text()
    assert "W1 small" in text and "phylanx" in text and "Targets" in text
