"""Facts from specialisation agree with the values the program computes (NumPy's rules).

Random straight-line programs (tests/ir/programs.py) over float32/float64 arrays of
random shapes are lowered and specialised for their arguments; a probe after every
top-level equation with a known fact records the value, and the program (raised back to
PhySL) runs: every known shape, dtype and kind must be the value's.
"""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx.ir import Eqn, Facts, Function, Var, lower, raise_program
from phylanx.ir.core import params
from phylanx.ir.specialise import cache_info, facts_of_value, signature_of, specialise
from phylanx.language.parser import parse
from phylanx.language.printer import to_physl

from .programs import draw_control_program, draw_program, function_named, run_physl


def probed(fn: Function) -> tuple[Function, list[Var]]:
    """``fn`` returning a list of every top-level variable with a known shape or dtype
    (each bound to a probe right after its definition, so later versions of its name
    do not hide it)."""
    eqns, probes, known = [], [], []
    for eqn in fn.eqns:
        eqns.append(eqn)
        for out in eqn.outs:
            f = out.facts
            if f.shape is not None or f.dtype is not None or f.kind is not None:
                probe = Var.new(f"__probe{len(probes)}")
                eqns.append(Eqn("bind", (), (out,), (probe,)))
                probes.append(probe)
                known.append(out)
    result = Var.new()
    eqns.append(Eqn("list", (), tuple(probes), (result,)))
    return Function(fn.params, tuple(eqns), (result,), fn.name), known


def program_text(fn: Function) -> str:
    f = Var.new(fn.name)
    top = Function((), (Eqn("function", params(fn=fn), (), (f,)),), (f,))
    return to_physl(raise_program(top))


def check_facts(text: str, args) -> int:
    """Run ``g`` of ``text`` with probes; assert every fact; the number checked."""
    g = function_named(lower(parse(text)), "g")
    special = specialise(g, signature_of(args))
    fn, known = probed(special)
    values = run_physl(program_text(fn), "g", *args)
    assert len(values) == len(known)
    for var, value in zip(known, values):
        real = facts_of_value(value)
        f = var.facts
        where = f"{var.name or '%'}{var.id} = {value!r}"
        if f.shape is not None:
            assert len(f.shape) == len(real.shape), where
            assert all(d is None or d == r for d, r in zip(f.shape, real.shape)), where
        if f.dtype is not None:
            assert f.dtype == real.dtype, where
        if f.kind is not None:
            assert f.kind == real.kind, where
    return len(known)


@given(st.data())
@settings(max_examples=60, deadline=None)
def test_facts_agree_with_the_values(data):
    text, args, oracle = draw_program(data)
    checked = check_facts(text, args)
    # the statements on the arguments themselves always have known facts: not vacuous
    assert checked >= 1


@given(st.data())
@settings(max_examples=25, deadline=None)
def test_values_agree_with_numpy(data):
    """The oracle of the generator is right about phylanx (so the facts test's programs
    mean what the generator thinks)."""
    text, args, oracle = draw_program(data)
    result = run_physl(text, "g", *args)
    expected = oracle[-1][1] if oracle else args[-1]
    np.testing.assert_allclose(np.asarray(result, dtype=float),
                               np.asarray(expected, dtype=float), rtol=1e-5)


SHAPED = ("define(g, x, y, z, block(define(a, dot(x, z)), define(b, matmul(y, z)), "
          "define(c, sum(a, __arg(axis, 1), __arg(keepdims, True))), define(d, transpose(a)), "
          "define(e, a - c), define(f, __subscript(x, 0)), define(h, full(tuple(2, 3), 7)), "
          "define(k, exp(y) * 2.0), define(m, argmin(a, 0)), e))")


