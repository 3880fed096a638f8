"""Loop-invariant hoisting as a rule of the IR (compiler/rewrite/hoist.py).

The rule runs on the IR's ``while`` and ``for_each`` equations: random loop programs
(invariant and variant parts, branches, nested loops, ``while`` counters, invariant
expressions that raise, loops that run zero times) give bit for bit the results and the
errors of the same program with the rule off; the product spellings, a helper ``def``
and float32 data hoist the same expression; what the loop binds, random draws and
function values reading a loop variable stay in the loop.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx import config
from phylanx import execution_tree as et
from phylanx.compiler import rewrite
from phylanx.compiler.rewrite import hoist
from phylanx.compiler.rewrite.ir_terms import run_ir_phases
from phylanx.compiler.through_ir import lowered
from phylanx.errors import PhylanxError
from phylanx.ir.core import walk
from phylanx.language import parser

from .test_rewrite_engine import compiled, configured, sample_program

RULE = "hoist_loop_invariants"
_count = [0]


def fired(src: str) -> int:
    """How often the rule fires on the IR of ``src``."""
    counts: Counter = Counter()
    run_ir_phases(rewrite.PASSES, lowered(parser.parse(src)), counts)
    return counts[RULE]


def outcome(src: str, args, rule_on: bool):
    """The value of ``f(*args)``, or the error's class and line, with the rule on/off."""
    _count[0] += 1
    config.set("disable_rules", "" if rule_on else RULE)
    try:
        state = et.compiler_state(f"hoist_ir{_count[0]}")
        fn = et.eval(state, src)
        return et.invoke(fn, tuple(np.copy(a) if isinstance(a, np.ndarray) else a
                                     for a in args), {})
    except PhylanxError as e:
        return (type(e).__name__, getattr(getattr(e, "loc", None), "line", None))
    finally:
        config.reset("disable_rules")


def lazily_bound(fn) -> list[tuple[str, ...]]:
    """The primitives of every lazily bound tree of an IR function (the product's
    spelling left out: its NumPy rank rule is a parameter)."""
    trees = []
    for eqn in walk(fn):
        if hoist._is_lazy_binding(eqn):
            other = eqn.param("other")
            trees.append(tuple(e.prim for e in other.eqns if e.prim != "bind"))
    return trees


def optimized_ir(source: str):
    program = run_ir_phases(rewrite.PASSES, lowered(parser.parse(source)))
    return [e.param("fn") for e in program.eqns if e.prim == "function"][-1]


# -- random programs ------------------------------------------------------------------------

#: invariant leaves (``__subscript(y, 7)`` raises: y has 5 elements) and variant ones
_INVARIANT = ["x", "y", "2.0", "exp(y)", "__subscript(y, 1)", "__subscript(y, 7)"]
_VARIANT = ["acc", "k"]


def _expr(depth: int, leaves):
    leaf = st.sampled_from(leaves)
    if depth == 0:
        return leaf
    sub = _expr(depth - 1, leaves)
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from(["+", "-", "*"]), sub).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"),
        sub.map(lambda s: f"tanh({s})"),
        sub.map(lambda s: f"sum({s})"),
    )


_ANY = _expr(2, _INVARIANT + _VARIANT)
_INV = _expr(2, _INVARIANT)


@st.composite
def _statement(draw, depth: int):
    kind = draw(st.sampled_from(["acc", "acc", "k", "if", "loop"] if depth else ["acc", "k"]))
    if kind == "acc":
        return f"store(acc, acc * 0.5 + {draw(_ANY)})"
    if kind == "k":
        return "store(k, k + 1.0)"
    inner = draw(st.lists(_statement(depth - 1), min_size=1, max_size=2))
    body = inner[0] if len(inner) == 1 else f"block({', '.join(inner)})"
    if kind == "if":
        test = draw(st.sampled_from(["k > 1.0", "sum(y) > 0.0", "sum(x) > 100.0"]))
        return f"if({test}, {body})"
    return f"for_each(lambda(j, {body}), range(2))"


@st.composite
def programs(draw):
    # one statement with an invariant expression of two primitives or more: it fires
    first = f"store(acc, acc * 0.5 + tanh({draw(_INV)}) * 2.0)"
    rest = draw(st.lists(_statement(2), max_size=3))
    body = ", ".join([first, *rest])
    if draw(st.booleans()):
        loop = f"for_each(lambda(i, block({body})), range(n))"
    else:
        loop = f"block(define(i, 0), while(i < n, block({body}, store(i, i + 1))))"
    return (f"define(f, x, y, n, block(define(acc, x * 0.0), define(k, 0.0),\n"
            f"    {loop}, acc))")


@settings(max_examples=20, deadline=None)
@given(programs(), st.integers(0, 3))
def test_random_loops_agree_with_and_without_the_rule(src, n):
    assert fired(src) > 0, src
    x, y = np.linspace(-1.0, 1.0, 5), np.linspace(0.5, -0.3, 5)
    on = outcome(src, (x, y, n), True)
    off = outcome(src, (x, y, n), False)
    if isinstance(off, tuple):
        assert on == off, src                 # the same error from the same line
    else:
        np.testing.assert_array_equal(on, off, err_msg=src)


# -- the law's conditions -------------------------------------------------------------------

