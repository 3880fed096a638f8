"""The policy's decisions are revisited: a node timed while the machine was busy does not
stay a task for ever (issue 27: a Jacobi went from 3.2x to 13.8x NumPy that way).

The side table's clock (``phylanx.runtime.choices.clock``) is replaced by a fake one
that advances by a chosen step per reading, so a node looks expensive or cheap at will,
without sleeping.
"""
from __future__ import annotations

import threading

import pytest

from phylanx import config
from phylanx import execution_tree as et
from phylanx.runtime import choices

WORK = ("define(work, n, block(define(s, 0), define(i, 0), "
        "while(i < n, block(store(s, s + i), store(i, i + 1))), s))")


class FakeClock:
    def __init__(self):
        self.now = 0
        self.step = 0
        self.lock = threading.Lock()

    def __call__(self) -> int:
        with self.lock:
            self.now += self.step
            return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(choices, "clock", fake)
    config.set("eval_count_threshold", 2)
    yield fake
    config.reset("eval_count_threshold")


def _program():
    state = et.compiler_state("revisit", "<revisit>")
    et.eval(state, WORK)
    node = state.compile_text("work(30) + work(40)")
    calls = [n for n in node.walk() if n.primitive == "call-function"]
    return state, node, calls


def _run_until(state, node, calls, want, limit):
    """Evaluations (each one top-level, the side table's tick) until every call's
    decision is ``want``; returns how many it took, or None."""
    for k in range(1, limit + 1):
        assert state.run(node) == sum(range(30)) + sum(range(40))
        if [c.choice.eval_direct for c in calls] == [want] * len(calls):
            return k
    return None


EXPENSIVE = 10_000_000     # 10 ms per timed evaluation: above the upper threshold
CHEAP = 1_000              # 1 us: below the lower one


def test_a_task_that_became_cheap_comes_back_inline_and_back_again(clock):
    state, node, calls = _program()
    add = calls[0].parent
    clock.step = EXPENSIVE
    assert _run_until(state, node, calls, 0, 3) is not None      # decided: tasks
    assert add.choice.async_children

    clock.step = CHEAP             # the busy minute is over
    taken = _run_until(state, node, calls, 1, choices.REVISIT_FIRST + 4)
    assert taken is not None, [c.choice for c in calls]
    assert not add.choice.async_children                           # spawns nothing now

    clock.step = EXPENSIVE         # now inline, and expensive again: found at a revisit
    # (a revisit during the cheap phase may have confirmed "inline" and doubled a period)
    period = max(c.choice.period for c in calls)
    assert state.run(node) == sum(range(30)) + sum(range(40))
    assert [c.choice.eval_direct for c in calls] == [1, 1]          # not re-timed at once
    taken = _run_until(state, node, calls, 0, period + 4)
    assert taken is not None, [c.choice for c in calls]
    assert add.choice.async_children


def test_a_confirmed_decision_is_revisited_less_and_less_often(clock):
    state, node, calls = _program()
    clock.step = CHEAP
    assert _run_until(state, node, calls, 1, 3) is not None
    entry = calls[0].choice
    periods = [entry.period]
    for _ in range(choices.REVISIT_FIRST * 8):
        state.run(node)
        if entry.period != periods[-1]:
            periods.append(entry.period)
    assert entry.eval_direct == 1
    # each revisit that confirmed "inline" doubled the period (geometric back-off)
    assert periods[:3] == [choices.REVISIT_FIRST, 2 * choices.REVISIT_FIRST,
                           4 * choices.REVISIT_FIRST]


def test_a_task_whose_cost_moves_by_more_than_twice_is_timed_again(clock):
    """A node running as a task is timed inside its task; a run that took less than
    half of what it took when decided makes it timed again at once."""
    state, node, calls = _program()
    clock.step = EXPENSIVE
    assert _run_until(state, node, calls, 0, 3) is not None
    spawned = calls[0].choice          # the first operand is the one spawned
    clock.step = CHEAP
    state.run(node)
    assert spawned.measuring or spawned.eval_direct == 1
