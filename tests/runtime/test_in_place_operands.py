"""Operands evaluated in place by their parent (``fib(n - 1)``'s ``n - 1``, ``if``'s
``n < 2``, a branch reading a local) behave as if their own closure ran: same value,
same located error, and measured exactly once per evaluation when measured."""
from __future__ import annotations

import pytest

from phylanx import execution_tree as et
from phylanx.errors import PhylanxError, PhylanxTypeError
from phylanx.runtime import measure

FIB = "define(fib, n, if(n < 2, n, fib(n - 1) + fib(n - 2)))"


def python_fib(n: int, counts: dict) -> int:
    counts["calls"] += 1
    return n if n < 2 else python_fib(n - 1, counts) + python_fib(n - 2, counts)


def compiled(code: str, name: str, label: str):
    state = et.compiler_state(label, "prog.physl")
    et.compile(state, "prog.physl", name, code)
    return state, et.code_for(state, "prog.physl", name)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 15])
def test_recursive_calls_give_pythons_value(n):
    _, fib = compiled(FIB, "fib", "inplace-fib")
    counts = {"calls": 0}
    assert et.invoke(fib, (n,), {}) == python_fib(n, counts)


def column_of(code: str, line: int, text: str) -> int:
    return code.split("\n")[line - 1].index(text) + 1


def test_a_failing_condition_is_located_at_its_operator():
    code = "define(down, n,\n  if(n > 5, 0, down(n - 1)))"
    _, down = compiled(code, "down", "inplace-cond")
    with pytest.raises(PhylanxError) as info:
        et.invoke(down, ("x",), {})
    err = info.value
    assert isinstance(err, PhylanxTypeError)
    assert err.primitive == "__gt"
    assert (err.loc.line, err.loc.col) == (2, column_of(code, 2, ">"))
    assert [name for name, _ in err.frames] == []     # failed before any call


def test_an_argument_failing_inside_a_recursion_carries_every_call_frame():
    code = "define(f, n,\n  if(n == 0, f(n - nil), f(n - 1)))"
    _, f = compiled(code, "f", "inplace-frames")
    with pytest.raises(PhylanxError) as info:
        et.invoke(f, (3,), {})
    err = info.value
    assert err.primitive == "__sub"
    assert (err.loc.line, err.loc.col) == (2, column_of(code, 2, "- nil"))
    # the calls f(2), f(1), f(0) made from PhySL (the failing one never started)
    assert [name for name, _ in err.frames] == ["f", "f", "f"]


def test_measured_operands_are_counted_once_per_evaluation():
    state, fib = compiled(FIB, "fib", "inplace-measure")
    body = fib.body
    measure.enable(body, reset=True)
    try:
        counts = {"calls": 0}
        assert et.invoke(fib, (10,), {}) == python_fib(10, counts)
    finally:
        measure.disable(body)
    by_name = {}
    for node in body.walk():
        if not node.is_const:
            by_name.setdefault(node.primitive, []).append(node.count)
    calls = counts["calls"]
    assert by_name["__lt"] == [calls]               # the condition, once per call
    assert by_name["__sub"] == [calls // 2, calls // 2]   # n - 1 and n - 2 per inner call
    assert by_name["if"] == [calls]
    # and back to the in-place path: still Python's value
    assert et.invoke(fib, (12,), {}) == python_fib(12, {"calls": 0})


def test_deep_recursion_still_reaches_its_end_and_too_deep_is_located():
    code = "define(count, n, if(n < 1, 0, 1 + count(n - 1)))"
    _, count = compiled(code, "count", "inplace-deep")
    assert et.invoke(count, (3000,), {}) == 3000
    with pytest.raises(PhylanxError) as info:
        et.invoke(count, (10 ** 6,), {})
    assert "recursion too deep" in str(info.value)
