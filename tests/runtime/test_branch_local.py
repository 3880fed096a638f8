"""Loop state is private to a concurrent branch (issue 14): exact results, many times."""
from __future__ import annotations

import sys

import pytest

import phylanx
from phylanx import execution_tree as et
from phylanx.errors import PhylanxCompileError


@pytest.fixture(autouse=True)
def switch_often():
    # thread switches every 10 us instead of 5 ms: interleavings the races need
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(old)


N = 1000
TOTAL = N * (N - 1) // 2

LOOPS = {
    "for_each": "for_each(lambda(i, store({s}, {s} + i)), range({n}))",
    "for": "for(define(i, 0), i < {n}, store(i, i + 1), store({s}, {s} + i))",
    "while": "block(define(i, 0), while(i < {n}, block(define(t, i), store({s}, {s} + t), "
             "store(i, i + 1))))",
}


@pytest.mark.parametrize("kind", list(LOOPS))
def test_two_loops_over_one_name_in_a_parallel_block(kind):
    loop = LOOPS[kind]
    code = (f"block(define(a, 0), define(b, 0), parallel_block("
            f"{loop.format(s='a', n=N)}, {loop.format(s='b', n=N)}), list(a, b))")
    state = et.compiler_state("branch")
    node = state.compile_text(code)
    for _ in range(20):
        assert state.run(node) == [TOTAL, TOTAL]


def test_loops_in_async_and_parallel_map_branches():
    # ``f + 0`` consumes the future (reading ``f`` alone would not wait for it)
    code = (f"block(define(a, 0), "
            f"define(f, async(block({LOOPS['for_each'].format(s='a', n=N)}, a))), "
            f"define(b, 0), {LOOPS['for_each'].format(s='b', n=N)}, "
            f"define(c, parallel_map(lambda(k, block(define(s, 0), "
            f"for_each(lambda(i, store(s, s + i * k)), range({N})), s)), list(1, 2, 3))), "
            f"list(f + 0, b, c))")
    for _ in range(10):
        got = phylanx.evaluate(code)
        assert got[:2] == [TOTAL, TOTAL]
        assert got[2] == [TOTAL, 2 * TOTAL, 3 * TOTAL]


def test_names_defined_directly_in_a_branch_stay_visible():
    # ``with parallel: a = ...; b = ...`` then ``a + b``
    assert phylanx.evaluate("block(parallel_block(define(a, 1), define(b, 2)), a + b)") == 3


def test_a_loop_variable_of_a_branch_does_not_change_the_outer_one():
    code = ("block(define(i, 42), define(s, 0), parallel_block("
            "for_each(lambda(i, store(s, s + i)), range(10)), 1), list(i, s))")
    assert phylanx.evaluate(code) == [42, 45]


def test_a_branch_loop_variable_is_not_visible_after_the_block():
    with pytest.raises(PhylanxCompileError, match="couldn't find variable 'k'"):
        phylanx.evaluate("block(parallel_block(for_each(lambda(k, k), range(3)), 1), k)")
