"""Row blocks of a row reduction as a rule of the IR (compiler/rewrite/row_blocks.py).

``argmin``/``argmax`` along axis 1 of an element-wise expression of products ``x @ m``
becomes ``__rows_concat`` on the IR, whatever the product's spelling (``@``,
``np.dot``, ``.dot``, ``np.matmul``), the data's dtype, a helper ``def`` for the
distances, the distances named or not, the loop around it (``for`` or ``while``).
Random element-wise expressions, evaluated by tiles of 7 rows, give the labels of the
program with the rule off and of NumPy; the rule fires exactly where the generator says
the law holds (not through a reduction that reads ``x`` itself, nor across a change of
``x`` in place between the distances and their argmin).
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx import config
from phylanx.compiler import rewrite
from phylanx.compiler.rewrite import row_blocks
from phylanx.compiler.rewrite.ir_terms import run_ir_phases
from phylanx.compiler.through_ir import lowered
from phylanx.ir.core import walk
from phylanx.language import parser

from .test_rewrite_engine import compiled, configured, sample_program

RULE = "row_blocks_of_a_row_reduction"


def on_ir(physl: str) -> tuple[Counter, set[str]]:
    """(the rules fired by the IR's phases on ``physl``, the primitives after them)."""
    fired: Counter = Counter()
    program = run_ir_phases(rewrite.PASSES, lowered(parser.parse(physl)), fired)
    return fired, {e.prim for e in walk(program)}


@pytest.fixture
def tiles_of_7():
    """Row tiles of 7 rows: a wrong split of the expression gives other labels."""
    config.set("tile_rows", 7)
    yield
    config.reset("tile_rows")


def agree(source: str, args):
    """``sample`` with the rule on and off and NumPy give the same labels."""
    on, python = compiled(source)
    want = python(*[np.copy(a) for a in args])
    got = on(*[np.copy(a) for a in args])
    with configured((), disabled=RULE):
        off, _ = compiled(source)
        without = off(*[np.copy(a) for a in args])
    np.testing.assert_array_equal(got, without, err_msg=source)
    np.testing.assert_array_equal(got, want, err_msg=source)
    return on


def data(rng, n=30, d=3, k=4, dtype=np.float64):
    centres = rng.uniform(-10, 10, size=(k, d))
    points = centres[rng.integers(0, k, n)] + rng.normal(size=(n, d))
    return points.astype(dtype), (centres + 0.5).astype(dtype)


SAMPLE = row_blocks.PHASE.rules[0].sample


@pytest.mark.parametrize("spelling", SAMPLE.spellings)
def test_every_spelling_of_the_sample_is_blocked_on_the_ir(spelling, tiles_of_7):
    source, dtype = sample_program(SAMPLE, spelling)
    on = agree(source, data(np.random.default_rng(5), dtype=dtype))
    fired, prims = on_ir(on.get_physl_source())
    assert fired[RULE] == 1 and row_blocks.CONCAT in prims


_LABELS = "np.argmin(np.sum(c * c, axis=1) - 2.0 * (x @ c.T), axis=1)"

PHRASINGS = {
    "inline": f"def sample(x, c):\n    return {_LABELS}\n",
    "named distances": "def sample(x, c):\n    d = -2.0 * (x @ c.T)\n"
                       "    d = d + np.sum(c * c, axis=1)\n    return np.argmin(d, axis=1)\n",
    "for": "def sample(x, c):\n    labels = np.zeros(x.shape[0], dtype=np.int64)\n"
           f"    for _ in range(2):\n        labels = {_LABELS}\n        c = c * 1.01\n"
           "    return labels\n",
    "while": "def sample(x, c):\n    labels = np.zeros(x.shape[0], dtype=np.int64)\n"
             f"    i = 0\n    while i < 2:\n        labels = {_LABELS}\n"
             "        c = c * 1.01\n        i = i + 1\n    return labels\n",
    "argmax, axis -1": "def sample(x, c):\n    return np.argmax(np.tanh(x @ c.T), axis=-1)\n",
}


@pytest.mark.parametrize("phrasing", list(PHRASINGS))
def test_every_phrasing_is_blocked_on_the_ir(phrasing, tiles_of_7):
    on = agree(PHRASINGS[phrasing], data(np.random.default_rng(6)))
    assert on_ir(on.get_physl_source())[0][RULE] == 1


# -- random programs ------------------------------------------------------------------------

#: leaves of f: (source, reads x outside a product); c is (k, d), b (k,), s (n, 1)
LEAVES = {"x @ c.T": False, "np.dot(x, c.T)": False, "x.dot(w)": False, "b": False,
          "s": False, "2.0": False, "np.sum(x * x, axis=1)[:, None]": True}
#: (exp of minus an absolute value: nested exps of products overflowed to inf, and NumPy's
#: overflow warning is an error here; the rule's law does not need infinities)
UNARY = ("np.tanh({})", "np.exp(-np.abs({}))", "-({})", "np.abs({})")
BINARY = ("({} + {})", "({} - {})", "({} * {})", "np.maximum({}, {})")


@st.composite
def expressions(draw, depth=3):
    """(source, has a product, reads x outside a product)."""
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        leaf = draw(st.sampled_from(list(LEAVES)))
        return f"({leaf})", "x" in leaf and not LEAVES[leaf], LEAVES[leaf]
    if draw(st.booleans()):
        src, p, r = draw(expressions(depth - 1))
        return draw(st.sampled_from(UNARY)).format(src), p, r
    (a, pa, ra), (b, pb, rb) = draw(expressions(depth - 1)), draw(expressions(depth - 1))
    return draw(st.sampled_from(BINARY)).format(a, b), pa or pb, ra or rb


@settings(max_examples=10, deadline=None)
@given(expressions(), st.sampled_from(["argmin", "argmax"]), st.booleans(), st.booleans(),
       st.integers(8, 30), st.integers(0, 2**31))
def test_random_expressions_agree_with_the_rule_off_and_numpy(expression, reduction, named,
                                                              changed, n, seed):
    src, product, reads_x = expression
    src = f"{src} + 0.0 * s * b"        # (n, k) whatever the leaves
    body = (f"    d = {src}\n" + ("    y = x\n    y[0, 0] = 1.0e3\n" if changed else "")
            + f"    return np.{reduction}(d, axis=1)\n") if named else \
        f"    return np.{reduction}({src}, axis=1)\n"
    source = "def sample(x, c, w, b, s):\n" + body
    rng = np.random.default_rng(seed)
    x, c = data(rng, n=n)
    args = (x, c, rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(n, 1)))
    # a read of x outside a product (a row sum of x * x) is an operand of the blocks,
    # computed on the whole x before them and sliced by rows, so it does not stop the
    # rule (ir41's 04998e8); a store into x between d and its reduction does
    fires = product and not (named and changed)
    with configured((("tile_rows", 7),)):
        on = agree(source, args)
    assert on_ir(on.get_physl_source())[0][RULE] == int(fires), source
