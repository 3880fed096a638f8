"""Smoke test of benchmarks/general.py: every program's phylanx (and JAX) result agrees
with NumPy's at the quick sizes, and a one-program run prints its table and JSON."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import general  # noqa: E402
from general_programs import PROGRAMS  # noqa: E402


def test_at_least_twelve_programs():
    # a guard on the suite's size (the issue asks for twelve or more)
    assert len(PROGRAMS) >= 12 and len({p.name for p in PROGRAMS}) == len(PROGRAMS)


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_program_agrees_with_numpy(program):
    results = general.check(program, quick=True)
    assert "phylanx" in results
    for peer, (err, ok) in results.items():
        assert ok, f"{peer}: max relative error {err:.3g} > {program.tol}"


def test_quick_run_writes_table_and_json(tmp_path):
    out = tmp_path / "general.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "general.py"), "--quick",
         "--only", "pairwise", "--repeat", "1", "--json", str(out)],
        capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "geometric mean" in proc.stdout and "pairwise distances" in proc.stdout
    (row,) = json.loads(out.read_text())["rows"]
    assert row["peers"]["phylanx"]["status"] == "ok"
    assert row["peers"]["phylanx"]["ratio"] > 0
