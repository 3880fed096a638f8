"""Futures and executors: completion from other threads, no deadlock, errors delivered."""
from __future__ import annotations

import threading

import pytest

import phylanx
from phylanx import config
from phylanx.errors import PhylanxError
from phylanx.runtime import executors
from phylanx.runtime.futures import Future, FutureTimeoutError, ready, resolve


def test_future_completed_from_another_thread():
    f = Future()
    threading.Timer(0.01, f.set_result, args=(42,)).start()
    assert f.result(timeout=5) == 42
    assert f.done()


def test_future_exception_and_callbacks():
    f = Future()
    seen = []
    f.add_done_callback(lambda fut: seen.append(fut.exception()))
    err = ValueError("boom")
    f.set_exception(err)
    with pytest.raises(ValueError, match="boom"):
        f.result()
    assert seen == [err]
    with pytest.raises(RuntimeError):
        f.set_result(1)


def test_future_wait_times_out():
    with pytest.raises(FutureTimeoutError):
        Future().result(timeout=0.02)


def test_ready_and_resolve():
    assert resolve(ready(3)) == 3
    assert resolve(5) == 5


@pytest.fixture
def pool2():
    executors.set_threads(2)
    yield executors.get_executor()
    config.reset("threads")
    executors.set_threads(0)
    config.reset("threads")


def test_pool_runs_tasks_and_propagates_errors(pool2):
    futures = [pool2.submit(lambda i=i: i * i) for i in range(100)]
    assert [f.result(timeout=10) for f in futures] == [i * i for i in range(100)]

    def fail():
        raise KeyError("x")
    with pytest.raises(KeyError):
        pool2.submit(fail).result(timeout=10)


def test_nested_waits_on_two_threads_do_not_deadlock(pool2):
    def fib(n):
        if n < 2:
            return n
        a = pool2.submit(fib, n - 1)
        b = pool2.submit(fib, n - 2)
        return a.result() + b.result()
    done = pool2.submit(fib, 15)
    assert done.result(timeout=60) == 610


def test_recursive_parallel_block_fibonacci_on_two_threads(pool2):
    code = """
    block(
      define(pfib, n,
        if(n < 2, n,
           block(define(a, 0), define(b, 0),
                 parallel_block(store(a, pfib(n - 1)), store(b, pfib(n - 2))),
                 a + b))),
      pfib(20))
    """
    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("v", phylanx.evaluate(code)))
    worker.start()
    worker.join(timeout=120)
    assert not worker.is_alive(), "parallel fibonacci hung"
    assert result["v"] == 6765


def test_sync_execution_switch_runs_on_calling_thread():
    config.set("sync_execution", True)
    try:
        ex = executors.get_executor()
        assert isinstance(ex, executors.SyncExecutor)
        thread = ex.submit(lambda: threading.current_thread()).result()
        assert thread is threading.current_thread()
        assert phylanx.evaluate("parallel_block(1, 2, 3 + 4)") == 7
    finally:
        config.reset("sync_execution")


def test_error_in_parallel_block_reaches_caller():
    with pytest.raises(PhylanxError) as info:
        phylanx.evaluate("parallel_block(slice([1, 2], 5), 3)")
    assert "slice" in str(info.value)


def test_async_value_is_waited_for_where_used():
    assert phylanx.evaluate("async(1 + 2) + 1") == 4
    assert phylanx.evaluate("block(define(x, async(2 * 3)), if(x, x, 0))") == 6


def test_policy_marks_expensive_operands_async():
    from phylanx.runtime.policy import Thresholds
    old = (Thresholds.count, Thresholds.upper_ns, Thresholds.lower_ns)
    Thresholds.count, Thresholds.upper_ns, Thresholds.lower_ns = 2, 1_000, 500
    try:
        state = phylanx.execution_tree.compiler_state("policy")
        code = ("define(work, n, block(define(s, 0), define(i, 0), "
                "while(i < n, block(store(s, s + i), store(i, i + 1))), s))")
        phylanx.execution_tree.compile(state, "<t>", "work", code)
        node = state.compile_text("work(200) + work(300)")
        for _ in range(4):
            assert state.run(node) == sum(range(200)) + sum(range(300))
        add = node.children[0] if node.primitive == "block" and node.children else node
        decided = [c.eval_direct for c in add.walk() if c.primitive == "call-function"]
        assert 0 in decided, decided
    finally:
        Thresholds.count, Thresholds.upper_ns, Thresholds.lower_ns = old


def test_a_raising_done_callback_does_not_kill_the_worker(pool2, caplog):
    def bad_callback(future):
        raise RuntimeError("callback bug")
    f = pool2.submit(lambda: 5)
    f.add_done_callback(bad_callback)
    assert f.result(timeout=10) == 5
    # the pool still works afterwards, and the bug was logged
    assert [pool2.submit(lambda i=i: i).result(timeout=10) for i in range(20)] == list(range(20))
    late = Future()
    late.set_result(1)
    late.add_done_callback(bad_callback)
    assert any("done-callback raised" in r.getMessage() for r in caplog.records)
