"""The rewrite engine on the IR (compiler/rewrite/ir_terms.py) and its place in the
default pipeline (compiler/through_ir.py).

The IR adapter gives the engine's patterns an equation's primitive as head and the
equations defining its operands in the same region as children; the rules that run on
the IR fold literals and share equal equations there, with locations kept; the AST's
and the IR's engines give the same results on every rule's sample and on the
repository's programs in which a rule of the IR fires.  (Each rule with and without
itself on its substrate: tests/compiler/test_rewrite_engine.py.)
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from phylanx import Phylanx, config
from phylanx import execution_tree as et
from phylanx.compiler import rewrite
from phylanx.compiler.rewrite import engine, tree
from phylanx.compiler.rewrite.engine import P, Phase, Rule, Sample
from phylanx.compiler.rewrite.ir_terms import IR_RULES, IrTerms, run_ir_phases, run_phase_ir
from phylanx.compiler.through_ir import lowered, optimize_through_ir
from phylanx.errors import PhylanxError
from phylanx.ir import Literal, Var
from phylanx.ir.core import walk
from phylanx.ir.text import show
from phylanx.language import ast, parser, printer

from ..ir.test_text import repository_programs
from .test_rewrite_engine import RULES, assert_agree, compiled, configured, results, sample_program

IR_RULE_NAMES = frozenset(r.name for _, r in RULES if r.substrate in IR_RULES)


def _function(text: str, name: str = "f"):
    for eqn in lowered(parser.parse(text)).eqns:
        if eqn.prim == "function" and eqn.outs[0].name == name:
            return eqn.param("fn")
    raise LookupError(name)


def _optimized(text: str, name: str = "f"):
    fired: Counter = Counter()
    program = lowered(parser.parse(text))
    out = run_ir_phases(rewrite.PASSES, program, fired)
    for eqn in out.eqns:
        if eqn.prim == "function" and eqn.outs[0].name == name:
            return eqn.param("fn"), fired
    raise LookupError(name)


# -- the adapter ----------------------------------------------------------------------------

def test_an_equation_is_a_term_whose_children_are_the_equations_of_its_operands():
    fn = _function("define(f, x, exp(-x) * 2.0)")
    terms = IrTerms(fn)
    terms.open_region(fn)
    for eqn in fn.eqns:
        terms.keep(eqn)
    mul = fn.eqns[-1]
    ctx = engine.Context(fn, terms=terms)
    bound: dict = {}
    pattern = P("__mul", args=(P("exp", args=(P("__minus", args=(P("identifier"),)),),
                                 name="e"), P("literal")))
    assert pattern.match(mul, ctx, bound)
    assert bound["e"].prim == "exp"
    (param,) = fn.params
    assert terms.children(fn.eqns[0]) == (param,)          # a parameter is a leaf
    assert terms.head(param) == "identifier" and terms.head(Literal(2.0)) == "literal"
    rebuilt = terms.rebuild(mul, (Literal(3.0), Literal(2.0)))
    assert rebuilt.ins == (Literal(3.0), Literal(2.0)) and rebuilt.outs == mul.outs
    assert terms.rebuild(mul, terms.children(mul)) is mul


# -- the rules on the IR --------------------------------------------------------------------

def test_folding_runs_on_the_ir_and_keeps_locations():
    text = "define(f, x, block(define(y, x * (2.0 * 3)), define(k, -(7 - 2)), y + k))"
    fn, fired = _optimized(text)
    assert fired["fold_literal_arithmetic"] == 2 and fired["fold_literal_sign"] == 1
    printed = show(fn)
    assert "6.0" in printed and "__mul(2.0, 3)" not in printed
    named = [e for e in fn.eqns if e.outs[0].name == "k"]
    assert named and named[0].prim == "bind" and named[0].ins == (Literal(-5),)
    source = {e.outs[0].name: e.loc for e in _function(text).eqns if e.outs[0].name}
    assert named[0].loc == source["k"] and named[0].loc.line is not None


def test_equal_equations_are_shared_and_raised_once():
    text = "define(f, x, exp(-x) / (1.0 + exp(-x)))"
    fn, fired = _optimized(text)
    assert fired["share_equal_equations"] == 2
    assert [e.prim for e in fn.eqns].count("exp") == 1
    raised = printer.to_physl(optimize_through_ir(parser.parse(text)))
    assert raised.count("exp(") == 1


@pytest.mark.parametrize("text", [
    # two arrays returned: each caller's copy is its own (NumPy gives two arrays)
    "define(f, x, list(x * 2.0, x * 2.0))",
    # an element write: an earlier value may change
    "define(f, x, block(define(a, x * 2.0), store(slice(a, 0), 5.0), list(a, x * 2.0)))",
    # the second exp(x) only runs when the first test holds
    "define(f, x, block(define(c, sum(x) > 0 && sum(x) < 10), c))",
    # the top level: a shared value would be a new global variable
    "exp(2.0) + exp(2.0)",
])
def test_equal_equations_are_not_shared_where_the_law_does_not_hold(text):
    fired: Counter = Counter()
    optimize_through_ir(parser.parse(text), fired)
    assert fired["share_equal_equations"] == 0


def test_loop_bodies_are_left_to_hoisting_and_the_ast_rules():
    text = ("define(f, x, n, block(define(s, 0.0), define(i, 0), while(i < n, block("
            "store(s, s + sum(exp(x) * exp(x))), store(i, i + 1))), s))")
    fired: Counter = Counter()
    optimize_through_ir(parser.parse(text), fired)
    assert fired["share_equal_equations"] == 0 and fired["hoist_loop_invariants"] > 0


def test_a_disabled_rule_does_not_run_on_the_ir():
    with configured((), disabled="share_equal_equations,fold_literal_arithmetic"):
        fn, fired = _optimized("define(f, x, exp(x) + exp(x) * (2.0 * 3))")
    assert not fired
    assert [e.prim for e in walk(fn)].count("exp") == 2


def test_the_ast_pipeline_runs_no_rule_of_the_ir_alone():
    text = "define(f, x, exp(-x) / (1.0 + exp(-x)) * (2.0 * 3))"
    fired: Counter = Counter()
    rewrite.optimize(parser.parse(text), fired)
    assert fired["share_equal_equations"] == 0
    assert fired["share_common_subexpressions"] > 0 and fired["fold_literal_arithmetic"] > 0


# -- the two engines agree ------------------------------------------------------------------

@pytest.mark.parametrize("phase,rule", RULES, ids=[r.name for _, r in RULES])
def test_the_ast_and_ir_pipelines_agree_on_every_rule_sample(phase, rule):
    for spelling in rule.sample.spellings:
        source, dtype = sample_program(rule.sample, spelling, "np.tanh({}) - 0.5")
        args = rule.sample.arguments(np.random.default_rng(11), dtype, 9)
        got = {}
        for pipeline in ("ast", "ir"):
            with configured(rule.sample.settings + (("pipeline", pipeline),)):
                decorated, python = compiled(source)
                got[pipeline] = results(decorated, args)
        rtol = rule.rtol[1] if dtype == np.float32 else rule.rtol[0]
        assert_agree(got["ir"], got["ast"], rtol, f"{rule.name} ({spelling})\n{source}")


def _outcome(program: ast.Program, pipeline: str):
    state = et.compiler_state(f"engine27-{pipeline}", "<repo>")
    config.set("pipeline", pipeline)
    try:
        value = et.eval(state, program)
    except PhylanxError as error:
        return ("error", type(error).__name__)
    finally:
        config.reset("pipeline")
    if callable(value):               # a function needing arguments: nothing to compare
        return ("function", None)
    return ("value", value)


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b,
                                                                             equal_nan=True)
    return type(a) is type(b) and (a == b or (a != a and b != b))


def _may_fire_on_the_ir(program: ast.Program) -> bool:
    """Literal arithmetic or a repeated subexpression: what the IR's rules look for (a
    cheap filter; whether one fires is asked of the engine)."""
    if tree.ProgramFacts(program).literal_ops:
        return True
    seen: set = set()
    for e in tree.walk(ast.Call("block", program.body)):
        if type(e) in (ast.Call, ast.BinOp, ast.UnaryOp):
            k = tree.key(e)
            if k in seen:
                return True
            seen.add(k)
    return False


def test_the_ast_and_ir_pipelines_agree_where_a_rule_of_the_ir_fires_in_the_repository():
    """(The repository's programs are the IR text test's, parsed once per session.)"""
    checked = 0
    for program in filter(_may_fire_on_the_ir, repository_programs()):
        fired: Counter = Counter()
        try:
            optimize_through_ir(program, fired)
        except PhylanxError:
            continue
        if not IR_RULE_NAMES & set(fired):
            continue
        old, new = _outcome(program, "ast"), _outcome(program, "ir")
        assert old[0] == new[0] and _same(old[1], new[1]), (printer.to_physl(program),
                                                             old, new)
        checked += old[0] == "value"
    assert checked >= 10


def test_a_decorated_function_agrees_with_python_through_the_ir_rules():
    def f(x):
        y = np.exp(-x) / (1.0 + np.exp(-x))
        z = np.exp(-x) * (2.0 * 3) - (7 - 2) % 3
        return y + z, np.sum(np.exp(-x))

    x = np.linspace(-2.0, 2.0, 7).astype(np.float32)
    fired: Counter = Counter()
    decorated = Phylanx(f)
    optimize_through_ir(parser.parse(decorated.get_physl_source()), fired)
    assert fired["share_equal_equations"] > 0 and fired["fold_literal_arithmetic"] > 0
    for got, want in zip(decorated(x), f(x)):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_every_replaced_value_is_a_variable_or_literal_of_the_ir():
    fn, _fired = _optimized("define(f, x, exp(x) + exp(x) + (1 + 2))")
    for eqn in walk(fn):
        assert all(type(a) in (Var, Literal) for a in eqn.ins)


def _swap_operands(bound, ctx):
    e = bound["e"]
    return [ctx.terms.rebuild(e, tuple(reversed(ctx.terms.children(e))))]


def test_a_phase_that_does_not_converge_on_the_ir_is_a_located_error():
    swap = Rule("swap_operands", "a + b is b + a for numbers, the same IEEE sum either way",
                P("__add", name="e"), _swap_operands,
                Sample("def sample(x):\n    return x + 1.0\n", None, ("float32", "helper")),
                substrate="ir")
    program = lowered(parser.parse("define(f, x, y,\n  x + y)"))
    with pytest.raises(engine.RewriteDivergenceError, match="swap_operands") as info:
        run_phase_ir(Phase("cycling", (swap,)), program, disabled=frozenset())
    assert info.value.loc is not None and info.value.loc.line == 2
