"""Futures compose, complete once, never block in a comparison, and waiting helps (issue 14)."""
from __future__ import annotations

import threading
import time

import pytest

from phylanx import config
from phylanx import execution_tree as et
from phylanx.runtime import executors
from phylanx.runtime.futures import Future, ready
from phylanx.runtime.locality import SingleLocality


@pytest.fixture
def pool1():
    executors.set_threads(1)
    yield executors.get_executor()
    executors.set_threads(0)
    config.reset("threads")


def test_then_when_all_dataflow():
    from phylanx.runtime.futures import dataflow, when_all
    a, b = Future(), Future()
    doubled = a.then(lambda f: f.result() * 2)
    both = when_all([a, b])
    summed = dataflow(lambda x, y, z: x + y + z, a, b, 100)
    assert not both.done() and not summed.done()
    a.set_result(1)
    assert doubled.result(timeout=1) == 2 and not both.done()
    b.set_result(2)
    assert both.result(timeout=1) == [a, b]
    assert summed.result(timeout=1) == 103
    bad = Future()
    out = dataflow(lambda x: x, bad)
    bad.set_exception(ValueError("no"))
    with pytest.raises(ValueError):
        out.result(timeout=1)
    with pytest.raises(ZeroDivisionError):
        ready(1).then(lambda f: 1 / 0).result(timeout=1)


def test_try_set_and_cancel():
    from phylanx.runtime.cancel import CancelledError
    f = Future()
    assert f.try_set_result(1) is True
    assert f.try_set_result(2) is False and f.try_set_exception(ValueError()) is False
    assert f.result() == 1
    with pytest.raises(RuntimeError):
        f.set_result(3)
    g = Future()
    assert g.cancel() is True and g.cancel() is False
    with pytest.raises(CancelledError):
        g.result(timeout=1)


def test_comparisons_and_truth_of_a_future_do_not_block():
    f = Future()
    outcome = []

    def probe():
        for op in (lambda: f == 1, lambda: bool(f), lambda: f < 2):
            try:
                op()
                outcome.append("value")
            except TypeError:
                outcome.append("TypeError")
    t = threading.Thread(target=probe, daemon=True)
    t.start()
    t.join(2)
    assert not t.is_alive(), "comparing a pending future blocked"
    assert outcome == ["TypeError"] * 3
    assert {f} == {f}   # identity hashing still works


def _occupy(pool, seconds: float) -> None:
    """Keep the pool's only worker busy for ``seconds`` (returns once it has started)."""
    started = threading.Event()
    pool.submit(lambda: (started.set(), time.sleep(seconds)))
    assert started.wait(5)


def test_waiting_on_a_bare_future_runs_the_queued_task_that_completes_it(pool1):
    _occupy(pool1, 1.5)
    bare = Future()
    ran_on = []
    pool1.submit(lambda: (ran_on.append(threading.current_thread()), bare.set_result(7)))
    t0 = time.monotonic()
    assert bare.result(timeout=10) == 7
    assert ran_on == [threading.current_thread()]   # the waiter ran it
    assert time.monotonic() - t0 < 1.0


def test_a_blocking_wait_runs_no_task_and_a_spare_worker_stands_in(pool1):
    # a collective's wait (result(helping=False)): the queued task completing the
    # awaited future runs on a spare thread, not on the waiter nor the busy worker
    _occupy(pool1, 1.5)
    bare = Future()
    ran_on = []
    pool1.submit(lambda: (ran_on.append(threading.current_thread().name),
                          bare.set_result(7)))
    t0 = time.monotonic()
    assert bare.result(timeout=10, helping=False) == 7
    assert time.monotonic() - t0 < 1.0
    assert len(ran_on) == 1 and ran_on[0].startswith("phylanx-spare-"), ran_on
    # the spare is no worker once nobody is blocked: a new task waits for the worker
    # (or a waiter), and the spare ends after SPARE_LINGER
    deadline = time.monotonic() + 5
    while pool1._spares and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pool1._spares == 0 and pool1._spares_active == 0


