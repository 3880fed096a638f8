"""Lowering PhySL to the IR: one op per meaning, SSA with versions, structured control
flow with explicit carried values, element writes as aliasing updates, and what cannot
be lowered kept as PhySL (opaque), never an error."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx import Phylanx
from phylanx.compiler.through_ir import is_primitive, lowered
from phylanx.ir import Function, Literal, Var, lower, raise_program
from phylanx.ir.core import IR_OPS, check_ssa, walk
from phylanx.language.parser import parse

from . import interpret
from .programs import draw_control_program, function_named, run_physl
from .test_text import repository_programs


def eqns_of(f) -> list:
    return list(walk(f.ir_function()))


def _matmul(x, w):
    return x @ w


def _npdot(x, w):
    return np.dot(x, w)


def _npmatmul(x, w):
    return np.matmul(x, w)


def _method(x, w):
    return x.dot(w)


def _helper_product(x, w):
    return _npdot(x, w)


@pytest.mark.parametrize("fn", [_matmul, _npdot, _npmatmul, _method, _helper_product])
def test_every_product_spelling_is_one_dot_general(fn):
    ops = [e.prim for e in eqns_of(Phylanx(fn))]
    assert ops == ["dot_general"]


def _dot_t(x):
    return x.T


def _np_t(x):
    return np.transpose(x)


def _method_t(x):
    return x.transpose()


@pytest.mark.parametrize("fn", [_dot_t, _np_t, _method_t])
def test_every_transpose_spelling_is_one_transpose(fn):
    assert [e.prim for e in eqns_of(Phylanx(fn))] == ["transpose"]


def _average(x):
    return np.average(x, 0)


def _mean(x):
    return np.mean(x, 0)


def test_average_without_weights_is_mean():
    assert [e.prim for e in eqns_of(Phylanx(_average))] == \
        [e.prim for e in eqns_of(Phylanx(_mean))] == ["mean"]


def test_store_makes_a_new_version_and_loops_carry_explicitly():
    fn = lower(parse("define(f, n, block(define(s, 0), define(i, 0), "
                     "while(i < n, block(store(s, s + i), store(i, i + 1))), s))"))
    check_ssa(fn)
    f = fn.eqns[0].param("fn")
    loop = next(e for e in f.eqns if e.prim == "while")
    assert [v.name for v in loop.outs[1:]] == ["i", "s"]          # carried, explicit
    assert [v.name for v in loop.param("body").params] == ["i", "s"]
    body = loop.param("body")
    assert [r.name for r in body.results[1:]] == ["i", "s"]
    assert len({v.id for v in body.results[1:]} & {v.id for v in body.params}) == 0
    assert f.results[0] is loop.outs[2]                           # s after the loop


def test_element_write_is_an_update_that_aliases_its_input():
    fn = lower(parse("define(f, x, block(store(__subscript(x, 0), 3.0), x))"))
    f = fn.eqns[0].param("fn")
    (update,) = f.eqns
    assert update.prim == "update" and update.ins[0] is f.params[0]
    assert update.outs[0].facts.alias_of == f.params[0].id
    assert f.results[0] is update.outs[0]


def test_a_lambda_is_a_function_value_whose_body_is_its_region():
    text = ("define(f, xs, block(define(k, 2), define(g, lambda(v, v * k)), "
            "fmap(g, xs)))")
    fn = lower(parse(text))
    check_ssa(fn)
    f = fn.eqns[0].param("fn")
    assert not any(e.prim == "opaque" for e in walk(fn))
    (lam,) = [e for e in f.eqns if e.prim == "lambda"]
    assert lam.outs[0].name == "g" and lam.outs[0].facts.kind == "function"
    body = lam.param("fn")
    assert [p.name for p in body.params] == ["v"]
    k = next(e.outs[0] for e in f.eqns if e.outs[0].name == "k")
    (mul,) = body.eqns
    assert mul.ins == (body.params[0], k)           # k is bound once: its version is read
    assert raise_program(fn) == parse(text)


def test_a_lambda_reads_a_variable_bound_again_later_by_name():
    text = ("define(f, xs, block(define(k, 2), define(g, lambda(v, v * k)), "
            "store(k, 3), fmap(g, xs)))")
    fn = lower(parse(text))
    check_ssa(fn)
    body = next(e for e in walk(fn) if e.prim == "lambda").param("fn")
    assert [e.param("name") for e in body.eqns if e.prim == "read"] == ["k"]   # late binding
    assert raise_program(fn) == parse(text)


def test_async_of_an_expression_is_a_region_and_runs_the_same():
    text = "define(f, x, block(define(c, async(sum(x * 2.0))), c + 1.0))"
    fn = lower(parse(text))
    check_ssa(fn)
    (task,) = [e for e in walk(fn) if e.prim == "async"]
    region = task.param("body")
    assert region.params == () and [e.prim for e in region.eqns] == ["__mul", "sum"]
    assert not any(e.prim == "opaque" for e in walk(fn))
    assert raise_program(fn) == parse(text)
    x = np.arange(4.0)
    assert run_physl(text, "f", x, pipeline="ir") == run_physl(text, "f", x) == 13.0


def test_async_of_a_binding_stays_physl():
    text = "define(f, x, block(define(c, async(block(define(t, x), t))), c))"
    fn = lower(parse(text))
    assert [e.prim for e in walk(fn) if e.prim in ("async", "opaque")] == ["opaque"]
    assert raise_program(fn) == parse(text)


def test_no_repository_program_keeps_a_lambda_or_an_async_it_could_lower():
    """The lowering's census (tools/ir_opaque_count.py): an opaque statement is never a
    lambda of plain parameters nor an async of an expression binding nothing."""
    from phylanx.ir.scan import assigned
    from phylanx.language import ast as past
    kept = []
    for program in repository_programs():
        for e in walk(lower(program, is_primitive)):
            if e.prim != "opaque":
                continue
            s = e.param("ast")
            stack = [s]
            while stack:
                x = stack.pop()
                stack.extend(past.children(x))
                if type(x) is not past.Call or x.attribute is not None:
                    continue
                plain = [p for p in x.args[:-1] if type(p) is past.Identifier]
                if x.func == "lambda" and x.args and len(plain) == len(x.args) - 1 \
                        and len({p.name for p in plain}) == len(plain) and s is x:
                    kept.append(x)
                if x.func == "async" and len(x.args) == 1 and s is x \
                        and type(x.args[0]) is not past.KeywordArg and not assigned(x.args[0]):
                    kept.append(x)
    assert kept == []


def test_bindings_inside_expressions_stay_physl():
    text = "define(f, x, block(define(k, 2), x * 2 + block(store(k, 1), k)))"
    fn = lower(parse(text))
    check_ssa(fn)
    f = fn.eqns[0].param("fn")
    opaque = [e for e in f.eqns if e.prim == "opaque"]
    assert len(opaque) == 1 and opaque[0].param("ast") == parse(text).body[0].args[-1].args[1]
    assert sorted(v.name for v in opaque[0].ins) == ["k", "x"]     # what it reads
    assert [v.name for v in opaque[0].outs] == ["", "k"]           # and assigns
    assert raise_program(fn) == parse(text)


def test_recursion_is_a_call_by_name():
    fn = lower(parse("define(fact, n, if(n <= 1, 1, n * fact(n - 1)))"), is_primitive)
    calls = [e for e in walk(fn) if e.prim == "call"]
    assert [c.param("name") for c in calls] == ["fact"]


def test_ir_is_immutable():
    fn = lower(parse("define(f, x, x + 1)"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        fn.eqns = ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        fn.eqns[0].param("fn").eqns[0].prim = "x"
    assert isinstance(fn.eqns, tuple) and isinstance(fn, Function)


def test_ssa_checker_refuses_a_second_definition():
    v = Var.new("x")
    fn = lower(parse("define(f, x, x + 1)")).eqns[0].param("fn")
    eqn = fn.eqns[0]
    bad = Function((v,), (dataclasses.replace(eqn, ins=(v, Literal(1)), outs=(v,)),), (v,))
    with pytest.raises(ValueError, match="defined twice"):
        check_ssa(bad)


def test_every_op_of_the_repository_programs_is_a_primitive_or_the_irs_own():
    seen = set()
    for program in repository_programs():
        fn = lowered(program)
        check_ssa(fn)
        for eqn in walk(fn):
            seen.add(eqn.prim)
            assert eqn.prim in IR_OPS or is_primitive(eqn.prim), eqn.prim
    assert len(seen) > 50


@given(st.data(), st.integers(-5, 5), st.integers(-5, 5))
@settings(max_examples=60, deadline=None)
def test_the_ssa_data_flow_computes_what_the_program_computes(data, a, b):
    """Run the IR by variable id (tests/ir/interpret.py): loop-carried values, branch
    joins and versions must be right, not only the names raising gives back."""
    text = draw_control_program(data)
    fn = function_named(lower(parse(text)), "h")
    expected = run_physl(text, "h", a, b)
    got = interpret.run(fn, [a, b])[0]
    assert len(got) == len(expected)
    for x, y in zip(got, expected):
        assert np.array_equal(x, y), text


def test_a_nested_function_reads_a_rebound_name_when_called():
    """Late binding (Python's and PhySL's): ``f`` sees ``k`` as it is when called, so
    its IR reads ``k`` by name; a name bound once is read as its one version."""
    text = ("define(outer, a, block(define(k, 1), define(f, x, x + k + a), "
            "store(k, 10), f(1)))")
    outer = function_named(lower(parse(text)), "outer")
    f = next(e for e in outer.eqns if e.prim == "function").param("fn")
    reads = [e.param("name") for e in f.eqns if e.prim == "read"]
    assert reads == ["k"]
    assert outer.params[0] in [a for e in f.eqns for a in e.ins]   # a: bound once
    assert run_physl(text, "outer", 100) == run_physl(text, "outer", 100, pipeline="ir") \
        == 1 + 10 + 100
