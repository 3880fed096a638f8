"""The recorder: spans above the threshold, tasks with their spawn flows, restoring
the tree afterwards, the size limit, and phylanx.trace on success and failure."""
from __future__ import annotations

import gc
import json

import pytest

import phylanx
from phylanx import Phylanx
from phylanx import execution_tree as et
from phylanx.instrumentation import timeline, trace, tree_data
from phylanx.instrumentation.timeline import Recorder
from phylanx.instrumentation.validate import load, problems
from phylanx.runtime import executors, hooks

FIB = "define(fib, n, if(n < 2, n, fib(n - 1) + fib(n - 2)))"


def _fib_state():
    state = et.compiler_state("t", "<t>")
    et.compile(state, "<t>", "fib", FIB)
    return state


def test_recording_restores_every_node_and_the_executor():
    state = _fib_state()
    # (the program's own block is not a statement: the compiler reports its statements)
    nodes = [n for root in state.snippets for n in root.walk()
             if not n.is_const and n is not root]
    before = {id(n): (n.run, n.choice.call) for n in nodes}
    rec = Recorder(threshold_us=0).start()
    assert hooks.recorder is rec
    # recorded through a layer of each node's side-table entry; the plan is unchanged
    assert all(n.choice.call is not before[id(n)][1] for n in nodes)
    assert all(n.run is before[id(n)][0] for n in nodes)
    assert et.eval(state, "fib", 12) == 144
    rec.stop()
    assert hooks.recorder is None
    assert "submit" not in executors.get_executor().__dict__
    for n in nodes:   # back to what the policy wants (decided nodes: their variant)
        assert n.choice.recording is None and n.run is before[id(n)][0], n
        assert n.choice.call is n.choice.variant or n.choice.call.__name__ == "measuring", n


def test_spans_respect_the_threshold_and_recursion_is_recorded():
    state = _fib_state()
    with pytest.raises(RuntimeError):
        Recorder().start().start()      # one recording at a time
    hooks.recorder.stop()
    rec = Recorder(threshold_us=30).start()
    try:
        et.eval(state, "fib", 16)
    finally:
        rec.stop()
    spans = [e for e in rec.events if e[0] == timeline.NODE]
    assert spans, "fib(16) has evaluations longer than 30 us"
    assert all(e[4] >= 30_000 for e in spans)
    assert any(e[1].primitive == "if" for e in spans)       # the recursive body


def test_tasks_become_spans_with_paired_spawn_flows(tmp_path):
    assert phylanx.trace is trace            # the package exposes the recorder
    path = tmp_path / "t.json"
    # (a variable operand: the folding pass would turn `i * 2` into a literal)
    code = ("block(define(two, 2), parallel_block("
            + ", ".join(f"{i} * two" for i in range(40)) + "))")
    with trace(str(path), threshold_us=0):
        phylanx.evaluate(code)
    data = load(str(path), flows_paired=True)
    assert problems(data) == []
    tasks = [e for e in data["traceEvents"] if e["ph"] == "X" and e["cat"] == "task"]
    flows = {e["id"] for e in data["traceEvents"] if e["ph"] == "s"}
    assert len(tasks) >= 30 and {t["args"]["flow"] for t in tasks} <= flows
    # each statement run as a task is named after its node (the '*' it evaluates)
    assert all(t["args"]["node"].startswith("/phylanx$0/__mul$") for t in tasks)
    assert len({t["args"]["node"] for t in tasks}) == len(tasks)
    assert data["otherData"]["unpaired_flows"] == 0
    names = {e["args"]["name"] for e in data["traceEvents"]
             if e["ph"] == "M" and e["name"] == "thread_name"}
    assert "MainThread" in names


def test_the_size_limit_stops_recording(tmp_path, capsys):
    path = tmp_path / "t.json"
    with trace(str(path), threshold_us=0, max_size=40 * timeline.EVENT_BYTES) as t:
        phylanx.evaluate("parallel_block(" + ", ".join(f"{i} + 1" for i in range(400)) + ")")
    assert len(t.recorder.events) <= t.recorder.limit
    assert "size limit" in capsys.readouterr().err
    data = json.loads(path.read_text())
    assert "size limit" in data["otherData"]["stopped"]
    assert problems(data) == []          # unpaired flows were dropped, not written


def test_a_failing_block_still_writes_its_trace(tmp_path, capsys):
    path = tmp_path / "t.json"
    with pytest.raises(phylanx.PhylanxError):
        with trace(str(path), threshold_us=0):
            phylanx.evaluate("block(define(x, 1), x + undefined_name)")
    assert f"trace written up to the failure: {path}" in capsys.readouterr().err
    data = load(str(path))
    assert "undefined_name" in data["otherData"]["failed"]
    assert hooks.recorder is None


@Phylanx
def axpy(a, x, y):
    return a * x + y


def test_decorated_functions_store_their_sources(tmp_path):
    path = tmp_path / "t.json"
    with trace(str(path), functions=[axpy]):
        assert axpy(2, 3, 4) == 10
    (source,) = json.loads(path.read_text())["otherData"]["sources"]
    assert "def axpy" in source["python"]
    lines = [line for _, line in source["physl"]]
    assert source["first_line"] <= min(lines) and max(lines) < source["first_line"] + 3


def _idle_programs(count: int) -> list:
    """``count`` compiled programs, alive (their states held) and never run."""
    states = []
    for i in range(count):
        state = et.compiler_state(f"idle{i}", f"<idle{i}>")
        et.compile(state, f"<idle{i}>", "f",
                   "define(f, n, block(define(a, n * 2 + 1), if(n < 2, a, f(n - 1) + a)))")
        states.append(state)
    return states


def test_starting_over_many_live_programs_sets_off_no_collection():
    """Wrapping every live program allocates much and frees nothing: the collector waits
    (it cost seconds of full collections in a process holding many programs), and is
    on again afterwards -- or still off, if it was off before."""
    states = _idle_programs(12)
    collections: list[int] = []

    def note(phase, info):
        if phase == "start":
            collections.append(info["generation"])
    gc.callbacks.append(note)
    try:
        rec = Recorder(threshold_us=0).start()
    finally:
        gc.callbacks.remove(note)
    rec.stop()
    assert collections == [] and gc.isenabled()
    assert len(rec.roots) >= len(states)          # the idle programs were reached
    gc.disable()
    try:
        Recorder(threshold_us=0).start().stop()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_trace_builds_trees_of_the_programs_that_ran_only(tmp_path, monkeypatch):
    states = _idle_programs(4)
    idle = {id(n) for s in states for root in s.snippets for n in root.walk()}
    built = []
    real = tree_data.from_node

    def from_node(root, *args, **kwargs):
        built.append(id(root))
        return real(root, *args, **kwargs)
    monkeypatch.setattr(tree_data, "from_node", from_node)
    path = tmp_path / "t.json"
    with trace(str(path), threshold_us=0):
        phylanx.evaluate("block(define(two, 2), two * 3 + two)")
    trees = load(str(path))["otherData"]["trees"]
    assert trees and built and not idle & set(built)
    assert any(n["primitive"] == "__mul" for t in trees for n in tree_data.walk(t))
