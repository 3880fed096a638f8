"""Smoke test of benchmarks/optimize_ab.py's in-process timing: it checks phylanx (with
the optimisations on and off) against NumPy before timing, on a tiny case."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_in_process_case_checks_both_settings_against_numpy(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    sys.modules.pop("benchmarks.optimize_ab", None)
    from benchmarks import optimize_ab
    from benchmarks.workloads import w1_lra
    for fn in (optimize_ab.least_squares, w1_lra.lra):
        medians = optimize_ab._time_case(fn, 40, 3, 3, rounds=2)
        assert set(medians) == {"numpy", True, False}
        assert all(t > 0 for t in medians.values())
