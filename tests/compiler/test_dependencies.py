"""Which block statements may overlap: purity comes from the registry's flags.

``side_effects`` and ``higher_order`` are what ``compiler/dependencies.py`` reads to
keep program order; these tests make both flags mean something checked.
"""
from __future__ import annotations

import inspect
import re

import pytest

from phylanx.compiler.dependencies import _primitive_is_pure, overlap_plan, summarize
from phylanx.primitives.registry import all_specs
from phylanx.runtime.nodes import Node, constant

SPECS = [s for s in all_specs() if not s.special and s.impl is not None]

#: a call of a function value inside a primitive's implementation
_CALLS_A_FUNCTION = re.compile(r"(?<![\w.])(call|call_function)\(")


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_a_primitive_that_calls_function_values_is_flagged_higher_order(spec):
    if spec.lazy:   # builders evaluate children, they call no function values themselves
        return
    source = inspect.getsource(spec.impl)
    if _CALLS_A_FUNCTION.search(source):
        assert spec.higher_order or spec.side_effects, (
            f"{spec.name} calls a function value: declare it higher_order=True")


@pytest.mark.parametrize("name", sorted(
    s.name for s in SPECS
    if (s.higher_order and not s.flags.get("pure_function")) or s.side_effects))
def test_flagged_primitives_are_never_reordered(name):
    """(A rewrite's primitive calling only the function the rewrite built from pure code,
    flags ``pure_function``, is pure: tests/compiler/test_rewrite_outer.py.)"""
    assert not _primitive_is_pure(name)
    value = Node(name, None, (constant(1),))
    assert summarize(value)[2], f"{name} must count as impure"


def _define(var: str, value: Node) -> Node:
    return Node("define-variable", None, (value,), instance=var)


def test_an_expensive_pure_statement_may_run_ahead_of_independent_ones():
    stmts = [_define("x", Node("dot", None, (constant(1), constant(2)))),
             _define("y", Node("dot", None, (constant(3), constant(4)))),
             Node("access-variable", None, (), instance="x")]
    plan = overlap_plan(stmts)
    assert plan[0][1] == 2   # x is joined where it is read
    assert plan[1][1] == 3   # y nobody reads: joined at the end of the block


@pytest.mark.parametrize("impure", ["random", "cout", "fmap", "all_reduce"])
def test_a_statement_with_side_effects_keeps_its_place(impure):
    stmts = [_define("x", Node(impure, None, (constant(1),))),
             _define("y", Node("dot", None, (constant(3), constant(4)))),
             Node("access-variable", None, (), instance="y")]
    assert 0 not in overlap_plan(stmts)
