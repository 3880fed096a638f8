"""The one rewrite engine (compiler/rewrite/engine.py) and its rule tables.

Over the whole rule table: every rule states its law and has a sample program; random
instances of the sample (data, size, spelling and the expression its result is used in,
drawn by hypothesis) give the same
result with the rule and without it (``PHYLANX_DISABLE_RULES``), within the rule's
stated tolerance, and the undecorated function's result; each rule fires on every
spelling its sample declares (at least two).  The engine itself: phases reach a
fixpoint or raise a located error, patterns match heads, children and predicates
through the term adapter, and the rule table in docs/rules.md is the generated one.
"""
from __future__ import annotations

from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx import Phylanx, config
from phylanx.compiler import rewrite
from phylanx.compiler.rewrite import engine
from phylanx.compiler.rewrite.engine import P, Phase, Rule, Sample
from phylanx.compiler.through_ir import optimize_through_ir
from phylanx.language import ast, parser

from ..source_functions import compiled as compiled_from

RULES = rewrite.rules()
RULE_IDS = [r.name for _, r in RULES]
#: the spellings a sample may declare (engine.Sample)
PRODUCT_SPELLINGS = ("@", "np.dot", ".dot", "np.matmul")
SPELLINGS = PRODUCT_SPELLINGS + ("float32", "helper")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
#: contexts a random program puts the sample's result in (the pattern stays inside)
CONTEXTS = ("{}", "np.abs({})", "({}) * 2.0 + 1.0", "np.tanh({}) - 0.5")


# -- writing a sample in a spelling ---------------------------------------------------------

def _split_call(text: str, start: int) -> tuple[list[str], int]:
    """The top-level arguments of the call whose ``(`` is at ``start``, and its end."""
    depth, args, here = 0, [], start + 1
    for i in range(start, len(text)):
        c = text[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
            if depth == 0:
                args.append(text[here:i].strip())
                return args, i + 1
        elif c == "," and depth == 1:
            args.append(text[here:i].strip())
            here = i + 1
    raise ValueError(f"unbalanced call in {text!r}")


def _operand(text: str) -> str:
    """``text`` parenthesised unless it is a name, an attribute or a call."""
    plain = text.replace(".", "").replace("_", "").isalnum() or (
        text.endswith(")") and "(" in text and text[:text.index("(")].replace(".", "")
        .replace("_", "").isalnum())
    return text if plain else f"({text})"


def _product(a: str, b: str, spelling: str) -> str:
    if spelling == "np.dot":
        return f"np.dot({a}, {b})"
    if spelling == "np.matmul":
        return f"np.matmul({a}, {b})"
    if spelling == ".dot":
        return f"{_operand(a)}.dot({b})"
    return f"({_operand(a)} @ {_operand(b)})"


def spelled(source: str, spelling: str) -> str:
    """``source`` with every ``DOT(a, b)`` written in the product ``spelling``."""
    while "DOT(" in source:
        start = source.rindex("DOT(")          # innermost last: its arguments are plain
        args, end = _split_call(source, start + 3)
        source = source[:start] + _product(*args, spelling) + source[end:]
    return source


def sample_program(sample: Sample, spelling: str, context: str = "{}") -> tuple[str, type]:
    """(Python source, dtype of the data) of ``sample`` written in ``spelling``, its
    result returned in ``context``."""
    source = sample.helper if spelling == "helper" else sample.source
    head, _, result = source.rstrip().rpartition("    return ")
    source = f"{head}    return {context.format(result)}\n"
    product = spelling if spelling in PRODUCT_SPELLINGS else "@"
    return spelled(source, product), np.float32 if spelling == "float32" else np.float64


@contextmanager
def configured(settings, disabled: str = ""):
    """Within: the sample's ``settings`` and the rules ``disabled`` in force."""
    values = dict(settings, disable_rules=disabled)
    for name, value in values.items():
        config.set(name, value)
    try:
        yield
    finally:
        for name in values:
            config.reset(name)


def compiled(source: str):
    """(decorated, undecorated) function ``sample`` of ``source``."""
    fn = compiled_from(source, "sample", decorate=Phylanx(source=source))
    return fn, fn.python


def fired(decorated) -> Counter:
    """The rules that fire on ``decorated``'s program in the pipeline configured."""
    counts: Counter = Counter()
    program = parser.parse(decorated.get_physl_source())
    if config.get("pipeline") in ("ast", "tree"):
        rewrite.optimize(program, counts)
    else:
        optimize_through_ir(program, counts)
    return counts


def results(fn, args) -> list:
    out = fn(*args)
    return [np.asarray(o) for o in (out if isinstance(out, tuple) else (out,))]


def assert_agree(got, want, rtol: float, what: str):
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, what
        if rtol == 0.0:
            np.testing.assert_array_equal(g, w, err_msg=what)
        else:
            scale = float(np.abs(w).max()) if w.size else 0.0
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * scale, err_msg=what)


