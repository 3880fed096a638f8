"""Smoke test of benchmarks/settings_ab.py: one program, a setting on and off, a table row
with both ratios (each run checked against NumPy by the script)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import settings_ab  # noqa: E402


def test_one_program_prints_both_ratios(capsys):
    assert settings_ab.main(["loop_invariants", "--only", "ALS", "--quick",
                             "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"\| ALS by loops \| [\d.]+ \| [\d.]+x \| [\d.]+x \|", out), out
