"""Work marked asynchronous runs concurrently with the rest of its parent (issue 14).

Observed through the instrumentation hooks (which thread ran which node, and
when), never through wall-clock ratios: two 1200 x 1200 products must run on
two threads with overlapping intervals once the policy has marked them.
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import config
from phylanx import execution_tree as et
from phylanx.runtime import executors, hooks, measure

N = 1200


class Recorder:
    def __init__(self):
        self.events = []

    def on_eval(self, node, start_ns, end_ns, thread_id):
        if node.primitive == "dot":
            self.events.append((start_ns, end_ns, thread_id))


@pytest.fixture
def policy(monkeypatch):
    # products stand for any heavy node here: the rule keeping products that BLAS runs
    # on several threads inline (tested below) is off
    from phylanx.runtime import policy as policy_module
    monkeypatch.setattr(policy_module, "KEEP_BLAS_PRODUCTS_INLINE", False)
    executors.set_threads(2)
    config.set("eval_count_threshold", 2)
    config.set("exec_time_upper_threshold", 100_000)
    config.set("exec_time_lower_threshold", 50_000)
    yield
    for name in ("eval_count_threshold", "exec_time_upper_threshold",
                 "exec_time_lower_threshold", "threads"):
        config.reset(name)
    executors.set_threads(0)
    config.reset("threads")


def _run_recorded(code: str, n: int = N, dtype=np.float64):
    rng = np.random.default_rng(1)
    a, b, c, d = (rng.integers(0, 10, (n, n)).astype(dtype) for _ in range(4))
    state = et.compiler_state("overlap")
    et.compile(state, "<t>", "f", code)
    fn = et.code_for(state, "<t>", "f")
    for root in state.snippets:
        measure.enable(root)
    rec = Recorder()
    hooks.install(rec)
    try:
        for _ in range(5):             # measured, decided, then run concurrently
            rec.events.clear()
            got = et.invoke(fn, (a, b, c, d), {})
    finally:
        hooks.remove(rec)
    np.testing.assert_allclose(got, a @ b + c @ d)
    return rec.events


def _assert_overlapped(events):
    assert len(events) == 2, events
    (s1, e1, t1), (s2, e2, t2) = events
    assert t1 != t2, "both products ran on one thread"
    assert s1 < e2 and s2 < e1, "the products ran one after the other"


def test_async_operands_run_concurrently(policy):
    _assert_overlapped(_run_recorded("define(f, a, b, c, d, dot(a, b) + dot(c, d))"))


def test_independent_statements_run_concurrently(policy):
    _assert_overlapped(_run_recorded(
        "define(f, a, b, c, d, block(define(x, dot(a, b)), define(y, dot(c, d)), x + y))"))


def test_parallel_block_runs_concurrently(policy):
    _assert_overlapped(_run_recorded(
        "define(f, a, b, c, d, block(define(x, 0), define(y, 0), "
        "parallel_block(store(x, dot(a, b)), store(y, dot(c, d))), x + y))"))


@pytest.fixture
def blas_rule(policy, monkeypatch):
    """The rule keeping BLAS products inline on, BLAS taken as multi-threaded."""
    from phylanx.runtime import blas_threads
    from phylanx.runtime import policy as policy_module
    monkeypatch.setattr(policy_module, "KEEP_BLAS_PRODUCTS_INLINE", True)
    monkeypatch.setattr(blas_threads, "multithreaded", lambda: True)
    return blas_threads


def test_products_blas_runs_on_several_threads_are_not_spawned(blas_rule, monkeypatch):
    events = _run_recorded("define(f, a, b, c, d, block(define(x, dot(a, b)), "
                           "define(y, dot(c, d)), x + y))")
    assert len(events) == 2 and events[0][2] == events[1][2], events   # one thread
    (s1, e1, _), (s2, e2, _) = sorted(events)
    assert e1 <= s2, "the products overlapped"
    # ... while with one BLAS thread (an MPI rank) they are spawned as any node
    monkeypatch.setattr(blas_rule, "multithreaded", lambda: False)
    _assert_overlapped(_run_recorded("define(f, a, b, c, d, block(define(x, dot(a, b)), "
                                     "define(y, dot(c, d)), x + y))"))


def test_the_rule_covers_what_blas_computes_and_only_that(blas_rule):
    # a statement computing a product in its subtree is kept inline as the product is
    events = _run_recorded("define(f, a, b, c, d, block(define(x, dot(a, b) * 1.0), "
                           "define(y, dot(c, d) * 1.0), x + y))")
    assert len(events) == 2 and events[0][2] == events[1][2], events
    # integer products: NumPy computes them on one thread, so they are spawned
    _assert_overlapped(_run_recorded("define(f, a, b, c, d, block(define(x, dot(a, b)), "
                                     "define(y, dot(c, d)), x + y))", n=300, dtype=np.int64))


def test_blas_multithreaded_follows_the_thread_count():
    from phylanx.runtime import blas_threads
    if blas_threads.current() is None:
        pytest.skip("no BLAS thread control (threadpoolctl found no BLAS)")
    before = blas_threads.current()
    try:
        blas_threads._set(1)
        assert not blas_threads.multithreaded()
        blas_threads._set(2)
        assert blas_threads.multithreaded()
    finally:
        blas_threads._set(before)


def _plan(code: str):
    from phylanx.compiler.dependencies import overlap_plan
    state = et.compiler_state("plan")
    block = state.compile_text(f"block({code})").children[0]
    return {i: (v.primitive, j) for i, (v, j) in overlap_plan(list(block.children)).items()}


@pytest.mark.parametrize("code, plan", [
    # independent: x overlaps y's statement, joined before x + y
    ("define(a, 1), define(x, dot(a, a)), define(y, dot(a, a)), x + y",
     {1: ("dot", 3)}),
    # the next statement reads x: nothing to overlap with
    ("define(a, 1), define(x, dot(a, a)), define(y, x * 2), y", {}),
    # a side effect (cout) keeps program order
    ("define(a, 1), define(x, dot(a, a)), define(y, dot(a, a)), cout(a), x + y",
     {1: ("dot", 3)}),
    # a statement assigning what the value reads must not run before it
    ("define(a, 1), define(x, dot(a, a)), store(a, 2), x",
     {}),
    # calls of functions are unknown code: program order
    ("define(g, lambda(1)), define(x, dot(2, 2)), g(), x", {}),
    # a value with a side effect, or assigning, is never spawned
    ("define(x, block(cout(1), 2)), define(y, 3 + 1), x + y", {}),
])
def test_dependency_analysis_of_block_statements(code, plan):
    assert _plan(code) == plan


def test_overlapped_statements_keep_their_results(policy):
    state = et.compiler_state("keep")
    code = ("define(f, a, block(define(x, dot(a, a)), define(s, 0), "
            "for_each(lambda(i, store(s, s + i)), range(100)), define(y, dot(a, a)), "
            "x + y + s))")
    et.compile(state, "<t>", "f", code)
    fn = et.code_for(state, "<t>", "f")
    a = np.random.default_rng(2).random((300, 300))
    for _ in range(6):
        np.testing.assert_allclose(et.invoke(fn, (a,), {}), 2 * (a @ a) + 4950)
