"""The process-wide recursion limit is raised only while a tree is evaluated (or compiled)."""
from __future__ import annotations

import sys
import threading

import pytest

import phylanx
from phylanx import Phylanx, execution_tree
from phylanx.compiler import Compiler
from phylanx.compiler.compiler import DEEP_RECURSION_LIMIT, deep_recursion

DEPTH = 3000   # needs more than Python's default limit of 1000 (a few frames per level)
RECURSIVE = "define(count, n, if(n == 0, 0, 1 + count(n - 1)))"


@pytest.fixture
def limit():
    """A recognisable limit of our own, restored after the test."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(1234)
    yield 1234
    sys.setrecursionlimit(before)


@Phylanx
def depth(n):
    if n == 0:
        return 0
    return 1 + depth(n - 1)


def test_constructing_and_compiling_leave_the_limit_unchanged(limit):
    Compiler()
    state = execution_tree.compiler_state("limit")
    state.compile_text(RECURSIVE + "\ncount(5)")
    assert sys.getrecursionlimit() == limit


def test_a_deep_physl_recursion_runs_and_the_limit_is_restored(limit):
    assert phylanx.evaluate(f"block({RECURSIVE}, count({DEPTH}))") == DEPTH
    assert sys.getrecursionlimit() == limit
    state = execution_tree.compiler_state("invoke")
    execution_tree.compile(state, "<t>", "count", RECURSIVE)
    assert execution_tree.invoke(state.lookup("count"), (DEPTH,), {}) == DEPTH
    assert sys.getrecursionlimit() == limit


def test_a_deep_decorated_recursion_runs_and_the_limit_is_restored(limit):
    assert depth(DEPTH) == DEPTH
    assert sys.getrecursionlimit() == limit


def test_the_limit_is_raised_during_an_evaluation(limit):
    seen = []
    execution_tree.invoke(lambda: seen.append(sys.getrecursionlimit()), (), {})
    assert seen == [DEEP_RECURSION_LIMIT] and sys.getrecursionlimit() == limit


def test_the_limit_is_restored_after_an_error(limit):
    with pytest.raises(phylanx.PhylanxError, match="recursion too deep"):
        phylanx.evaluate("block(define(f, n, f(n + 1)), f(0))")
    assert sys.getrecursionlimit() == limit


def test_overlapping_evaluations_restore_only_after_the_last(limit):
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    during = {}

    def first():
        with deep_recursion():
            first_in.set()
            second_in.wait(10)
        first_out.set()

    def second():
        first_in.wait(10)
        with deep_recursion():
            second_in.set()
            first_out.wait(10)
            during["after first left"] = sys.getrecursionlimit()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert during == {"after first left": DEEP_RECURSION_LIMIT}
    assert sys.getrecursionlimit() == limit


def test_concurrent_deep_calls_from_python_threads(limit):
    results = []

    def run(n):
        results.append(depth(n) == n)

    threads = [threading.Thread(target=run, args=(DEPTH - 100 * k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == [True] * 4 and sys.getrecursionlimit() == limit


def test_a_limit_the_program_sets_during_an_evaluation_is_kept(limit):
    with deep_recursion():
        sys.setrecursionlimit(5000)
    assert sys.getrecursionlimit() == 5000
