"""The trace-event file: the validator itself, loading, bad input to phylanx report."""
from __future__ import annotations

import json

import pytest

from phylanx.instrumentation.validate import TraceFileError, load, problems

from .helpers import SCRIPT, cli


def _good() -> dict:
    return {"displayTimeUnit": "ms",
            "otherData": {"format": "phylanx-trace", "version": 1},
            "traceEvents": [
                {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "x"}},
                {"ph": "X", "name": "a", "ts": 1.0, "dur": 2.0, "pid": 0, "tid": 0},
                {"ph": "s", "name": "spawn", "id": 7, "ts": 1.5, "pid": 0, "tid": 0},
                {"ph": "f", "name": "spawn", "id": 7, "ts": 2.0, "pid": 0, "tid": 1, "bp": "e"},
                {"ph": "X", "name": "b", "ts": 2.0, "dur": 0.5, "pid": 0, "tid": 1}]}


def test_the_validator_accepts_a_good_trace_and_finds_each_fault():
    assert problems(_good()) == []
    cases = {
        "lacks dur": lambda t: t["traceEvents"][1].pop("dur"),
        "bad ts/dur": lambda t: t["traceEvents"][1].update(dur=-1),
        "not paired": lambda t: t["traceEvents"].pop(3),
        "not 'e'": lambda t: t["traceEvents"][3].update(bp="s"),
        "unknown phase": lambda t: t["traceEvents"].append({"ph": "Q"}),
        "not a phylanx trace": lambda t: t["otherData"].update(format="other"),
        "no 'traceEvents'": lambda t: t.pop("traceEvents"),
    }
    for expected, spoil in cases.items():
        trace = _good()
        spoil(trace)
        found = problems(trace)
        assert any(expected in p for p in found), (expected, found)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    d = tmp_path_factory.mktemp("rec")
    (d / "script.py").write_text(SCRIPT)
    done = cli("trace", "-o", str(d / "trace.json"), str(d / "script.py"))
    assert done.returncode == 0, done.stderr
    return d / "trace.json"


def test_a_recorded_script_is_a_valid_trace_and_loads_back(recorded):
    data = load(str(recorded), flows_paired=True)
    assert problems(data) == []
    other = data["otherData"]
    assert other["ranks"] == [0] and other["localities"] == 1 and other["failed"] is None
    assert other["sources"] and "def work" in other["sources"][0]["python"]
    assert other["counters"] and other["trees"]
    cats = {e.get("cat") for e in data["traceEvents"] if e["ph"] == "X"}
    assert {"node", "task"} <= cats
    names = {e["args"]["name"] for e in data["traceEvents"]
             if e["ph"] == "M" and "name" in e["args"]}
    assert any(n.startswith("locality 0 (") for n in names)
    assert any(n.startswith("phylanx-worker") or n == "MainThread" for n in names)


def test_a_failing_script_writes_its_trace_up_to_the_failure(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text(SCRIPT + "\nraise RuntimeError('stop here')\n")
    out = tmp_path / "t.json"
    done = cli("trace", "-o", str(out), str(script))
    assert done.returncode == 1
    assert f"trace written up to the failure: {out}" in done.stderr
    assert "stop here" in load(str(out))["otherData"]["failed"]


@pytest.mark.parametrize("content, fault", [
    ('{"traceEvents": [], "otherData": {}}', "not a phylanx trace"),
    ('{"traceEvents": [{"ph": "X", "name": "a"', "cut short"),
    ("hello", "not JSON"),
    ("", "empty"),
    ('[1, 2]', "no 'traceEvents'"),
])
def test_report_refuses_bad_files_with_one_line(tmp_path, content, fault):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    with pytest.raises(TraceFileError, match=fault):
        load(str(bad))
    done = cli("report", str(bad), "-o", str(tmp_path / "r.html"))
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(bad) in lines[0] and fault in lines[0], done.stderr
    assert not (tmp_path / "r.html").exists()


def test_a_truncated_recorded_trace_is_refused(recorded, tmp_path):
    text = recorded.read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) // 2])
    done = cli("report", str(cut))
    assert done.returncode == 1 and "cut short" in done.stderr
    json.loads(text)   # the original is fine
