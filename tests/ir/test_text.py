"""The IR's text form round-trips: parse(show(f)) == f, for random programs and for every
PhySL program in the repository's tests and examples."""
from __future__ import annotations

import ast as pyast
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx.errors import PhylanxError
from phylanx.ir import Facts, Function, Var, lower
from phylanx.ir.core import check_ssa, walk
from phylanx.ir.specialise import signature_of, specialise
from phylanx.ir.text import IRSyntaxError, parse, parse_var, show, var_text
from phylanx.language import ast
from phylanx.language.parser import parse as parse_physl

from .programs import draw_control_program, draw_program, function_named

ROOT = Path(__file__).resolve().parents[2]


@cache
def repository_programs() -> tuple[ast.Program, ...]:
    """Every string constant of tests/ and examples/ that is a PhySL program with a call."""
    found = []
    for path in sorted([*ROOT.joinpath("tests").rglob("*.py"),
                        *ROOT.joinpath("examples").rglob("*.py")]):
        try:
            tree = pyast.parse(path.read_text())
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in pyast.walk(tree):
            if isinstance(node, pyast.Constant) and isinstance(node.value, str) \
                    and "(" in node.value and len(node.value) < 20000:
                try:
                    program = parse_physl(node.value)
                except (PhylanxError, RecursionError):
                    continue
                if any(type(e) is ast.Call for e in program.body):
                    found.append(program)
    return tuple(found)


def round_trips(fn: Function) -> None:
    text = show(fn)
    assert parse(text) == fn, text
    assert show(parse(text)) == text


def test_every_repository_program_round_trips():
    programs = repository_programs()
    assert len(programs) > 500
    opaque = 0
    for program in programs:
        fn = lower(program)
        check_ssa(fn)
        round_trips(fn)
        opaque += sum(e.prim == "opaque" for e in walk(fn))
    assert opaque < len(programs)     # most programs lower without an opaque statement


@given(st.data())
@settings(max_examples=60, deadline=None)
def test_random_programs_round_trip_lowered_and_specialised(data):
    text, args, _ = draw_program(data)
    program = lower(parse_physl(text))
    round_trips(program)
    special = specialise(function_named(program, "g"), signature_of(args))
    round_trips(special)


@given(st.builds(Facts,
                 st.none() | st.lists(st.none() | st.integers(0, 9), max_size=3).map(tuple),
                 st.none() | st.sampled_from(["float32", "float64", "int64", "bool"]),
                 st.none() | st.sampled_from(["array", "scalar", "tuple", "darray"]),
                 st.none() | st.sampled_from(["rows", "cols"]),
                 st.none() | st.integers(1, 99)),
       st.sampled_from(["", "x", "__t1"]), st.integers(1, 10**6))
def test_variables_round_trip(facts, name, vid):
    var = Var(vid, name, facts)
    assert parse_var(var_text(var)) == var


def test_example_text():
    fn = function_named(lower(parse_physl("define(f, a, b, dot(a, b))")), "f")
    special = specialise(fn, signature_of((np.ones((2, 3)), np.ones((3, 4), np.float32))))
    a, b = special.params
    out = special.eqns[0].outs[0]
    assert show(special) == (
        f"fn f(a.{a.id}:f64[2,3], b.{b.id}:f32[3,4]) {{\n"
        f"  %{out.id}:f64[2,4] = dot_general[contract=((1,), (0,)), rule=\"dot\"]"
        f"(a.{a.id}, b.{b.id})\n"
        f"  return %{out.id}\n}}")


@pytest.mark.parametrize("text", ["fn( {", "fn() { x.1 = add(y.2) }", "fn() { return } x"])
def test_bad_text_is_refused(text):
    with pytest.raises(IRSyntaxError):
        parse(text)


@given(st.data())
@settings(max_examples=60, deadline=None)
def test_random_control_flow_round_trips(data):
    program = parse_physl(draw_control_program(data))
    fn = lower(program)
    check_ssa(fn)
    round_trips(fn)
    assert not any(e.prim == "opaque" for e in walk(fn))      # all of it is lowered
