"""Functions: nesting, closures, recursion, calls between decorated functions, keyword
arguments and defaults, Python functions and lambdas passed in, ``with parallel:``,
``prange``, ``global``, ``assert``, ``raise``, ``print`` and f-strings."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from phylanx import Phylanx, parallel
from phylanx.errors import PhylanxError
from phylanx.util import prange

from .helpers import check

FEW = settings(max_examples=30, deadline=None)
vectors = hnp.arrays(np.float64, st.integers(1, 6), elements=st.floats(-10, 10))


# -- nested functions and closures -----------------------------------------------------
@Phylanx
def closures(x):
    def shifted(v):
        return v + k          # k is read when shifted is called, as in Python
    k = 1
    before = shifted(x)
    k = 10

    def make_scale(factor):
        return lambda v: v * factor
    double, triple = make_scale(2), make_scale(3)

    total = 0

    def add(v):
        nonlocal total
        total += v
    for i in range(3):
        add(i * x)
    return before, shifted(x), double(x), triple(x), total


@given(st.integers(-20, 20))
@FEW
def test_nested_functions_closures_and_nonlocal(x):
    check(closures, x)


# -- recursion and calls between decorated functions ---------------------------------
@Phylanx
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@Phylanx
def is_even(n):
    return True if n == 0 else is_odd(n - 1)


@Phylanx
def is_odd(n):
    return False if n == 0 else is_even(n - 1)


@Phylanx
def recursion(n):
    def fact(m):
        return 1 if m <= 1 else m * fact(m - 1)
    return [fact(i) for i in range(n)], fib(n), is_even(n), is_odd(n)


@given(st.integers(0, 12))
@settings(max_examples=13, deadline=None)
def test_recursion_mutual_recursion_and_nested_recursion(n):
    check(recursion, n)


@Phylanx
def affine(x, scale=2.0, *, shift=0.0):
    return x * scale + shift


@Phylanx
def keyword_calls(x):
    return (affine(x), affine(x, 3.0), affine(x, shift=1.0), affine(x, scale=0.5, shift=-1.0),
            affine(shift=2.0, x=x))


@given(vectors)
@FEW
def test_calls_with_keywords_and_defaults_between_decorated_functions(x):
    check(keyword_calls, x)
    check(affine, x, shift=3.0)
    check(affine, x=x, scale=-1.0)


def norm2(v):
    return np.sqrt(sum_of_squares(v))


def sum_of_squares(v):
    return np.sum(v ** 2)


@Phylanx
def normalise(v):
    n = norm2(v)
    return v / n if n > 0 else v


@given(vectors)
@FEW
def test_plain_python_helpers_are_translated_transitively(v):
    check(normalise, v)


# -- functions as values ------------------------------------------------------------------
@Phylanx
def newton(f, df, x0):
    x = x0
    for _ in range(30):
        x = x - f(x) / df(x)
    return x


OFFSET = 2.0


def test_two_lambdas_on_one_line_are_told_apart():
    got = newton(lambda x: x * x - 2.0, lambda x: 2.0 * x, 1.0)
    assert got == pytest.approx(np.sqrt(2.0))


def test_passed_lambda_reads_module_globals():
    got = newton(lambda x: x * x - OFFSET, lambda x: 2.0 * x, 1.0)
    assert got == pytest.approx(np.sqrt(OFFSET))


@Phylanx
def apply_all(v, f):
    return [f(x) for x in v], list(map(f, v)), list(filter(lambda t: f(t) > 0, v))


def cube(x):
    return x ** 3


@given(st.lists(st.integers(-5, 5), max_size=6))
@FEW
def test_functions_passed_as_arguments(v):
    check(apply_all, v, cube)
    check(apply_all, v, lambda t: t - 1)
    check(apply_all, v, fib if all(x >= 0 for x in v) else cube)


@Phylanx
def keyed(pairs):
    return (sorted(pairs, key=lambda p: p[1]), sorted(pairs, key=lambda p: -p[0], reverse=True),
            max(pairs, key=lambda p: p[1]), min(pairs, key=lambda p: p[0] * p[1]),
            max([p[0] for p in pairs], default=-1), min([], default=None))


@given(st.lists(st.tuples(st.integers(-5, 5), st.integers(-5, 5)), min_size=1, max_size=6))
@FEW
def test_sorted_max_min_with_key_and_default(pairs):
    check(keyed, pairs)


# -- parallel constructs --------------------------------------------------------------------
@Phylanx
def parallel_squares(x):
    n = len(x)
    out = np.zeros(n)
    for i in prange(n):
        out[i] = x[i] ** 2
    with parallel:
        total = out.sum()
        peak = out.max()
    return out, total, peak


@Phylanx
def parallel_triangle(n, m):
    out = np.zeros((n, m))
    for i in prange(n):
        for j in range(m):
            if j > i:
                continue
            out[i, j] = i + j
    return out


@given(vectors)
@FEW
def test_prange_and_parallel_block(x):
    check(parallel_squares, x)


@given(st.integers(1, 4), st.integers(1, 4))
@settings(max_examples=10, deadline=None)
def test_prange_with_an_inner_loop_and_continue(n, m):
    check(parallel_triangle, n, m)


# -- global, assert, raise, print -----------------------------------------------------------
CALLS = 0


def count_call():
    global CALLS
    CALLS += 1


@Phylanx
def counted_sum(values):
    total = 0
    for v in values:
        count_call()
        total += v
    return total, CALLS


def test_global_written_by_a_plain_helper():
    global CALLS
    CALLS = 0
    assert counted_sum([1, 2, 3]) == (6, 3)
    assert CALLS == 3


@Phylanx
def checked_log(x):
    if x < 0:
        raise ValueError(f"x must be >= 0, got {x}")
    assert x != 0
    assert x < 1e6, "x is too large"
    return np.log(x)


def test_assert_and_raise_carry_python_messages():
    assert checked_log(np.e) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="x must be >= 0, got -2"):
        checked_log(-2)
    with pytest.raises(AssertionError):
        checked_log(0)
    with pytest.raises(AssertionError, match="x is too large"):
        checked_log(1e7)
    with pytest.raises(PhylanxError):
        checked_log(-1.5)


@Phylanx
def report(x, n, name):
    print(x, n)
    print("value:", x, "n =", n)
    print(f"{x:.3f} {n:5d} {name:>6} {x:e} {n:03d} {name!s} {x:8.2f}|")
    print(f"{name}={{x}}", f"{n * 2}")
    print()
    return f"{name}: {x:.1f}", "{} and {:.2f}".format(n, x)  # noqa: UP032 - .format is what is tested, str(n) + "!"


@pytest.mark.parametrize("x, n, name", [(3.14159, 7, "pi"), (-0.5, 123, "neg"), (0.0, 0, "")])
def test_print_and_fstrings_match_python(capsys, x, n, name):
    expected = report.python(x, n, name)
    want = capsys.readouterr().out
    assert report(x, n, name) == expected
    assert capsys.readouterr().out == want


@Phylanx
def untranslatable_method(name):
    return name.bit_length()


@Phylanx
def untranslatable_numpy(x):
    return np.busday_count(x, x)


@pytest.mark.parametrize("fn, hint", [
    (untranslatable_method, r"method '\.bit_length\(\)' is not supported"),
    (untranslatable_numpy, "np.busday_count is not supported"),
])
def test_untranslatable_code_is_a_located_error_with_a_hint(fn, hint):
    with pytest.raises(PhylanxError, match=hint) as info:
        fn("x")
    assert "test_functions.py:" in str(info.value)
