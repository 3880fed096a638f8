"""Symmetric outer products as a rule of the IR (compiler/rewrite/outer.py).

The rule matches the canonical product ``dot_general`` whatever spelling produced it
(``@``, ``np.dot``, ``.dot``, ``np.matmul``, a helper ``def``, float32 data), with the
factors' base one SSA value or equal pure equations of one; the equations of the
reshaped outer products it absorbs are gone from the IR unless another equation reads
them; random shapes, factor orders and namings agree with the rule off and with NumPy.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx.compiler import rewrite
from phylanx.compiler.rewrite import outer
from phylanx.compiler.rewrite.ir_terms import run_ir_phases
from phylanx.compiler.through_ir import lowered
from phylanx.language import parser

from .test_rewrite_engine import compiled, configured, sample_program

RULE = "symmetric_outer_products"


def rewritten_ir(physl: str):
    """(the last function of ``physl`` after the IR's rules, the rules fired)."""
    fired: Counter = Counter()
    program = run_ir_phases(rewrite.PASSES, lowered(parser.parse(physl)), fired)
    return [e.param("fn") for e in program.eqns if e.prim == "function"][-1], fired


def prims(fn) -> list[str]:
    """The primitives of ``fn``'s own equations (not those inside function values)."""
    return [e.prim for e in fn.eqns]


SPELLINGS = ("@", "np.dot", ".dot", "np.matmul", "float32", "helper")


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_spelling_becomes_the_symmetric_product(spelling):
    source, dtype = sample_program(outer.PHASE.rules[0].sample, spelling)
    decorated, python = compiled(source)
    fn, fired = rewritten_ir(decorated.get_physl_source())
    assert fired[RULE] == 1
    # the outer products' equations went with the product that read them
    assert outer.PRIMITIVE in prims(fn)
    assert not {"reshape", "__newaxis", "dot_general"} & set(prims(fn))
    a, v = outer.PHASE.rules[0].sample.arguments(np.random.default_rng(2), dtype, 9)
    want = python(a, v)
    np.testing.assert_allclose(decorated(a, v), want, rtol=1e-5 if dtype == np.float32
                               else 1e-12, atol=0)


def test_equal_expressions_on_both_sides_are_one_value():
    fn, fired = rewritten_ir("""define(f, a, v, n, matmul(a, reshape(
        __subscript(v * 2.0, list(nil, nil), list(nil, nil), __newaxis()) *
        __subscript(v * 2.0, list(nil, nil), __newaxis(), list(nil, nil)), list(n, -1))))""")
    assert fired[RULE] == 1


@pytest.mark.parametrize("physl", [
    # different bases
    """define(f, a, v, w, matmul(a, reshape(
        __subscript(v, list(nil, nil), list(nil, nil), __newaxis()) *
        __subscript(w, list(nil, nil), __newaxis(), list(nil, nil)), list(3, -1))))""",
    # the same axis twice: not symmetric
    """define(f, a, v, matmul(a, reshape(
        __subscript(v, list(nil, nil), list(nil, nil), __newaxis()) *
        __subscript(v, list(nil, nil), list(nil, nil), __newaxis()), list(3, -1))))""",
    # random draws are not one value however they are written
    """define(f, a, matmul(a, reshape(
        __subscript(random(list(3, 2)), list(nil, nil), list(nil, nil), __newaxis()) *
        __subscript(random(list(3, 2)), list(nil, nil), __newaxis(), list(nil, nil)),
        list(3, -1))))""",
])
def test_what_is_not_the_pattern_stays(physl):
    assert rewritten_ir(physl)[1][RULE] == 0


_ORDERS = ("v[:, :, None] * v[:, None, :]", "v[:, None, :] * v[:, :, None]")


@settings(max_examples=8, deadline=None)
@given(st.integers(1, 6), st.integers(1, 4), st.integers(1, 5),
       st.sampled_from(_ORDERS), st.booleans(), st.sampled_from(["@", "np.dot"]),
       st.integers(0, 2**31))
def test_random_shapes_agree_with_the_rule_off_and_numpy(n, k, m, factors, named, dot, seed):
    product = "np.dot(a, {})" if dot == "np.dot" else "a @ {}"
    outer_rows = f"({factors}).reshape(v.shape[0], -1)"
    body = (f"    yy = {outer_rows}\n    return {product.format('yy')}\n" if named
            else f"    return {product.format(outer_rows)}\n")
    source = "def sample(a, v):\n" + body
    rng = np.random.default_rng(seed)
    a, v = rng.normal(size=(m, n)), rng.normal(size=(n, k))
    on, python = compiled(source)
    got = on(a, v)
    with configured((), disabled=RULE):
        off, _ = compiled(source)
        without = off(a, v)
    want = python(a, v)
    scale = float(np.max(np.abs(want), initial=1e-30))
    np.testing.assert_allclose(got, without, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * scale)
    assert rewritten_ir(on.get_physl_source())[1][RULE] == 1
