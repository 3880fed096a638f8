"""The whole-program rewrites (compiler/rewrite: fold, cse, hoist) keep meaning exactly.

Oracles: NumPy / the undecorated Python function, and the same program compiled with
``optimize`` off (the passes and in-place reuse must not change a single bit).  The
negative cases (side effects, randomness, reassignment, in-place changes, loops that
run zero times) check both that nothing was rewritten and that results/errors agree.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx import Phylanx, config
from phylanx import execution_tree as et
from phylanx.compiler.rewrite import cse, fold, hoist, optimize
from phylanx.compiler.through_ir import optimize_through_ir
from phylanx.errors import PhylanxError
from phylanx.language import ast
from phylanx.language.parser import parse
from phylanx.language.printer import to_physl

_count = [0]


def rewritten(src: str) -> str:
    return " ".join(to_physl(e) for e in optimize(parse(src)).body)


def rewritten_ir(src: str) -> str:
    """``src`` after the rewrites of the default pipeline (hoisting runs on the IR)."""
    return " ".join(to_physl(e) for e in optimize_through_ir(parse(src)).body)


def run(src: str, *args, optimize_on: bool = True):
    """Compile ``src`` (defining a function) in a fresh state and call it."""
    _count[0] += 1
    config.set("optimize", optimize_on)
    try:
        state = et.compiler_state(f"rewrite{_count[0]}")
        fn = et.eval(state, src)
        return et.invoke(fn, args, {})
    finally:
        config.reset("optimize")


def both(src: str, *args):
    """(optimized result, as-written result): they must be bit for bit equal."""
    on = run(src, *[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    off = run(src, *args, optimize_on=False)
    np.testing.assert_array_equal(on, off)
    assert type(on) is type(off)
    return on


# -- folding ------------------------------------------------------------------------

def test_folding_replaces_literal_arithmetic_keeping_python_number_types():
    prog = fold.run(parse("define(f, x, x * (2.0 * 3) + (7 - 2) % 3 - -4)"))
    text = to_physl(prog.body[0])
    assert "6.0" in text and "2.0 * 3" not in text
    lits = [n for n in _walk(prog) if isinstance(n, ast.Literal)]
    assert {type(n.value) for n in lits} == {float, int}
    x = np.arange(4, dtype=np.float32)
    got = both("define(f, x, x * (2.0 * 3) + (7 - 2) % 3 - -4)", x)
    expected = x * (2.0 * 3) + (7 - 2) % 3 - -4
    assert got.dtype == expected.dtype == np.float32        # weak scalars stay weak
    np.testing.assert_allclose(got, expected)


@pytest.mark.parametrize("src, folded", [
    ("define(f, x, __add(2, 3) * x)", "5 * x"),
    ("define(f, x, __minus(4) + x)", "-4 + x"),
    ("define(f, x, block(define(g, lambda(y, __mul(2.0, 3) * y)), g(x) + (1 + 1)))", "6.0"),
])
def test_folding_reads_a_call_of_the_operator_primitive_as_the_operator(src, folded):
    # found by the fuzz test: the rule matched ``__add(0, 0)`` (a call, not an operator)
    # and read an operator's fields from it (AttributeError escaped)
    assert folded in rewritten(src)
    assert both(src, 3.0) == run(src, 3.0, optimize_on=False)


def test_folding_keeps_locations_and_leaves_division_by_zero_to_the_runtime():
    prog = fold.run(parse("define(f, x, x + 1 / 0)"))
    assert "1 / 0" in to_physl(prog.body[0])
    folded = fold.run(parse("define(f, x,\n  x + 2 * 3)")).body[0].args[-1].right
    assert isinstance(folded, ast.Literal) and folded.loc.line == 2
    for optimize_on in (True, False):   # Python numbers divide as in Python, folded or not
        with pytest.raises(ZeroDivisionError):
            run("define(f, x, x + 1 / 0)", 1.0, optimize_on=optimize_on)
    with np.errstate(divide="ignore"):
        assert both("define(f, x, x + 1 / x)", np.float64(0.0)) == np.inf


# -- common subexpressions ------------------------------------------------------------

SIGMOID_TWICE = "define(f, x, block(define(y, exp(-x) / (1.0 + exp(-x))), y))"


def test_cse_shares_a_repeated_subexpression():
    assert "__cse1" in rewritten(SIGMOID_TWICE)
    x = np.linspace(-3, 3, 7)
    np.testing.assert_allclose(both(SIGMOID_TWICE, x), np.exp(-x) / (1.0 + np.exp(-x)))


def test_cse_tells_int_and_float_literals_apart():
    src = "define(f, x, block(define(y, (x * 1) / (x * 1.0)), y))"
    assert "__cse" not in rewritten(src)
    assert both(src, 3) == 1.0


@pytest.mark.parametrize("src", [
    # random draws are two draws
    "define(f, x, block(define(y, random(3) - random(3)), y))",
    # a store inside the statement changes x between the occurrences
    "define(f, x, block(define(y, (x * 2) + block(store(x, 1), x * 2)), y))",
    # separate statements with a reassignment in between are never merged
    "define(f, x, block(define(a, x * 2), store(x, x + 1), define(b, x * 2), a - b))",
])
def test_cse_leaves_impure_or_reassigned_expressions_alone(src):
    assert "__cse" not in rewritten(src)


def doubled_twice(x):
    return x * 2.0, x * 2.0


def exps_in_a_list(x):
    return [np.exp(x) + 1.0, np.exp(x) + 1.0, np.exp(x) * (np.exp(x) + 1.0)]


@pytest.mark.parametrize("fn", [doubled_twice, exps_in_a_list])
def test_cse_gives_each_escaping_occurrence_its_own_array(fn):
    # found by review: ``return x * 2, x * 2`` returned one array twice, so the caller
    # changing one result changed the other; NumPy gives two arrays
    results = Phylanx(fn)(np.ones((3, 3)))
    for i, a in enumerate(results):
        for b in results[i + 1:]:
            assert not np.shares_memory(a, b)
    for got, want in zip(results, fn(np.ones((3, 3)))):
        np.testing.assert_array_equal(got, want)


def test_cse_still_shares_what_operators_consume():
    # one occurrence escaping and the others consumed: one evaluation serves all
    src = "define(f, x, block(define(y, list(exp(x), exp(x) + 1.0, 2.0 * exp(x))), y))"
    assert "__cse1" in rewritten(src)
    escaping = "define(f, x, block(define(y, list(exp(x), exp(x))), y))"
    assert "__cse" not in rewritten(escaping)


def test_cse_result_after_reassignment_is_the_oracles():
    src = "define(f, x, block(define(a, x * 2), store(x, x + 1), define(b, x * 2), a - b))"
    assert both(src, 5.0) == -2.0


def test_cse_keeps_conditional_occurrences_from_running_early():
    # log(x) occurs only under the if: sharing it would evaluate it when x <= 0
    src = "define(f, x, block(define(y, if(x > 0, log(x) + log(x), 0.0)), y))"
    assert "__cse" not in rewritten(src)
    assert both(src, -1.0) == 0.0


# -- loop-invariant hoisting ------------------------------------------------------------

LOOP = """define(f, x, y, n, block(define(a, x),
    for_each(lambda(i, store(a, a + matmul(matmul(transpose(y), y), a) * 1e-3)), range(n)),
    a))"""


def test_hoisting_binds_an_invariant_product_lazily():
    src = LOOP
    text = rewritten_ir(src)
    assert "__licm" in text and "if(__licm" in text
    x, y = np.ones(3), np.arange(9.0).reshape(3, 3)
    a = x.copy()
    for _ in range(4):
        a = a + (y.T @ y) @ a * 1e-3
    np.testing.assert_allclose(both(src, x, y, 4), a, rtol=1e-12)


def test_a_loop_that_runs_zero_times_evaluates_no_hoisted_expression():
    # y[10] raises for this y; the loop never runs, so neither may the invariant
    src = """define(f, y, n, block(define(a, 0.0),
        for_each(lambda(i, store(a, a + __subscript(y, 10) * 2.0 + 1.0)), range(n)), a))"""
    assert "__licm" in rewritten_ir(src)
    assert both(src, np.arange(3.0), 0) == 0.0
    with pytest.raises(PhylanxError):
        run(src, np.arange(3.0), 2)


def test_while_loop_that_never_runs_and_invariant_under_a_false_condition():
    src = """define(f, y, n, block(define(a, 0.0), define(i, 0),
        while(i < n, block(if(n > 100, store(a, a + __subscript(y, 10) * 2.0 + 1.0)),
                           store(i, i + 1))), a))"""
    assert "__licm" in rewritten_ir(src)
    assert both(src, np.arange(3.0), 0) == 0.0
    assert both(src, np.arange(3.0), 5) == 0.0


def test_nested_loops_recompute_what_the_outer_loop_changes():
    src = """define(f, x, n, block(define(s, 0.0), define(j, 0.0),
        for_each(lambda(k, block(store(j, j + 1.0),
            for_each(lambda(i, store(s, s + sum(x * j) * 2.0)), range(n)))), range(3)), s))"""
    x = np.arange(4.0)
    expected = sum(np.sum(x * j) * 2.0 * 2 for j in (1.0, 2.0, 3.0))
    assert both(src, x, 2) == expected


@pytest.mark.parametrize("src", [
    # random numbers: a new draw each iteration
    """define(f, n, block(define(a, list()), for_each(lambda(i,
        store(a, append(a, sum(random(4) * 2.0)))), range(n)), a))""",
    # the loop assigns a variable the expression reads
    """define(f, x, n, block(define(a, 0.0), for_each(lambda(i, block(store(x, x + 1.0),
        store(a, a + sum(x * 2.0)))), range(n)), a))""",
    # an in-place primitive in the program: a reused array could be changed
    """define(f, n, block(define(t, 0.0), for_each(lambda(i, block(
        define(s, constant(0.0, list(3))), add_at(s, 0, 1.0 + 2.0 * n), store(t, t + sum(s)))),
        range(n)), t))""",
])
def test_hoisting_leaves_variant_random_and_mutated_expressions(src):
    assert "__licm" not in rewritten_ir(src)


def test_random_draws_in_a_loop_stay_distinct():
    src = """define(f, n, block(define(a, list()), for_each(lambda(i,
        store(a, append(a, sum(random(4) * 2.0)))), range(n)), a))"""
    draws = run(src, 3)
    assert len(set(float(d) for d in draws)) == 3


def test_in_place_primitive_in_a_loop_gives_the_oracles_result():
    src = """define(f, n, block(define(t, 0.0), for_each(lambda(i, block(
        define(s, constant(0.0, list(3))), add_at(s, 0, 1.0 + 2.0 * n), store(t, t + sum(s)))),
        range(n)), t))"""
    assert both(src, 3) == 3 * (1.0 + 2.0 * 3)


def test_hoisting_inside_a_decorated_function_matches_python():
    def kernel(x, y, n):
        a = x
        for _ in range(n):
            a = a + np.tanh(y.T @ y) @ a * 0.01
        return a
    f = Phylanx(kernel)
    x, y = np.ones(3), np.arange(9.0).reshape(3, 3) / 10
    np.testing.assert_allclose(f(x, y, 5), kernel(x, y, 5), rtol=1e-12)
    assert "__licm" in rewritten_ir(f.get_physl_source())


# -- laws: random expression trees, passes on and off ---------------------------------

_LEAVES = st.sampled_from(["x", "y", "2", "0.5", "3.0", "(x * 0.5)", "exp(y)"])


def _expr(depth):
    if depth == 0:
        return _LEAVES
    sub = _expr(depth - 1)
    return st.one_of(
        _LEAVES,
        st.tuples(sub, st.sampled_from(["+", "-", "*"]), sub).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"),
        sub.map(lambda s: f"(-{s})"),
        sub.map(lambda s: f"tanh({s})"),
        st.tuples(sub, sub).map(lambda t: f"({t[0]} / (1.0 + {t[1]} * {t[1]}))"),
    )


@settings(max_examples=40, deadline=None)
@given(_expr(3), _expr(2), st.integers(0, 3))
def test_random_programs_compute_the_same_with_and_without_the_passes(e1, e2, n):
    # e1 appears twice (CSE), e2 is invariant in the loop (hoisting), literals fold
    src = f"""define(f, x, y, n, block(define(acc, x * 0.0),
        for_each(lambda(i, store(acc, acc * 0.5 + ({e1}) - ({e1}) * 0.25 + ({e2}))),
                 range(n)), acc))"""
    x = np.linspace(-1.0, 1.0, 5)
    y = np.linspace(0.5, -0.5, 5)
    xc, yc = x.copy(), y.copy()
    got = both(src, x, y, n)
    np.testing.assert_array_equal(x, xc)                   # arguments never written
    np.testing.assert_array_equal(y, yc)
    env = {"x": x, "y": y, "exp": np.exp, "tanh": np.tanh}
    acc = x * 0.0
    for _ in range(n):
        acc = acc * 0.5 + eval(e1, env) - eval(e1, env) * 0.25 + eval(e2, env)
    np.testing.assert_allclose(got, acc, rtol=1e-12, atol=1e-12 * (1 + np.abs(acc).max()))


def test_each_pass_alone_returns_the_same_program_when_nothing_applies():
    prog = parse("define(f, x, x + 1)")
    for p in (fold, cse, hoist):
        assert p.run(prog) is prog


def _walk(program):
    from phylanx.compiler.rewrite.tree import walk
    for body in program.body:
        yield from walk(body)


def test_cse_shares_no_array_a_later_statement_changes_in_place():
    # sharing constant(0.0, 3) would make both elements one array, and add_at one change
    src = """define(f, n, block(define(p, list(constant(0.0, n) + 1.0, constant(0.0, n) + 1.0)),
        add_at(__subscript(p, 0), 0, 5.0), sum(__subscript(p, 1))))"""
    assert "__cse" not in rewritten(src)
    assert both(src, 3) == 3.0


# -- autodiff recompiles the rewritten bodies: gradients stay right -------------------

def _looped_loss(w, x):
    s = 0.0
    for _ in range(3):
        # tanh(x.T @ x) is invariant (hoisted); exp(-w) occurs twice (shared)
        s = s + np.sum(np.exp(-w) / (1.0 + np.exp(-w)) * (np.tanh(x.T @ x) @ w))
    return s


@pytest.mark.parametrize("optimize_on", [True, False])
def test_gradients_through_hoisted_and_shared_expressions(optimize_on):
    from phylanx.autodiff import grad
    from tests.autodiff.helpers import assert_grad_close, numeric_grad
    config.set("optimize", optimize_on)
    try:
        f = Phylanx(_looped_loss)
        rng = np.random.default_rng(3)
        w, x = rng.normal(size=3), rng.normal(size=(4, 3)) / 2
        got = grad(f, 0)(w, x)
    finally:
        config.reset("optimize")
    assert_grad_close(got, numeric_grad(_looped_loss, (w, x), 0))
    if optimize_on:
        text = rewritten_ir(f.get_physl_source())
        assert "__licm" in text and "__cse" in rewritten(f.get_physl_source())


def test_invariant_products_sharing_a_transpose_are_both_hoisted():
    # CSE would bind transpose(x) inside the loop body; hoisting runs first
    def least_squares(x, y, alpha, n):
        w = np.zeros(x.shape[1])
        for _ in range(n):
            w = w - alpha * ((x.T @ x) @ w - x.T @ y)
        return w
    f = Phylanx(least_squares)
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=(20, 3)), rng.normal(size=20)
    np.testing.assert_allclose(f(x, y, 0.01, 6), least_squares(x, y, 0.01, 6), rtol=1e-12)
    text = rewritten_ir(f.get_physl_source())
    assert "store(__licm1, matmul(transpose(x), x))" in text
    assert "store(__licm3, matmul(transpose(x), y))" in text
