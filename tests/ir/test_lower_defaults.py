"""A function with constant parameter defaults is lowered, not kept opaque.

Python's ``def f(x, iterations=20)`` is PhySL's ``define(f, x, __arg(iterations, 20),
body)``.  Before, such a ``define`` stayed an ``opaque`` statement: no rule on the IR
saw its body, so a default made a program slower than the same program without one.
Now the ``function`` equation holds the defaults (PhySL constants, evaluated by the
call that omits them, as the compiler does) and the body is lowered as any function's.
Checked: every rule on the IR fires on its sample with a defaulted parameter added as
often as without; lowering then raising gives the PhySL back; the IR text round-trips;
calls with and without the defaulted arguments give the undecorated function's values;
a default that reads a name stays opaque (its evaluation reads the call's frame).
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.compiler import rewrite
from phylanx.compiler.through_ir import is_primitive
from phylanx.ir import lower
from phylanx.ir.core import walk
from phylanx.ir.raising import raise_program
from phylanx.ir.text import parse as parse_ir
from phylanx.ir.text import show
from phylanx.language import parser, to_physl
from tests.compiler.test_rewrite_engine import compiled, configured, sample_program
from tests.compiler.test_row_blocks_on_ir import on_ir

ON_IR = [(phase.name, rule) for phase in rewrite.PASSES for rule in getattr(phase, "rules", ())
         if rule.substrate in ("ir", "both") and rule.sample is not None]


def with_default(source: str) -> str:
    """``source`` with a parameter ``unused=3`` added to ``def sample(...)``."""
    out, count = re.subn(r"def sample\(([^)]*)\):", r"def sample(\1, unused=3):", source)
    assert count == 1
    return out


@pytest.mark.parametrize("phase,rule", ON_IR, ids=[r.name for _, r in ON_IR])
def test_every_rule_on_the_ir_fires_with_a_defaulted_parameter(phase, rule):
    source, _dtype = sample_program(rule.sample, rule.sample.spellings[0])
    counts = []
    with configured(rule.sample.settings):
        for text in (source, with_default(source)):
            decorated, _ = compiled(text)
            counts.append(on_ir(decorated.get_physl_source())[0][rule.name])
    assert counts[0] > 0, f"{rule.name} does not fire on its sample"
    assert counts[1] == counts[0], f"{rule.name}: {counts[1]} with a default, {counts[0]} " \
                                   f"without\n{with_default(source)}"


PROGRAMS = [
    "define(f, a, __arg(b, 10), __arg(c, -2.5), a + b * c)",
    "define(f, x, __arg(n, 3), __arg(axis, nil), __arg(name, \"s\"), "
    "block(define(s, 0.0), for_each(lambda(i, store(s, s + sum(x * i))), range(n)), s))",
    "define(g, x, __arg(w, [1.0, 2.0]), x * w)",
]


@pytest.mark.parametrize("physl", PROGRAMS)
def test_constant_defaults_lower_and_raise_back(physl):
    program = parser.parse(physl)
    ir = lower(program, is_primitive)
    assert "opaque" not in {e.prim for e in walk(ir)}
    assert to_physl(raise_program(ir)) == to_physl(program)
    assert to_physl(raise_program(parse_ir(show(ir)))) == to_physl(program)


@pytest.mark.parametrize("physl", [
    "block(define(k, 2), define(f, a, __arg(b, k), a + b))",   # reads a name
    "define(f, __arg(a, 1), b, a + b)",                        # the compiler's error
])
def test_other_defaults_stay_opaque(physl):
    ir = lower(parser.parse(physl), is_primitive)
    assert any(e.prim == "opaque" and e.param("ast").func == "define" for e in walk(ir))


def steps(x, iterations=4, rate=0.5, shift=-1.0):
    for _ in range(iterations):
        x = x - rate * (x - shift)
    return x


@pytest.mark.parametrize("args", [(), (2,), (3, 0.25), (1, 0.1, 2.0)])
def test_calls_omitting_defaults_agree_with_python(args):
    x = np.linspace(-1.0, 1.0, 5)
    np.testing.assert_array_equal(Phylanx(steps)(x, *args), steps(x, *args))
