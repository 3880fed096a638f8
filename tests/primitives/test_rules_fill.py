"""Filling a rule table on first use (primitives/rules.py ``RuleTable._fill``) is safe
across threads: a thread asking while another thread's import is still registering
rules waits for the whole table instead of answering from half of it.

Deterministic: the filling module registers one rule, tells the reader to ask, gives it
time to answer, then registers the second rule.  A reader that answered before the
second rule saw a partial table."""
from __future__ import annotations

import sys
import threading
import types

import pytest

from phylanx.primitives.rules import RuleTable

FILLER = """
from rt2_fill_ctx import table, half, answered
table.defrule("sin", "rule-sin")
half.set()
answered.wait(1.0)   # the fixed table makes the reader wait: go on after a while
table.defrule("cos", "rule-cos")
"""


@pytest.fixture
def filler(tmp_path, monkeypatch):
    (tmp_path / "rt2_fill_module.py").write_text(FILLER)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "rt2_fill_module", raising=False)
    ctx = types.ModuleType("rt2_fill_ctx")
    ctx.table = RuleTable("probe", lambda spec: True, "any", "rt2_fill_module")
    ctx.half, ctx.answered = threading.Event(), threading.Event()
    monkeypatch.setitem(sys.modules, "rt2_fill_ctx", ctx)
    yield ctx
    sys.modules.pop("rt2_fill_module", None)


def test_a_reader_during_the_fill_sees_the_whole_table(filler):
    seen: dict[str, object] = {}

    def reader():
        assert filler.half.wait(30)
        try:
            seen["names"] = filler.table.names()
            seen["cos"] = filler.table.get("cos")
        except BaseException as e:  # reported by the main thread
            seen["error"] = e
        filler.answered.set()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    assert filler.table.names() == ["cos", "sin"]   # this thread fills the table
    t.join(30)
    assert not t.is_alive(), "the reader never got an answer"
    assert "error" not in seen, seen.get("error")
    assert seen["names"] == ["cos", "sin"]
    assert seen["cos"] == "rule-cos"


def test_a_failed_fill_is_reported_and_retried(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "rt2_fill_broken.py"
    path.write_text("raise ImportError('rule module broken')\n")
    monkeypatch.delitem(sys.modules, "rt2_fill_broken", raising=False)
    table = RuleTable("probe", lambda spec: True, "any", "rt2_fill_broken")
    with pytest.raises(ImportError, match="rule module broken"):
        table.names()
    # not an empty table passed off as complete: the next question imports again
    with pytest.raises(ImportError, match="rule module broken"):
        table.get("sin")
    sys.modules.pop("rt2_fill_broken", None)