def test_a_spare_that_cannot_start_leaves_the_pool_consistent(pool1, monkeypatch):
    # no thread can be started (the process is at its limit): the blocked wait still
    # completes once the busy worker takes the queued task, and no spare is counted
    _occupy(pool1, 0.5)

    def refuse(self):
        raise RuntimeError("can't start new thread")
    monkeypatch.setattr(threading.Thread, "start", refuse)
    bare = Future()
    pool1.submit(lambda: bare.set_result(5))
    assert bare.result(timeout=10, helping=False) == 5
    assert pool1._spares == 0 and pool1._spares_active == 0 and pool1._blocked == 0
    monkeypatch.undo()
    assert pool1.submit(lambda: 6).result(timeout=5) == 6


def test_a_task_returning_forward_completes_with_the_forwarded_future(pool1):
    from phylanx.runtime.futures import Forward
    inner = Future()
    seen = []
    task = pool1.submit(lambda: Forward(inner, lambda e: (seen.append(e), KeyError("x"))[1]))
    time.sleep(0.05)
    assert not task.done()           # its task has returned: the thread is free
    assert pool1.submit(lambda: 3).result(timeout=5) == 3
    inner.set_result(11)
    assert task.result(timeout=5) == 11
    failing, inner2 = None, Future()
    failing = pool1.submit(lambda: Forward(inner2, lambda e: (seen.append(e), KeyError("x"))[1]))
    inner2.set_exception(ValueError("v"))
    with pytest.raises(KeyError):    # the converter's error, as the task's own
        failing.result(timeout=5)
    assert [type(e) for e in seen] == [ValueError]


def test_an_async_all_reduce_is_started_and_its_errors_located():
    # single process: the collective completes at once; its error names the primitive
    src = 'block(define(b, async(all_reduce(x, "max"))), define(c, async(all_reduce(x, ' \
          '"nosuch"))), list(b + 1, c))'
    state = et.compiler_state("async-start", "<async-start>")
    et.compile(state, "<async-start>", "f", f"define(f, x, {src})")
    from phylanx.errors import PhylanxError
    with pytest.raises(PhylanxError) as info:
        et.invoke(state.lookup("f"), (2.0,), {})
    assert info.value.primitive == "all_reduce" and "nosuch" in str(info.value)
    et.compile(state, "<async-start>", "g",
               'define(g, x, block(define(b, async(all_reduce(x * 2, "sum", "n"))), b + b))')
    assert et.invoke(state.lookup("g"), (2.0,), {}) == 8.0
    # instrumentation counts and times the started collective like any evaluation
    from phylanx.runtime import measure
    for root in state.snippets:
        measure.enable(root, reset=True)
    assert et.invoke(state.lookup("g"), (2.0,), {}) == 8.0
    nodes = [n for root in state.snippets for n in root.walk() if n.primitive == "all_reduce"]
    counted = [n for n in nodes if n.count]
    assert len(counted) == 1 and counted[0].count == 1 and counted[0].time_ns > 0


def test_an_async_collective_of_variables_starts_on_the_calling_thread(monkeypatch):
    # a queued task would start it only once a worker is free (one worker per MPI
    # rank: milliseconds after its operand exists); an operand to compute still goes
    # to a task, so that its computation overlaps with what follows
    from phylanx.primitives.controls import control_flow
    started_in_tasks = []
    real_spawn = control_flow.spawn
    monkeypatch.setattr(control_flow, "spawn", lambda fn, *a: (
        started_in_tasks.append(fn), real_spawn(fn, *a))[1])
    state = et.compiler_state("async-inline", "<async-inline>")
    et.compile(state, "<async-inline>", "f",
               'define(f, x, block(define(b, async(all_reduce(x, "sum", "v"))), b * 3))')
    et.compile(state, "<async-inline>", "g",
               'define(g, x, block(define(b, async(all_reduce(x + 1, "sum", "e"))), b * 3))')
    assert et.invoke(state.lookup("f"), (2.0,), {}) == 6.0
    assert started_in_tasks == []
    assert et.invoke(state.lookup("g"), (2.0,), {}) == 9.0
    assert len(started_in_tasks) == 1
    # a variable that holds a future still being computed: a task waits for it
    started_in_tasks.clear()
    et.compile(state, "<async-inline>", "h",
               'define(h, x, block(define(a, async(x * 2)), '
               'define(b, async(all_reduce(a, "sum", "w"))), b + 1))')
    assert et.invoke(state.lookup("h"), (2.0,), {}) == 5.0
    from phylanx.errors import PhylanxError
    et.compile(state, "<async-inline>", "k",
               'define(k, x, block(define(b, async(all_reduce(x, "nosuch"))), b))')
    started_in_tasks.clear()
    with pytest.raises(PhylanxError) as info:      # located, raised by the statement
        et.invoke(state.lookup("k"), (2.0,), {})
    assert info.value.primitive == "all_reduce" and "nosuch" in str(info.value)
    # it failed as it started: its value's failure, not started again in a task
    assert started_in_tasks == []
    et.compile(state, "<async-inline>", "u",
               'define(u, x, block(define(b, async(all_reduce(x, "nosuch"))), x))')
    with pytest.raises(PhylanxError, match="nosuch"):   # never read: the scope fails
        et.invoke(state.lookup("u"), (2.0,), {})
    assert started_in_tasks == []