def oracle_rtol(dtype) -> float:
    return 1e-5 if dtype == np.float32 else 1e-11


# -- the table ------------------------------------------------------------------------------

def test_the_table_has_every_concern():
    phases = [p.name for p in rewrite.PASSES]
    assert phases[:2] == ["inline", "normalize"]
    assert phases[-4:] == ["fold", "hoist", "cse", "updates"]
    assert {"row_blocks", "label_statistics", "symmetric_products"} <= set(phases)


def test_rule_names_are_unique():
    assert len(set(RULE_IDS)) == len(RULE_IDS)


@pytest.mark.parametrize("phase,rule", RULES, ids=RULE_IDS)
def test_every_rule_states_its_law_tolerance_and_sample(phase, rule):
    assert len(rule.law) > 40, "a rule states the law it relies on"
    assert rule.tolerance == "exact" or any(ch.isdigit() for ch in rule.tolerance) \
        or "tie" in rule.tolerance, "an approximate law states its tolerance"
    if rule.rtol != (0.0, 0.0):
        assert rule.tolerance != "exact", "a stated tolerance for a law said exact"
    assert isinstance(rule.sample, Sample), "a rule has a sample program"
    assert "def sample(" in rule.sample.source
    assert set(rule.sample.spellings) <= set(SPELLINGS)
    assert len(rule.sample.spellings) >= 2, "a rule fires on two spellings at least"
    assert ("helper" in rule.sample.spellings) == bool(rule.sample.helper)


def test_a_rule_without_law_or_sample_is_refused():
    with pytest.raises(ValueError, match="law"):
        Phase("bad", (Rule("no_law", "", P("__add"), lambda b, c: None,
                           Sample("def sample(x):\n    return x\n", None, ("float32",
                                                                            "helper"))),))
    with pytest.raises(ValueError, match="sample"):
        Phase("bad", (Rule("no_sample", "x + 0 is x for every number x, exactly so",
                           P("__add"), lambda b, c: None),))


def test_docs_list_every_rule_with_its_phase_and_law():
    assert DOCS.read_text() == rewrite.rules_markdown(), \
        "regenerate: python -m phylanx rules > docs/rules.md"
    for phase, rule in RULES:
        assert f"| {phase} | `{rule.name}` |" in DOCS.read_text()


def test_the_rules_command_prints_the_table(capsys):
    from phylanx.cli.main import main
    assert main(["rules"]) == 0
    assert capsys.readouterr().out == rewrite.rules_markdown()


# -- every rule: fires on its spellings, keeps the result -----------------------------------

def pipelines(rule) -> tuple[str, ...]:
    """The pipelines in which ``rule`` runs on its substrate: the AST's rules are tested
    under ``pipeline=ast`` (in the default pipeline a rule of the IR may have done their
    work first), the IR's under ``pipeline=ir``, a rule of both under both."""
    return {"ast": ("ast",), "ir": ("ir",), "both": ("ast", "ir")}[rule.substrate]


RULES_ON = [(p, r, line) for p, r in RULES for line in pipelines(r)]


@pytest.mark.parametrize(
    "phase,rule,spelling,pipeline",
    [(p, r, s, line) for p, r, line in RULES_ON for s in r.sample.spellings],
    ids=[f"{r.name}-{s}-{line}" for _, r, line in RULES_ON for s in r.sample.spellings])
