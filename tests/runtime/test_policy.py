"""The inline-versus-async policy: settings take effect, decisions are not lost."""
from __future__ import annotations

import time

import pytest

from phylanx import config
from phylanx import execution_tree as et
from phylanx.errors import PhylanxError
from phylanx.runtime import measure
from phylanx.runtime.policy import Thresholds

WORK = ("define(work, n, block(define(s, 0), define(i, 0), "
        "while(i < n, block(store(s, s + i), store(i, i + 1))), s))")


@pytest.fixture
def settings():
    yield config
    for name in ("eval_count_threshold", "exec_time_upper_threshold",
                 "exec_time_lower_threshold"):
        config.reset(name)


def _calls(node):
    return [n for n in node.walk() if n.primitive == "call-function"]


def test_config_set_changes_the_thresholds_at_once(settings):
    settings.set("eval_count_threshold", 2)
    settings.set("exec_time_upper_threshold", 1_000)
    settings.set("exec_time_lower_threshold", 500)
    assert (Thresholds.count, Thresholds.upper_ns, Thresholds.lower_ns) == (2, 1_000, 500)
    state = et.compiler_state("policy-config")
    et.eval(state, WORK)
    node = state.compile_text("work(300) + work(400)")
    for _ in range(3):
        assert state.run(node) == sum(range(300)) + sum(range(400))
    assert [c.eval_direct for c in _calls(node)] == [0, 0]
    settings.reset("eval_count_threshold")
    assert Thresholds.count == 5


def test_a_huge_upper_threshold_keeps_everything_inline(settings):
    settings.set("eval_count_threshold", 2)
    settings.set("exec_time_upper_threshold", 10**15)
    state = et.compiler_state("policy-inline")
    et.eval(state, WORK)
    node = state.compile_text("work(300) + work(400)")
    for _ in range(3):
        state.run(node)
    assert all(c.eval_direct != 0 for c in _calls(node))


def test_switching_measurements_off_keeps_undecided_nodes_watched(settings):
    settings.set("eval_count_threshold", 4)
    settings.set("exec_time_upper_threshold", 1_000)
    settings.set("exec_time_lower_threshold", 500)
    state = et.compiler_state("policy-measure")
    et.eval(state, WORK)
    node = state.compile_text("work(300) + work(400)")
    measure.enable(node)
    state.run(node)            # one timed evaluation each: still undecided
    measure.disable(node)
    assert [c.eval_direct for c in _calls(node)] == [-1, -1]
    for _ in range(4):
        state.run(node)
    assert [c.eval_direct for c in _calls(node)] == [0, 0]


def test_an_error_stops_the_operands_spawned_alongside(settings):
    settings.set("eval_count_threshold", 1)
    settings.set("exec_time_upper_threshold", 1_000)
    settings.set("exec_time_lower_threshold", 500)
    state = et.compiler_state("policy-error")
    et.eval(state, f"block({WORK}, define_global(done, list()), define_global(runs, 0))")
    # the first operand assigns a variable (never spawned) and fails on the second run;
    # the second is spawned first and is still busy in its loop when that happens
    node = state.compile_text(
        "list(block(store(runs, runs + 1), if(runs > 1, slice([1], 5), 0)), "
        "block(work(500000), __list_append(done, 1), 0), 0)")
    assert state.run(node) == [0, 0, 0]   # first run: timed inline, then marked async
    assert node.children[0].children[1].eval_direct == 0   # program -> list -> block
    assert node.children[0].children[0].eval_direct == 1   # writes a variable: inline
    with pytest.raises(PhylanxError):
        state.run(node)
    # the error cancelled the spawned operand at its next loop iteration, and it was
    # waited for: it never appends, not even after the error was reported
    time.sleep(0.2)
    assert len(state.lookup("done")) == 1
