"""break/continue/return in unusual places, and the errors for jumps nothing catches.

Expected values are those of the equivalent Python loops (written next to each case).
"""
from __future__ import annotations

import pytest

import phylanx
from phylanx import execution_tree as et
from phylanx.errors import PhylanxRuntimeError


def python_nested_break():
    n = 0
    for _i in range(3):
        for j in range(3):
            if j == 1:
                break
            n += 1
    return n


def python_return_in_nested_loops():
    for i in range(3):
        for j in range(5):
            if j == 2:
                return i * 10 + j
    return -1


@pytest.mark.parametrize("code, expected", [
    ("block(define(n, 0), for_each(lambda(i, for_each(lambda(j, if(j == 1, break(), "
     "store(n, n + 1))), range(3))), range(3)), n)", python_nested_break()),
    ("block(define(f, lambda(block(for_each(lambda(i, for_each(lambda(j, if(j == 2, "
     "return(i * 10 + j))), range(5))), range(3)), -1))), f())",
     python_return_in_nested_loops()),
    ("block(define(s, list()), for_each(lambda(k, store(s, append(s, k))), "
     "dict(list(list(\"a\", 1), list(\"b\", 2)))), s)", list({"a": 1, "b": 2})),
    ("block(define(s, \"\"), for_each(lambda(c, store(s, string(c, s))), \"abc\"), s)", "cba"),
    ("for_each(lambda(x, x), list())", None),
    ("block(define(i, 0), define(s, 0), while(i < 5, block(store(i, i + 1), "
     "if(i == 3, continue()), store(s, s + i))), s)", 1 + 2 + 4 + 5),
    # a jump from a parallel_block statement reaches the loop around it
    ("block(define(i, 0), while(true, parallel_block(1, if(i > 3, break(), store(i, i + 1)))), "
     "i)", 4),
    ("block(define(i, 0), while(true, parallel_block(if(i > 3, break(), store(i, i + 1)), 1)), "
     "i)", 4),
    ("block(define(f, lambda(block(parallel_block(1, return(5)), 7))), f())", 5),
    ("block(define(f, lambda(block(parallel_block(return(5), 1), 7))), f())", 5),
])
def test_jumps_match_python(code, expected):
    assert phylanx.evaluate(code) == expected


@pytest.mark.parametrize("code, keyword, col", [
    ("break()", "break", 1),
    ("continue()", "continue", 1),
    ("block(1, break())", "break", 10),
    ("block(define(f, block(1, continue())), f())", "continue", 26),
    ("fmap(lambda(x, break()), list(1))", "break", 16),
    ("parallel_map(lambda(x, break()), list(1, 2, 3))", "break", 24),
])
def test_jump_outside_a_loop_is_a_located_error(code, keyword, col):
    with pytest.raises(PhylanxRuntimeError) as info:
        phylanx.evaluate(code)
    err = info.value
    assert err.primitive == keyword
    assert err.message == f"{keyword}() outside of a loop"
    assert (err.loc.line, err.loc.col) == (1, col)


def test_break_in_a_function_called_from_python_is_a_located_error():
    fn = et.eval(et.compiler_state(), "lambda(x, if(x, break(), x))")
    assert fn(0) == 0
    with pytest.raises(PhylanxRuntimeError, match=r"break\(\) outside of a loop"):
        fn(1)


def test_async_holding_a_jump_reports_it_where_consumed():
    with pytest.raises(PhylanxRuntimeError, match="outside of a loop"):
        phylanx.evaluate("async(break()) + 1")
    # never consumed: still reported when the evaluation ends (issue 14)
    with pytest.raises(PhylanxRuntimeError, match="outside of a loop"):
        phylanx.evaluate("block(async(break()), [1])")


# -- fmap over arrays: the original's rule (compat addendum B.5); Python's map keeps lists --

def test_fmap_over_a_1d_array_gives_an_array_of_the_input_dtype():
    import numpy as np
    got = phylanx.evaluate("fmap(lambda(x, x / 2), [1, 3, 4])")
    assert isinstance(got, np.ndarray) and got.dtype == np.int64
    np.testing.assert_array_equal(got, [0, 1, 2])          # converted: truncated
    got = phylanx.evaluate("fmap(lambda(x, x * 2.5), [1.0, 2.0])")
    np.testing.assert_allclose(got, [2.5, 5.0])
    empty = phylanx.evaluate("lambda(a, fmap(lambda(x, x), a))", np.array([], np.float32))
    assert empty.shape == (0,) and empty.dtype == np.float32


def test_fmap_over_the_rows_of_a_matrix():
    import numpy as np
    m = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    sums = phylanx.evaluate("lambda(a, fmap(lambda(r, sum(r)), a))", m)
    np.testing.assert_allclose(sums, [3, 7, 11])
    np.testing.assert_allclose(phylanx.evaluate("lambda(a, fmap(lambda(r, r * 2), a))", m), m * 2)
    ints = np.array([1, 3])
    with pytest.raises(phylanx.PhylanxError, match="out of its range"):   # not an int64
        phylanx.evaluate("lambda(a, fmap(lambda(x, x * 1e30), a))", ints)
    with pytest.raises(phylanx.PhylanxError, match="must return numbers"):
        phylanx.evaluate('lambda(a, fmap(lambda(x, "s"), a))', ints)
    with pytest.raises(phylanx.PhylanxError, match="scalars or vectors of one length"):
        phylanx.evaluate("lambda(a, fmap(lambda(r, slice(r, list(0, sum(r) > 4))), a))", m)


def test_fmap_over_several_arrays_gives_the_originals_float64_array():
    import numpy as np
    a, b = np.array([1, 2, 3]), np.array([4, 5, 6])
    got = phylanx.evaluate("lambda(a, b, fmap(lambda(x, y, x * y + 1), a, b))", a, b)
    assert isinstance(got, np.ndarray) and got.dtype == np.float64
    np.testing.assert_array_equal(got, np.array([x * y + 1 for x, y in zip(a, b)], float))
    m, w = np.arange(6.0).reshape(3, 2), np.ones((3, 2))
    rows = phylanx.evaluate("lambda(m, w, fmap(lambda(r, s, r - s), m, w))", m, w)
    np.testing.assert_array_equal(rows, np.array([r - s for r, s in zip(m, w)]))
    with pytest.raises(phylanx.PhylanxError, match="of one shape"):
        phylanx.evaluate("lambda(a, b, fmap(lambda(x, y, x), a, b))", a, b[:2])


@pytest.mark.parametrize("name", ["fmap", "parallel_map"])
def test_several_iterables_are_never_truncated(name):
    import numpy as np
    assert phylanx.evaluate(f"{name}(lambda(x, y, x - y), list(5, 6), list(1, 2))") == [4, 4]
    with pytest.raises(phylanx.PhylanxError, match="same length"):
        phylanx.evaluate(f"{name}(lambda(x, y, x - y), list(5, 6, 7), list(1, 2))")
    got = phylanx.evaluate(f"{name}(lambda(x, y, x - y), [5, 6], [1, 2])")
    assert got.dtype == np.float64 and np.array_equal(got, [4.0, 4.0])


def test_lists_and_python_map_keep_lists():
    import numpy as np
    assert phylanx.evaluate("fmap(lambda(x, x / 2), list(1, 3))") == [0.5, 1.5]

    def halves(a):
        return [x / 2 for x in a], list(map(lambda x: x * 2, a))
    comp, mapped = phylanx.Phylanx(halves)(np.array([1, 3]))
    assert isinstance(comp, list) and comp == [0.5, 1.5]
    assert isinstance(mapped, list) and mapped == [2, 6]
