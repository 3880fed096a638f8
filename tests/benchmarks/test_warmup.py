"""benchmarks/warmup.py: where a per-call curve reaches its steady state, and the
first-call child (the decorated function agrees with the undecorated one)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def warmup(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    sys.modules.pop("benchmarks.warmup", None)
    from benchmarks import warmup
    return warmup


def test_the_fast_state_is_where_five_calls_are_within_ten_percent(warmup):
    slow, fast = [50.0] * 7, [10.0] * 30
    assert warmup.reached(slow + fast, 10.0) == len(slow)
    # within 10% of the steady state counts (the median of five calls)
    assert warmup.reached(slow + [10.9] * 30, 10.0) == len(slow)
    assert warmup.reached(slow + [11.5] * 30, 10.0) is None


def test_one_slow_call_neither_delays_nor_undoes_it(warmup):
    curve = [50.0] * 4 + [10.0] * 10 + [80.0] + [10.0] * 10   # one descheduled call
    assert warmup.reached(curve, 10.0) == 4


def test_a_state_that_does_not_last_is_not_the_fast_state(warmup):
    curve = [50.0] * 4 + [10.0] * 6 + [50.0] * 6 + [10.0] * 10
    assert warmup.reached(curve, 10.0) == 16


def test_the_first_call_child_agrees_with_numpy(warmup):
    r = warmup.first_call("phylanx")
    assert r["agrees"] and r["first_s"] > 0 and r["import_s"] >= 0