def test_an_unread_collective_started_in_place_still_fails_its_evaluation(monkeypatch):
    # started on the calling thread, the future joins the evaluation scope as a task's
    # does: a collective that fails later, its value never read, fails the evaluation
    import phylanx.distributed as api
    from phylanx.errors import PhylanxError

    def failing_later(value, op="sum", name=None, *, where=None, check=None):
        future = Future()
        threading.Timer(0.2, future.set_exception, (RuntimeError("rank 1 died"),)).start()
        return future
    monkeypatch.setattr(api, "all_reduce", failing_later)
    state = et.compiler_state("async-unread", "<async-unread>")
    et.compile(state, "<async-unread>", "f",
               'define(f, x, block(define(b, async(all_reduce(x, "sum", "u"))), 1))')
    with pytest.raises((PhylanxError, RuntimeError), match="rank 1 died"):
        et.invoke(state.lookup("f"), (2.0,), {})
    et.compile(state, "<async-unread>", "g",
               'define(g, x, all_reduce(x, "sum", "", "false"))')
    monkeypatch.undo()
    with pytest.raises(PhylanxError, match="check must be true, false or nil"):
        et.invoke(state.lookup("g"), (2.0,), {})


def test_a_waiter_does_not_take_unrelated_work(pool1):
    started = threading.Event()
    awaited = pool1.submit(lambda: (started.set(), time.sleep(0.2), 1)[-1])
    assert started.wait(5)           # the worker runs it
    ran_on = []
    unrelated = pool1.submit(lambda: (ran_on.append(threading.current_thread()),
                                      time.sleep(1.0)))
    t0 = time.monotonic()
    assert awaited.result(timeout=10) == 1
    waited = time.monotonic() - t0
    assert threading.current_thread() not in ran_on, "the waiter ran an unrelated task"
    assert waited < 0.9
    unrelated.result(timeout=10)


def test_a_waiter_runs_work_spawned_by_the_awaited_task(pool1):
    inner_ran_on = []

    def outer():
        inner = pool1.submit(lambda: inner_ran_on.append(threading.current_thread()))
        time.sleep(0.05)
        return inner
    f = pool1.submit(outer)
    time.sleep(0.01)
    inner = f.result(timeout=10)
    inner.result(timeout=10)
    assert len(inner_ran_on) == 1


def test_waiters_poll_registered_progress_sources():
    from phylanx.runtime import progress
    f = Future()
    calls = []

    def poll() -> bool:
        calls.append(1)
        if len(calls) == 3:
            f.set_result("done")
            return True
        return False
    progress.register(poll)
    try:
        assert f.result(timeout=5) == "done"
    finally:
        progress.unregister(poll)
    assert len(calls) >= 3


def test_waiters_keep_polling_a_busy_source_instead_of_sleeping(monkeypatch):
    """While a source says it has work in flight, a waiter polls without the 1 ms
    sleep (bounded by SPIN_SECONDS); the sleeps it takes are counted here."""
    from phylanx.runtime import futures, progress
    f = Future()
    calls = []
    naps = []
    real_wait = threading.Event.wait
    me = threading.current_thread()

    def counting_wait(self, timeout=None):
        if threading.current_thread() is me:     # (pool workers wait too)
            naps.append(timeout)
        return real_wait(self, timeout)
    monkeypatch.setattr(threading.Event, "wait", counting_wait)
    monkeypatch.setattr(futures, "SPIN_SECONDS", 60.0)   # never runs out here

    def poll() -> bool:
        calls.append(1)
        if len(calls) == 200:
            f.set_result("done")
            return True
        return False
    progress.register(poll, busy=lambda: not f.done())
    try:
        assert f.result(timeout=30) == "done"
    finally:
        progress.unregister(poll)
    assert len(calls) >= 200
    assert naps == [], naps          # it never slept while the source was busy
    assert poll not in progress._busy


