"""The IR's layout facts (issue 28 item 2): the layout ``f.ir(*args)`` propagates to a
value is the layout of the value the runtime produces.

In one process (one locality) hypothesis draws the cases of
``programs/layout_facts.py`` (element-wise with scalars, broadcast plain arrays and
other tilings, products in every spelling, reductions, transposes, chains); under
``mpiexec -n 2`` and ``-n 3`` the same cases run as a seeded sweep with real tiles
(rows, columns, blocks, uneven with an empty tile), one launch per rank count, where
the ``comm`` fact of every equation is checked against the collectives the call
starts (on one locality: every fact says ``none``).  The layout fact prints in the IR's
text and parses back.
"""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx.distributed.darray import DistributedArray
from phylanx.distributed.tiles import Layout
from phylanx.ir import layouts
from phylanx.ir.core import Var
from phylanx.ir.specialise import facts_of_value, signature_of
from phylanx.ir.text import parse_var, var_text

from .test_mpi import PROGRAMS, assert_all_ok, program

_spec = importlib.util.spec_from_file_location("layout_facts_cases",
                                               PROGRAMS / "layout_facts.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)


@settings(max_examples=15, deadline=None)
@given(case=st.sampled_from(sorted(cases.CASES)), rows=st.integers(1, 5),
       cols=st.integers(1, 4), tiling=st.sampled_from(cases.TILINGS),
       other=st.sampled_from(cases.TILINGS), seed=st.integers(0, 2**20))
def test_the_propagated_facts_are_those_of_the_value_produced(case, rows, cols, tiling,
                                                              other, seed):
    facts = cases.check(case, (rows, cols), tiling, other, seed)
    assert facts.shape is not None and facts.kind is not None


def _stand_in(boxes, shape, key1d=None):
    return DistributedArray(np.zeros(0), Layout(boxes, shape, key1d), "s")


def test_a_layout_of_several_ranks_prints_and_parses_back():
    x = _stand_in([((0, 0), (0, 4)), ((0, 3), (0, 4)), ((3, 5), (0, 4))], (5, 4))
    v = _stand_in([((0, 2),), ((2, 5),), ((5, 5),)], (5,), "rows")
    for value in (x, v):
        facts = facts_of_value(value)
        assert layouts.decode(facts.layout) == (value.layout.boxes,
                                                 value.layout.key1d if value.ndim == 1
                                                 and value.layout.key1d == "rows" else None)
        var = Var.new("a", facts)
        assert parse_var(var_text(var)) == var


def test_layouts_follow_the_rules_on_three_simulated_ranks():
    # (three ranks' layouts in one process: the IR needs the layouts, not the tiles)
    boxes = [((0, 1), (0, 3)), ((1, 4), (0, 3)), ((4, 6), (0, 3))]
    x = _stand_in(boxes, (6, 3))
    w = np.ones((3, 2))

    def result(fn, *args):
        return fn.ir_function(signature_of(args)).results[0].facts

    rows = [b[0] for b in boxes]
    product = result(cases.matmul, x, w)          # x @ w stays row-tiled
    assert product.kind == "darray"
    assert [b[0] for b in layouts.decode(product.layout)[0]] == rows
    assert result(cases.dot, x, w) == product     # the spelling does not matter
    assert [b[0] for b in layouts.decode(result(cases.sum1, x).layout)[0]] == rows
    assert result(cases.sum0, x).kind == "array"  # a split axis reduced: plain
    assert result(cases.gram, x, x).kind == "array"  # x.T @ x: local products, summed
    flipped = layouts.decode(result(cases.transposed, x).layout)[0]
    assert flipped == tuple(b[::-1] for b in boxes)


@pytest.mark.mpi
@pytest.mark.parametrize("k", (2, 3))
def test_the_propagated_facts_are_those_of_the_value_on_every_rank(k):
    done, _ = program(k, "layout_facts.py", str(k), "1", timeout=300)
    assert_all_ok(done, k)


def test_phylanx_ir_prints_the_layouts_for_a_signature_with_a_tiled_argument(tmp_path,
                                                                             capsys):
    from phylanx.cli import ir as cli_ir
    source = tmp_path / "p.physl"
    source.write_text("define(f, x, w, dot(x, w) + 1.0)\n")
    x = _stand_in([((0, 3), (0, 3)), ((3, 6), (0, 3))], (6, 3))
    typed = var_text(Var.new("x", facts_of_value(x))).split(":", 1)[1]
    assert cli_ir.main([str(source), "-f", "f", "-s", f"{typed} f64[3,2]"]) == 0
    printed = capsys.readouterr().out
    # x @ w of a row-tiled x is tiled by x's rows (the product rule, docs/distributed.md)
    rows = layouts.encode([((0, 3), (0, 2)), ((3, 6), (0, 2))], [0])
    assert f"f64[6,2]!darray{{layout={rows}}} = __add" in printed
