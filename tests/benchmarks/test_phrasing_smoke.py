"""Smoke test of benchmarks/phrasing.py --quick: every rewording of W1 and W2 gives the
original's result (within float32 rounding for the float32 data), and is timed."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def test_every_rewording_gives_the_originals_result(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    sys.modules.pop("benchmarks.phrasing", None)
    from benchmarks import phrasing
    assert len(phrasing.REWORDINGS) >= 10
    seen = 0
    for case in phrasing.cases(quick=True):
        vs = phrasing.variants(case, settle=0.0)
        phrasing.timed(vs, 1)
        assert vs[0].name == "original"
        for v in vs[1:]:
            assert v.err <= v.tol, (case.name, v.name, v.err)
            assert np.all(np.isfinite(v.result)) and len(v.times) == 1
        seen += len(vs) - 1
    assert seen == len(phrasing.REWORDINGS)
