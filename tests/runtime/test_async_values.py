"""``async`` values are resolved where they are consumed, wherever they flow.

A future that reaches a kernel, a list, a comparison, a call or Python must behave as
its value (the reference: "returns a future-valued result (resolved when consumed)").
Expected values are what the same expression gives without ``async``.
"""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx.errors import PhylanxError

# (expression with async, the same without async)
CASES = [
    ("async(1) == 1", "1 == 1"),
    ("async(1) != 1", "1 != 1"),
    ("[1, 2] == async(1)", "[1, 2] == 1"),
    ("async(2) < 3", "2 < 3"),
    ("sum(list(async(1 + 2), async(3)))", "sum(list(1 + 2, 3))"),
    ("list(async(1 + 2), async(3 * 4))", "list(1 + 2, 3 * 4)"),
    ("append(list(1), async(2))", "append(list(1), 2)"),
    ("dict(list(list(\"a\", async(1))))", "dict(list(list(\"a\", 1)))"),
    ("shape(async([1, 2, 3]))", "shape([1, 2, 3])"),
    ("block(define(x, async([1, 2, 3])), slice(x, 1))", "slice([1, 2, 3], 1)"),
    ("__len(async(list(1, 2)))", "__len(list(1, 2))"),
    ("string(async(1), \"-\", async(2.5))", "string(1, \"-\", 2.5)"),
    ("format(\"{}\", async(7))", "format(\"{}\", 7)"),
    ("block(define(f, async(lambda(x, x + 1))), f(2))", "2 + 1"),
    ("fmap(async(lambda(x, x * 2)), list(1, 2))", "list(2, 4)"),
    ("block(define(x, [1.0, 2.0]), store(slice(x, 0), async(5)), x)", "[5.0, 2.0]"),
    ("block(define(x, [1.0, 2.0]), store(slice(x, async(1)), 7), x)", "[1.0, 7.0]"),
    ("dot(async([1, 2]), [3, 4])", "dot([1, 2], [3, 4])"),
    ("if(async(false), 1, 2)", "2"),
]


@pytest.mark.parametrize("with_async, plain", CASES)
def test_async_value_behaves_as_its_value(with_async, plain):
    got, want = phylanx.evaluate(with_async), phylanx.evaluate(plain)
    assert type(got) is type(want)
    if isinstance(want, np.ndarray):
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype
    else:
        assert got == want


def test_async_values_inside_results_reach_python_resolved():
    got = phylanx.evaluate("dict(list(list(\"k\", list(async(1), async([2, 3])))))")
    assert got["k"][0] == 1 and type(got["k"][0]) is int
    np.testing.assert_array_equal(got["k"][1], [2, 3])


def test_cout_prints_the_value_of_an_async(capsys):
    phylanx.evaluate("cout(async(41 + 1))")
    assert capsys.readouterr().out == "42\n"


def test_error_inside_async_is_located_where_it_happened():
    with pytest.raises(PhylanxError) as info:
        phylanx.evaluate("block(define(x, async(slice([1], 5))),\n x + 1)")
    assert info.value.primitive == "slice"
    assert (info.value.loc.line, info.value.loc.col) == (1, 23)
