"""Counters, CSV and tree topology through the execution_tree API (§5)."""
from __future__ import annotations

import csv
import io
import logging

from phylanx import execution_tree as et
from phylanx.runtime import hooks


def test_counters_csv_and_topology():
    state = et.compiler_state("inst", "<inst>")
    et.compile(state, "<inst>", "fib", "define(fib, n, if(n < 2, n, fib(n - 1) + fib(n - 2)))")
    names = et.enable_measurements(state, True)
    assert any("/if$" in n for n in names)
    assert et.eval(state, "fib", 10) == 55
    text = et.retrieve_counter_data(state)
    assert text.splitlines()[0] == "primitive_instance,display_name,count,time,eval_direct"
    rows = {row[1]: row for row in csv.reader(io.StringIO(text))}
    assert int(rows["if(1, 16)"][2]) == 177  # fib(10) evaluates the body 177 times
    newick, dot = et.retrieve_tree_topology(state, "<inst>", "fib")
    assert newick.endswith(") fib;") and "/phylanx$0/if$0/" in newick
    assert dot.startswith('graph "fib" {') and '" -- "' in dot


def test_hooks_receive_evaluations():
    seen = []

    class Hook:
        def on_eval(self, node, start, end, thread):
            seen.append((node.primitive, end - start >= 0))

    state = et.compiler_state("hooks")
    et.compile(state, "<h>", "f", "define(f, x, x * 2 + 1)")
    et.enable_measurements(state)
    hook = Hook()
    hooks.install(hook)
    try:
        assert et.eval(state, "f", 3) == 7
    finally:
        hooks.remove(hook)
    prims = {p for p, ok in seen if ok}
    assert {"__mul", "__add"} <= prims


def test_enable_tracing_logs_evaluations_of_code_compiled_afterwards(caplog):
    import phylanx
    try:
        phylanx.evaluate("enable_tracing(true)")
        with caplog.at_level(logging.DEBUG, logger="phylanx.trace"):
            assert phylanx.evaluate("block(define(x, 2), x * 21)") == 42
        traced = [r.getMessage() for r in caplog.records if r.name == "phylanx.trace"]
        assert any("/__mul$" in m and " ns " in m for m in traced), traced
    finally:
        phylanx.evaluate("enable_tracing(false)")
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="phylanx.trace"):
        phylanx.evaluate("3 * 4")
    assert not [r for r in caplog.records if r.name == "phylanx.trace"]