def test_facts_of_each_family():
    x, y, z = np.ones((4, 3), np.float32), np.ones(3), np.ones((3, 2), np.float32)
    g = function_named(lower(parse(SHAPED)), "g")
    special = specialise(g, signature_of((x, y, z)))
    facts = {e.outs[0].name: e.outs[0].facts for e in special.eqns if e.outs[0].name}
    assert facts["a"].shape == (4, 2) and facts["a"].dtype == "float32"
    assert facts["b"].shape == (2,) and facts["b"].dtype == "float64"
    assert facts["c"].shape == (4, 1)
    assert facts["d"].shape == (2, 4)
    assert facts["e"].shape == (4, 2)
    assert facts["f"].shape == (3,)
    assert facts["h"].shape == (2, 3) and facts["h"].dtype == "int64"
    assert facts["k"].dtype == "float64" and facts["k"].shape == (3,)
    assert facts["m"].dtype == "int64" and facts["m"].shape == (2,)
    assert check_facts(SHAPED, (x, y, z)) >= 9
    product = next(e for e in special.eqns if e.prim == "dot_general")
    assert product.param("contract") == ((1,), (0,))


def test_unknown_dims_and_branches_join():
    text = ("define(g, x, c, block(define(a, if(c, x, transpose(x))), "
            "define(s, 0.0), while(s < 3, store(s, s + 1)), a))")
    g = function_named(lower(parse(text)), "g")
    special = specialise(g, signature_of((np.ones((2, 3)), True)))
    a = next(e.outs[0] for e in special.eqns if e.outs[0].name == "a")
    assert a.facts.shape == (None, None) and a.facts.dtype == "float64"
    loop = next(e for e in special.eqns if e.prim == "while")
    assert loop.outs[1].facts == Facts((), "float64", "scalar")   # s: 0.0, s + 1
    for value in (True, False):
        assert np.shape(run_physl(text, "g", np.ones((2, 3)), value)) in ((2, 3), (3, 2))


def test_cache_per_signature_is_bounded():
    g = function_named(lower(parse(SHAPED)), "g")
    sig = signature_of((np.ones((4, 3)), np.ones(3), np.ones((3, 2))))
    assert specialise(g, sig) is specialise(g, sig)
    other = signature_of((np.ones((5, 3)), np.ones(3), np.ones((3, 2))))
    assert specialise(g, other) is not specialise(g, sig)
    entries, capacity = cache_info()
    assert entries <= capacity


@given(st.data(), st.sampled_from([1, -2, 2.5, True, 0.5]), st.sampled_from([3, -1.5, False, 7]))
@settings(max_examples=40, deadline=None)
def test_facts_of_python_numbers_and_loops_agree_with_the_values(data, a, b):
    """Python numbers keep Python's types (``1 + 1.5`` a float); what loops and
    branches give (their carried outputs, at the top level) holds."""
    text = draw_control_program(data, integers=False).replace("define(h, ", "define(g, ")
    g = function_named(lower(parse(text)), "g")
    special = specialise(g, signature_of((a, b)))
    fn, known = probed(special)
    values = run_physl(program_text(fn), "g", a, b)
    for var, value in zip(known, values):
        real = facts_of_value(value)
        f = var.facts
        assert f.dtype is None or f.dtype == real.dtype, (var, value)
        assert f.kind is None or f.kind == real.kind, (var, value)
    assert any(v.facts.kind == "scalar" for v in known)


def test_a_counter_keeps_its_facts_through_a_loop():
    text = "define(g, n, block(define(i, 0), while(i < n, store(i, i + 1)), i))"
    special = specialise(function_named(lower(parse(text)), "g"), signature_of((5,)))
    loop = next(e for e in special.eqns if e.prim == "while")
    assert loop.outs[1].facts == Facts((), "int64", "scalar")
    assert special.results[0].facts == Facts((), "int64", "scalar")


def test_a_distributed_argument_has_its_global_shape_and_layout():
    from phylanx.distributed.darray import DistributedArray
    from phylanx.distributed.tiles import Layout
    from phylanx.ir.text import parse_var, var_text
    layout = Layout([((0, 2), (0, 3)), ((2, 4), (0, 3))], (4, 3))
    facts = facts_of_value(DistributedArray(np.ones((2, 3)), layout, "a"))
    assert facts == Facts((4, 3), "float64", "darray", "split0/2=0:2x0:3;2:4x0:3")
    var = Var.new("a", facts)
    assert var_text(var).endswith(":f64[4,3]!darray{layout=split0/2=0:2x0:3;2:4x0:3}")
    assert parse_var(var_text(var)) == var