def test_every_rule_fires_on_each_spelling_of_its_sample(phase, rule, spelling, pipeline):
    source, dtype = sample_program(rule.sample, spelling)
    args = rule.sample.arguments(np.random.default_rng(5), dtype, 17)
    with configured(rule.sample.settings + (("pipeline", pipeline),)):
        on, python = compiled(source)
        assert fired(on)[rule.name] > 0, f"{rule.name} did not fire on\n{source}"
        got = results(on, args)
    assert_agree(got, results(python, args), oracle_rtol(dtype), source)


@pytest.mark.parametrize("phase,rule,pipeline", RULES_ON,
                         ids=[f"{r.name}-{line}" for _, r, line in RULES_ON])
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_every_rule_keeps_the_meaning_of_random_programs(phase, rule, pipeline, data):
    spelling = data.draw(st.sampled_from(rule.sample.spellings), label="spelling")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    n = data.draw(st.integers(2, 60), label="n")
    context = data.draw(st.sampled_from(CONTEXTS), label="context")
    source, dtype = sample_program(rule.sample, spelling, context)
    args = rule.sample.arguments(np.random.default_rng(seed), dtype, n)
    chosen = rule.sample.settings + (("pipeline", pipeline),)
    with configured(chosen):
        on, python = compiled(source)
        with_rule = results(on, args)
        assert fired(on)[rule.name] > 0
    with configured(chosen, disabled=rule.name):
        off, _ = compiled(source)
        without = results(off, args)
        assert fired(off)[rule.name] == 0
    rtol = rule.rtol[1] if dtype == np.float32 else rule.rtol[0]
    assert_agree(with_rule, without, rtol, f"{rule.name}: with and without\n{source}")
    assert_agree(with_rule, results(python, args), oracle_rtol(dtype), source)


# -- the engine -----------------------------------------------------------------------------

def _swap(bound, _ctx):
    e = bound["e"]
    return ast.BinOp(e.op, e.right, e.left, e.loc)


_SWAP = Rule("swap_addends", "a + b is b + a for numbers, the same IEEE sum either way",
             P("__add", name="e"), _swap,
             Sample("def sample(x):\n    return x + 1.0\n", None, ("float32", "helper")))


def test_a_phase_that_does_not_converge_is_a_located_error():
    program = parser.parse("define(f, x, y,\n  x + y)")
    with pytest.raises(engine.RewriteDivergenceError, match="swap_addends") as info:
        engine.run_phase(Phase("cycling", (_SWAP,)), program, disabled=frozenset())
    assert info.value.loc is not None and info.value.loc.line == 2


def test_a_disabled_rule_does_not_fire(monkeypatch):
    program = parser.parse("define(f, x, x * (2 * 3))")
    assert rewrite.optimize(program) != program
    monkeypatch.setenv("PHYLANX_DISABLE_RULES",
                       "share_common_subexpressions, fold_literal_arithmetic")
    config.reset("disable_rules")
    try:
        counts: Counter = Counter()
        assert rewrite.optimize(program, counts) == program
        assert not counts
    finally:
        monkeypatch.delenv("PHYLANX_DISABLE_RULES")
        config.reset("disable_rules")


def test_optimize_off_switches_every_phase_off(monkeypatch):
    program = parser.parse("define(f, x, x * (2 * 3))")
    monkeypatch.setenv("PHYLANX_OPTIMIZE", "0")
    config.reset("optimize")
    assert rewrite.optimize(program) is program
    monkeypatch.delenv("PHYLANX_OPTIMIZE")
    config.reset("optimize")
    assert rewrite.optimize(program) is not program


def test_patterns_match_heads_children_and_predicates_through_the_adapter():
    e = parser.parse("x * (2 - -(3))").body[0]
    literal = P("literal", where=lambda t, ctx: type(t.value) is int)
    pattern = P("__mul", args=(P("identifier", name="v"),
                               P("__sub", args=(literal, P("__minus")), name="d")))
    bound: dict = {}
    assert pattern.match(e, engine.Context(ast.Program((e,))), bound)
    assert bound["v"] == ast.Identifier("x") and bound["d"] is e.right
    assert not P("__add").match(e, None, {})
    assert not P("__mul", args=(P("literal"), P())).match(e, None, {})
    assert engine.TERMS.head(parser.parse("+x").body[0]) in ("__plus", "identifier")


def test_a_round_that_changes_nothing_returns_the_same_program():
    program = parser.parse("define(f, x, block(define(y, x * 2), y + x))")
    assert rewrite.optimize(program) is program