def test_a_broken_busy_query_only_stops_the_spinning():
    from phylanx.runtime import progress

    def poll() -> bool:
        return False

    def busy() -> bool:
        raise RuntimeError("broken")
    progress.register(poll, busy)
    try:
        assert progress.busy() is False
        assert poll not in progress._busy and poll in progress.sources()
    finally:
        progress.unregister(poll)


def test_run_on_reports_failures_in_the_future():
    here = SingleLocality()
    assert isinstance(here.run_on(3, lambda: 1).exception(), ValueError)
    assert isinstance(here.run_on(0, lambda: 1 / 0).exception(), ZeroDivisionError)
    assert here.run_on(0, lambda x: x + 1, 1).result() == 2


def test_policy_counters_are_not_lost_under_concurrency():
    import sys
    config.set("eval_count_threshold", 10**9)   # never decide: keep counting
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        state = et.compiler_state("counters")
        node = state.compile_text("define(f, x, (x + 1) * (x + 2))")
        state.run(node)
        call = state.compile_text("f(1) + f(2)")
        threads = [threading.Thread(target=lambda: [state.run(call) for _ in range(300)])
                   for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        operands = [c for c in call.walk() if c.primitive == "call-function"]
        # the policy's timed evaluations, in the side table (runtime/choices.py)
        assert [c.choice.runs for c in operands] == [1800, 1800]
    finally:
        sys.setswitchinterval(old)
        config.reset("eval_count_threshold")


def test_the_two_variable_fast_path_is_used():
    state = et.compiler_state("fast")
    node = state.compile_text("define(f, x, y, x + y)")
    assert et.invoke(state.run(node), (1, 2), {}) == 3   # settles on its closure when first run
    add = next(n for n in node.walk() if n.primitive == "__add")
    assert {"i", "j"} <= set(add.choice.variant.__code__.co_freevars)   # the side table's


def test_side_effect_kernels_see_values_not_futures():
    from phylanx.runtime.futures import Future as F
    state = et.compiler_state("effects")
    et.eval(state, "define_global(xs, list())")
    et.eval(state, "__list_append(xs, async(1 + 1))")
    assert [type(v) for v in state.lookup("xs")] != [F]
    assert state.lookup("xs") == [2]


def test_numpy_copy_protocol_of_a_future():
    """np.array(f) is an array of its own (other readers share the future's value),
    np.asarray(f) the value itself, copy=False refuses a conversion needing a copy."""
    import numpy as np
    value = np.array([1.0, 2.0])
    f = ready(value)
    copied = np.array(f)
    copied[0] = 5.0
    assert value.tolist() == [1.0, 2.0]
    assert np.asarray(f) is value
    with pytest.raises(ValueError):
        np.array(f, dtype=np.float32, copy=False)


def test_a_forwarded_future_is_waited_for_as_its_source_is():
    """``async(all_reduce(...))``'s value is a forwarded future of the engine's operation
    future, whose own wait drives MPI (``MPI_Wait`` for a request every rank started):
    waiting for the forwarded one must wait that way, not in the generic poll loop, which
    tests the request between naps (or, here, never completes it)."""
    from phylanx.runtime.futures import Forward, FutureTimeoutError, forwarded

    class Driven(Future):
        """Completed only by its own wait, as an operation its waiter drives."""
        __slots__ = ("waits", "outcome")

        def __init__(self, outcome):
            super().__init__()
            self._external = True
            self.waits, self.outcome = [], outcome

        def _wait(self, timeout=None, helping=True):
            self.waits.append(timeout)
            if isinstance(self.outcome, BaseException):
                raise self.outcome
            self.set_result(self.outcome)

    source = Driven(5)
    value = forwarded(Forward(source))
    assert value.result(timeout=2) == 5 and source.waits == [2]
    # the source's timeout is the waiter's
    late = Driven(FutureTimeoutError("late"))
    with pytest.raises(FutureTimeoutError):
        forwarded(Forward(late)).result(timeout=0.01)
    assert late.waits == [0.01]
    # a source done already is not waited for again
    done = Driven(1)
    done.set_result(7)
    assert forwarded(Forward(done)).result(timeout=2) == 7 and done.waits == []
