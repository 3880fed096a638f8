"""PhySL programs of §2 (factorial, fibonacci, closures, loops, stores) against Python."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import phylanx
from phylanx import execution_tree as et

FACTORIAL = """
define(factorial, n, if(n <= 1, 1, n * factorial(n - 1)))
"""

FIBONACCI_LOOP = """
define(fibonacci, n,
  block(
    define(a, 0), define(b, 1), define(i, 0),
    while(i < n, block(define(t, a + b), store(a, b), store(b, t), store(i, i + 1))),
    a))
"""


@pytest.fixture(scope="module")
def state():
    s = et.compiler_state("programs", "<programs>")
    et.compile(s, "<programs>", "factorial", FACTORIAL)
    et.compile(s, "<programs>", "fibonacci", FIBONACCI_LOOP)
    return s


@given(st.integers(0, 20))
@settings(max_examples=25, deadline=None)
def test_factorial_matches_python(state, n):
    result = et.eval(state, "factorial", n)
    assert result == math.factorial(n)
    assert type(result) is int   # Python numbers stay Python numbers (unbounded)


@given(st.integers(0, 60))
@settings(max_examples=25, deadline=None)
def test_fibonacci_loop_matches_python(state, n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    assert et.eval(state, "fibonacci", n) == a


def test_recursive_fibonacci_cli_example():
    code = "block(define(f, n, if(n < 2, n, f(n-1) + f(n-2))), f(20))"
    assert phylanx.evaluate(code) == 6765


def test_recursion_gets_fresh_locals():
    code = """
    block(
      define(f, n, block(define(local, n * 10), if(n > 0, f(n - 1), 0), local)),
      f(5))
    """
    assert phylanx.evaluate(code) == 50


def test_closures_capture_their_frame():
    code = """
    block(
      define(make_adder, k, lambda(x, x + k)),
      define(add3, make_adder(3)), define(add5, make_adder(5)),
      list(add3(1), add5(1)))
    """
    assert phylanx.evaluate(code) == [4, 6]


def test_defaults_and_keyword_arguments():
    code = "block(define(f, a, __arg(b, 10), __arg(c, 100), a + b + c), " \
           "list(f(1), f(1, 2), f(1, __arg(c, 3)), f(1, 2, 3)))"
    assert phylanx.evaluate(code) == [111, 103, 14, 6]


def test_define_global_from_inside_a_function():
    assert phylanx.evaluate("block(define(f, lambda(block(define_global(g, 7), 0))), f(), g)") == 7


def test_loops_and_higher_order_primitives():
    assert phylanx.evaluate(
        "block(define(s, 0), for(define(i, 0), i < 5, store(i, i + 1), store(s, s + i)), s)") == 10
    assert phylanx.evaluate(
        "block(define(s, 0), for_each(lambda(x, store(s, s + x)), range(5)), s)") == 10
    assert phylanx.evaluate("fmap(lambda(x, y, x * y), list(1, 2), list(3, 4))") == [3, 8]
    assert phylanx.evaluate("filter(lambda(x, x % 2 == 0), range(7))") == [0, 2, 4, 6]
    assert phylanx.evaluate("fold_left(lambda(a, b, a * 10 + b), 0, list(1, 2, 3))") == 123
    assert phylanx.evaluate("fold_right(lambda(a, b, a * 10 + b), 0, list(1, 2, 3))") == 60
    assert phylanx.evaluate("parallel_map(lambda(x, x * x), range(4))") == [0, 1, 4, 9]
    assert phylanx.evaluate("apply(lambda(a, b, c, a - b - c), list(10, 2, 3))") == 5


def test_for_each_variable_visible_after_loop():
    assert phylanx.evaluate("block(for_each(lambda(i, define(last, i * 2)), range(4)), last)") == 6


def test_break_continue_and_early_return():
    code = """
    block(
      define(find, xs, target,
        block(for_each(lambda(i, if(slice(xs, i) == target, return(i))), range(__len(xs))),
              -1)),
      list(find([4, 5, 6], 6), find([4, 5, 6], 7)))
    """
    assert phylanx.evaluate(code) == [2, -1]
    assert phylanx.evaluate(
        "block(define(i, 0), while(true, block(store(i, i + 1), if(i >= 4, break()))), i)") == 4
    assert phylanx.evaluate(
        "block(define(s, 0), for_each(lambda(x, block(if(x % 2 == 1, continue()), "
        "store(s, s + x))), range(10)), s)") == 20


def test_store_into_slices():
    x = phylanx.evaluate(
        "block(define(x, [[1, 2, 3], [4, 5, 6]]), store(slice(x, 0, list(0, 3, 2)), 0), x)")
    np.testing.assert_array_equal(x, [[0, 2, 0], [4, 5, 6]])
    y = phylanx.evaluate("block(define(y, [1., 2., 3.]), store(slice(y, list(nil, nil, -1)), "
                         "[7., 8., 9.]), y)")
    np.testing.assert_array_equal(y, [9., 8., 7.])
    lst = phylanx.evaluate("block(define(l, list(1, 2, 3)), store(slice(l, 1), 20), l)")
    assert lst == [1, 20, 3]
    d = phylanx.evaluate("block(define(d, dict(list(list(\"a\", 1)))), "
                         "store(slice(d, \"b\"), 2), d)")
    assert d == {"a": 1, "b": 2}


def test_array_literal_is_fresh_on_every_evaluation():
    code = """
    block(define(f, lambda(block(define(x, [1, 2]), store(slice(x, 0), slice(x, 0) + 1), x))),
          f(), f())
    """
    np.testing.assert_array_equal(phylanx.evaluate(code), [2, 2])


def test_lists_dicts_strings():
    assert phylanx.evaluate("'(1, 2) + '(3)") == [1, 2, 3]
    assert phylanx.evaluate("__len(dict(list(list(1, 2), list(3, 4))))") == 2
    assert phylanx.evaluate('string("a", 1, "b")') == "a1b"
    assert phylanx.evaluate('format("{}-{}", 1, 2)') == "1-2"


def test_constants_and_shadowing():
    assert phylanx.evaluate("pi") == pytest.approx(math.pi)
    assert phylanx.evaluate("block(define(pi, 3), pi + 1)") == 4
    assert phylanx.evaluate("block(define(e, 2), define(sum, 5), e + sum)") == 7
    assert phylanx.evaluate("inf") == np.inf
    assert phylanx.evaluate("float") == "float64"


def test_cout_prints_in_program_order(capsys):
    phylanx.evaluate('block(cout("a", 1), cout(list(1, 2), nil, [1.5, 2.5]), cout(true))')
    assert capsys.readouterr().out == "a 1\n[1, 2] None [1.5, 2.5]\nTrue\n"


def test_timer_and_assert():
    seen = []
    state = et.compiler_state("timer")
    et.compile(state, "<t>", "f", "define(f, done, timer(21 * 2, done))")
    assert et.eval(state, "f", lambda t: seen.append(t)) == 42
    assert len(seen) == 1 and seen[0] >= 0


LRA = """
define(lra, x, y, alpha, iterations,
  block(
    define(weights, constant(0.0, shape(x, 1))),
    define(transx, transpose(x)),
    define(step, 0),
    while(step < iterations,
      block(
        define(pred, 1.0 / (1.0 + exp(-dot(x, weights)))),
        define(error, pred - y),
        define(gradient, dot(transx, error)),
        parallel_block(
          store(weights, weights - (alpha * gradient)),
          store(step, step + 1)))),
    weights))
"""


def test_logistic_regression_in_physl_matches_numpy():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(60, 3))
    y = (x @ np.array([1.0, -2.0, 0.5]) > 0).astype(np.float64)
    state = et.compiler_state("lra")
    et.compile(state, "<lra>", "lra", LRA)
    w = et.eval(state, "lra", x, y, 1e-2, 50)
    expected = np.zeros(3)
    for _ in range(50):
        pred = 1.0 / (1.0 + np.exp(-(x @ expected)))
        expected = expected - 1e-2 * (x.T @ (pred - y))
    np.testing.assert_allclose(w, expected, rtol=1e-12)
