"""Statements: assignment forms, control flow, early return, loops, scoping."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx import Phylanx

from .helpers import check

ints = st.integers(-20, 20)
small_lists = st.lists(st.integers(-9, 9), max_size=8)


@Phylanx
def assignments(a, b):
    x = y = a + b
    x += 1
    y *= 2
    a, b = b, a
    p, (q, r) = a, [b, x]
    first, *rest = [p, q, r, y]
    z: int = first - len(rest)
    return x, y, a, b, z, rest


@given(ints, ints)
@settings(max_examples=30, deadline=None)
def test_assignment_forms(a, b):
    check(assignments, a, b)


@Phylanx
def branches(n):
    if n < 0:
        return "negative"
    elif n == 0:
        return "zero"
    if n % 2 == 0:
        kind = "even"
    else:
        kind = "odd"
    return kind + ("!" if n > 10 else "")


@given(ints)
@settings(max_examples=30, deadline=None)
def test_if_elif_else_and_guard_returns(n):
    check(branches, n)


@Phylanx
def loops(values, limit):
    total = 0
    count = 0
    for i, v in enumerate(values):
        if v < 0:
            continue
        if total > limit:
            break
        total += v * i
        count += 1
    k = 0
    while True:
        k += 1
        if k * k > limit:
            break
    return total, count, k, i if values else -1


@given(small_lists, st.integers(0, 50))
@settings(max_examples=40, deadline=None)
def test_for_while_break_continue_and_loop_variable_after_loop(values, limit):
    check(loops, values, limit)


@Phylanx
def find_first(values, target):
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            if values[i] + values[j] == target:
                return [i, j]
    return None


@given(small_lists, ints)
@settings(max_examples=40, deadline=None)
def test_return_from_nested_loops(values, target):
    check(find_first, values, target)


@Phylanx
def zipped(xs, ys):
    out = []
    for x, y in zip(xs, ys):
        out.append(x * y)
    d = {"a": 1, "b": 2}
    s = 0
    for k, v in d.items():
        s += v + len(k)
    return out, s, d.get("c", 7), list(d.keys()), "a" in d, 3 not in xs


@given(small_lists, small_lists)
@settings(max_examples=30, deadline=None)
def test_zip_items_in_and_list_methods(xs, ys):
    check(zipped, xs, ys)


@Phylanx
def closures(x):
    def scale(v, factor=2):
        return v * factor * k
    k = 3
    add = lambda a, b=1: a + b  # noqa: E731
    return scale(x), scale(x, factor=5), add(x), add(x, b=x)


def test_nested_functions_closures_and_lambdas():
    check(closures, 4)
    check(closures, np.arange(3.0))


@Phylanx
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


@Phylanx
def uses_fact(n):
    return [fact(i) for i in range(n)]


def test_recursion_and_calls_between_decorated_functions():
    check(fact, 10)
    check(uses_fact, 8)


def helper_square(x):
    return x * x


@Phylanx
def calls_plain_python(v):
    return helper_square(v) + 1


def test_plain_python_helpers_are_translated_on_the_fly():
    check(calls_plain_python, np.arange(4.0))


@Phylanx
def apply_twice(f, x):
    return f(f(x))


def test_functions_and_lambdas_as_arguments():
    assert apply_twice(lambda a: a * 3, 2) == 18
    assert apply_twice(helper_square, 3) == 81
    assert apply_twice(fact, 3) == 720


COUNTER = 10


@Phylanx
def bump(n):
    global COUNTER
    COUNTER = COUNTER + n
    return COUNTER


def test_global_statement_reads_and_writes_module_globals():
    global COUNTER
    COUNTER = 10
    assert bump(5) == 15
    assert COUNTER == 15
    COUNTER = 1
    assert bump(1) == 2


SCALE = 2.0


@Phylanx
def reads_global(x):
    return x * SCALE


def test_module_globals_are_read_at_every_call():
    global SCALE
    SCALE = 2.0
    assert reads_global(3.0) == 6.0
    SCALE = 5.0
    assert reads_global(3.0) == 15.0


@Phylanx
def asserts(x):
    assert x > 0, "x must be positive"
    print(f"x = {x}")
    return x


def test_assert_and_print(capsys):
    assert asserts(3) == 3
    assert capsys.readouterr().out == "x = 3\n"
    with pytest.raises(AssertionError, match="x must be positive"):
        asserts(-1)


@Phylanx
def raises(x):
    if x < 0:
        raise ValueError("negative input")
    return x


def test_raise_builtin_exception_is_a_located_value_error():
    with pytest.raises(ValueError, match="negative input"):
        raises(-1)


@Phylanx
def _broadcast_distances(points, centroids):
    d = ((points[:, None, :] - centroids[np.newaxis, :, :]) ** 2).sum(axis=2)
    first = points[..., 0]
    points[:, None][0, 0, 1] = -1.0
    return d, first, points


def test_newaxis_and_ellipsis_in_subscripts():
    rng = np.random.default_rng(3)
    pts, cen = rng.normal(size=(5, 2)), rng.normal(size=(3, 2))
    got = _broadcast_distances(pts.copy(), cen)
    want = _broadcast_distances.python(pts.copy(), cen)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w)


@Phylanx
def _grow(items, d):
    items.append(4)
    d["new"] = 1
    return len(items)


def test_lists_and_dicts_are_passed_without_copying():
    items, d = [1, 2, 3], {"a": 0}
    assert _grow(items, d) == 4
    assert items == [1, 2, 3, 4] and d == {"a": 0, "new": 1}


@Phylanx
def _shape_of(x):
    return x.shape


def test_returned_shape_is_a_tuple():
    x = np.zeros((2, 3))
    assert _shape_of(x) == _shape_of.python(x) == (2, 3)
    assert isinstance(_shape_of(x), tuple)