def test_an_invariant_that_raises_is_not_evaluated_by_a_loop_that_never_runs():
    src = """define(f, y, n, block(define(a, 0.0),
        for_each(lambda(i, store(a, a + __subscript(y, 10) * 2.0 + 1.0)), range(n)), a))"""
    assert fired(src) == 1
    y = np.arange(3.0)
    assert outcome(src, (y, 0), True) == 0.0
    raised = outcome(src, (y, 2), True)
    assert isinstance(raised, tuple) and raised == outcome(src, (y, 2), False)


def test_an_invariant_under_a_branch_is_bound_in_the_branch():
    src = """define(f, y, n, block(define(a, 0.0), define(i, 0),
        while(i < n, block(if(n > 100, store(a, a + __subscript(y, 10) * 2.0 + 1.0)),
                           store(i, i + 1))), a))"""
    assert fired(src) == 1
    (tree,) = lazily_bound(optimized_ir(src))
    assert tree == ("__subscript", "__mul")
    assert outcome(src, (np.arange(3.0), 5), True) == 0.0


@pytest.mark.parametrize("src", [
    # random numbers: a new draw each iteration
    """define(f, n, block(define(a, list()), for_each(lambda(i,
        store(a, append(a, sum(random(4) * 2.0)))), range(n)), a))""",
    # the loop assigns a variable the expression reads
    """define(f, x, n, block(define(a, 0.0), for_each(lambda(i, block(store(x, x + 1.0),
        store(a, a + sum(x * 2.0)))), range(n)), a))""",
    # a function value reading the loop's variable when called
    """define(f, x, n, block(define(a, 0.0), for_each(lambda(i, block(
        define(g, lambda(t, t * i)), store(a, a + sum(g(x) * 2.0)))), range(n)), a))""",
    # an in-place primitive in the program
    """define(f, n, block(define(t, 0.0), for_each(lambda(i, block(
        define(s, constant(0.0, list(3))), add_at(s, 0, 1.0 + 2.0 * n), store(t, t + sum(s)))),
        range(n)), t))""",
])
def test_variant_random_and_mutated_expressions_stay(src):
    assert fired(src) == 0


def test_a_program_without_loops_is_the_same_object():
    fn = lowered(parser.parse("define(f, x, exp(x) * 2.0 + 1.0)"))
    assert run_ir_phases([hoist.PHASE], fn) is fn


# -- spellings ------------------------------------------------------------------------------

SPELLINGS = ("@", "np.dot", ".dot", "np.matmul", "float32", "helper")


def test_every_spelling_hoists_the_same_expression():
    sample = hoist.PHASE.rules[0].sample
    trees = {}
    for spelling in SPELLINGS:
        source, dtype = sample_program(sample, spelling)
        decorated, python = compiled(source)
        trees[spelling] = lazily_bound(optimized_ir(decorated.get_physl_source()))
        args = sample.arguments(np.random.default_rng(1), dtype, 7)
        with configured((), disabled=RULE):
            off, _ = compiled(source)
            want = off(*args)
        np.testing.assert_array_equal(decorated(*args), want)
    assert trees["@"] == [("transpose", "dot_general")]
    assert all(t == trees["@"] for t in trees.values()), trees


# -- a helper with locals, inlined where a value is stored ------------------------------------

#: the helper's locals make its inlined body a ``block`` value: ``store(v, block(...))``
_HELPER_WITH_LOCALS = [
    "def sample(x, v):\n    def step(u):\n        n, k = x.shape\n"
    "        return np.dot(np.dot(x.T, x), u) / (n * k)\n"
    "    for _ in range(3):\n        v = step(v)\n    return v\n",
    "def sample(x, v):\n    def step(u):\n        n = x.shape[0]\n"
    "        return (x.T @ x) @ u / n\n"
    "    for _ in range(3):\n        w = step(v)\n        v = w + 1.0\n    return v\n",
]


@pytest.mark.parametrize("source", _HELPER_WITH_LOCALS)
def test_a_helper_with_locals_hoists_as_its_expression_written_inline(source):
    decorated, python = compiled(source)
    assert ("transpose", "dot_general") in lazily_bound(
        optimized_ir(decorated.get_physl_source()))
    x, v = np.random.default_rng(3).normal(size=(4, 3)), np.ones(3)
    np.testing.assert_allclose(decorated(x, v), python(x, v), rtol=1e-12)


def test_lowered_is_the_ir_the_pipeline_rewrites():
    """``lowered`` (``phylanx ir``, these tests) lowers after the same AST phases as the
    default pipeline: normalize's canonical transpose is in it (``xt = x.T`` read as
    ``transpose(x)`` where the product uses it), the IR's own rules (the gram row pass
    among them) are not applied yet."""
    source = ("define(f, x, w, y, block(define(xt, transpose(x)), "
              "matmul(xt, exp(matmul(x, w)) - y)))")
    config.set("blocking_gram", True)
    try:
        program = lowered(parser.parse(source))
        fired: Counter = Counter()
        rewritten = run_ir_phases(rewrite.PASSES, program, fired)
    finally:
        config.reset("blocking_gram")
    assert "__rows_gram" not in {e.prim for e in walk(program)}
    assert fired["row_pass_of_a_gram_product"] == 1
    assert "__rows_gram" in {e.prim for e in walk(rewritten)}
