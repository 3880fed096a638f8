"""Label statistics as a rule of the IR (compiler/rewrite/label_stats.py).

The rule rewrites a region of the IR where ``__rows_concat`` labels the rows of ``x``
and ``bincount(labels)`` and ``add_at(a, labels, x)`` follow.  It fires on the IR
whatever the spelling of the product (``@``, ``np.dot``, ``.dot``, ``np.matmul``), the
data's dtype, a helper ``def`` computing the labels or the whole update step, and the
loop around it (``for`` or ``while``).  Random programs, with statements between the
labels and their consumers (pure ones, rebindings, changes in place through another
name), give the results of the same program with the rule off and of NumPy, with the
statistics gathered where the labels are found, as the fused row pass does
(:func:`gather_where_labelled`): a rewrite that let ``x`` or the labels change in between would
use stale sums and fail here; and the rule fires exactly where the generator says the
law holds.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx.compiler import rewrite
from phylanx.compiler.rewrite import label_stats
from phylanx.compiler.rewrite.ir_terms import run_ir_phases
from phylanx.compiler.through_ir import lowered
from phylanx.ir.core import walk
from phylanx.language import parser
from phylanx.primitives.matrixops import label_stats as stats_primitives

from .test_rewrite_engine import compiled, configured, sample_program

RULE = "label_statistics_in_the_row_pass"
CONSUMERS = ("bincount", "add_at")
REWRITTEN = {label_stats.STATS, label_stats.LABELS, label_stats.COUNTS,
             label_stats.SUMS_AT}


def on_ir(physl: str) -> tuple[Counter, list[str]]:
    """(the rules fired by the IR's phases on ``physl``, the primitives of every
    equation of the IR after them)."""
    fired: Counter = Counter()
    program = run_ir_phases(rewrite.PASSES, lowered(parser.parse(physl)), fired)
    return fired, [e.prim for e in walk(program)]


def assert_rewritten(decorated, times: int = 1):
    fired, prims = on_ir(decorated.get_physl_source())
    assert fired[RULE] == times
    assert REWRITTEN <= set(prims) and not set(CONSUMERS) & set(prims)


def gather_where_labelled(monkeypatch):
    """The statistics gathered where the labels are found, at any size (what
    ``fusion/rowargmin.py``'s kernel does once hot, on at least ROWS_FAST_TILE rows):
    the consumers then use them, so a rewrite reading them after ``x`` or the labels
    changed gives another result than the program."""
    original = stats_primitives.LabelStats

    class Gathered(original):
        __slots__ = ()

        def __init__(self, labels, x, counts=None, sums=None):
            if counts is None and isinstance(x, np.ndarray) and x.ndim == 2 \
                    and x.dtype.kind == "f":
                counts = np.bincount(labels)
                sums = np.zeros((counts.shape[0], x.shape[1]), dtype=x.dtype)
                np.add.at(sums, labels, x)
            super().__init__(labels, x, counts, sums)
    monkeypatch.setattr(stats_primitives, "LabelStats", Gathered)
    monkeypatch.setattr(stats_primitives, "ROWS_FAST_TILE", 1)


@pytest.fixture
def gathering(monkeypatch):
    gather_where_labelled(monkeypatch)


def agree(source: str, args, rtol: float):
    """Run ``sample`` with the rule on and off; both agree with NumPy."""
    on, python = compiled(source)
    want = python(*[np.copy(a) for a in args])
    got = on(*[np.copy(a) for a in args])
    with configured((), disabled=RULE):
        off, _ = compiled(source)
        without = off(*[np.copy(a) for a in args])
    for g, o, w in zip(got, without, want):
        g, o, w = np.asarray(g), np.asarray(o), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, source
        scale = float(np.max(np.abs(w), initial=1e-30))
        np.testing.assert_allclose(g, o, rtol=0, atol=rtol * scale, err_msg=source)
        np.testing.assert_allclose(g, w, rtol=0, atol=rtol * scale, err_msg=source)
    return on


def data(rng, n=40, d=3, k=4, dtype=np.float64):
    centres = rng.uniform(-10, 10, size=(k, d))
    points = centres[rng.integers(0, k, n)] + rng.normal(size=(n, d))
    return points.astype(dtype), (centres + 0.5).astype(dtype)


# -- phrasings ------------------------------------------------------------------------------

SAMPLE = label_stats.PHASE.rules[0].sample


@pytest.mark.parametrize("spelling", SAMPLE.spellings)
def test_every_spelling_of_the_sample_is_rewritten_on_the_ir(spelling, gathering):
    source, dtype = sample_program(SAMPLE, spelling)
    x, c = data(np.random.default_rng(3), dtype=dtype)
    assert_rewritten(agree(source, (x, c), 1e-5 if dtype == np.float32 else 1e-12))


_STEP = """\
    labels = np.argmin(np.sum(c * c, axis=1) - 2.0 * (x @ c.T), axis=1)
    counts = np.bincount(labels, minlength=k)
    sums = np.zeros((k, x.shape[1]), dtype=x.dtype)
    np.add.at(sums, labels, x)
    c = sums / np.maximum(counts, 1)[:, None]
"""


def _indented(block: str) -> str:
    return "".join("    " + line + "\n" for line in block.splitlines())


LOOPS = {
    "for": "def sample(x, c):\n    k = c.shape[0]\n    for _ in range(3):\n"
           + _indented(_STEP) + "    return (c,)\n",
    "while": "def sample(x, c):\n    k = c.shape[0]\n    i = 0\n    while i < 3:\n"
             + _indented(_STEP) + "        i = i + 1\n    return (c,)\n",
    # the whole update step a helper with locals (inlined: its statements, then the
    # binding of its value)
    "helper step": "def sample(x, c):\n    def step(c):\n        k = c.shape[0]\n"
                   + _indented(_STEP) + "        return c\n"
                   "    for _ in range(3):\n        c = step(c)\n    return (c,)\n",
    # the labels returned by a helper, the sums before the counts, minlength positional
    "helper labels": "def sample(x, c):\n    def nearest(p, q):\n"
                     "        return np.argmin(np.sum(q * q, axis=1) - 2.0 * np.dot(p, q.T), "
                     "axis=1)\n"
                     "    for _ in range(3):\n        labels = nearest(x, c)\n"
                     "        sums = np.zeros_like(c)\n        np.add.at(sums, labels, x)\n"
                     "        counts = np.bincount(labels, None, c.shape[0])\n"
                     "        c = sums / np.maximum(counts, 1)[:, None]\n"
                     "    return (c,)\n",
}


@pytest.mark.parametrize("loop,dtype", [(loop, np.float64) for loop in LOOPS]
                         + [("for", np.float32)])
def test_kmeans_is_rewritten_in_every_loop_and_helper(loop, dtype, gathering):
    x, c = data(np.random.default_rng(4), dtype=dtype)
    on = agree(LOOPS[loop], (x, c), 1e-4 if dtype == np.float32 else 1e-10)
    assert_rewritten(on)


# -- random programs ------------------------------------------------------------------------

#: statements that may stand between the labels and their consumers:
#: (source, changes nothing in place, rebinds x)
BETWEEN = {
    "pure": ("t = np.sum(x, axis=0) * 2.0 + np.sum(labels)", True, False),
    "rebind x": ("x = x * 2.0", True, True),
    "x in place": ("y = x\n    y[0, 0] = 100.0", False, False),
    "labels in place": ("labels[0] = labels.shape[0] % k", False, False),
    "sums in place": ("sums += 1.0", False, False),
}

COUNTS = {"none": "np.bincount(labels)", "keyword": "np.bincount(labels, minlength=k)",
          "positional": "np.bincount(labels, None, k)",
          "weights": "np.bincount(labels, x[:, 0])"}


@st.composite
def programs(draw):
    """(source, whether the rule must fire)."""
    product = draw(st.sampled_from(["x @ c.T", "np.dot(x, c.T)", "x.dot(c.T)"]))
    reduction = draw(st.sampled_from(["argmin", "argmax"]))
    counts = draw(st.sampled_from(list(COUNTS)))
    between = draw(st.lists(st.sampled_from(list(BETWEEN)), max_size=2))
    order = ["counts", "sums"] + between
    order = draw(st.permutations(order))
    lines = ["def sample(x, c):", "    k = c.shape[0]",
             "    sums = np.zeros((k, x.shape[1]), dtype=x.dtype)",
             f"    labels = np.{reduction}(np.sum(c * c, axis=1) - 2.0 * ({product}), "
             "axis=1)"]
    for what in order:
        if what == "counts":
            lines.append(f"    counts = {COUNTS[counts]}")
        elif what == "sums":
            lines.append("    np.add.at(sums, labels, x)")
        else:
            lines.append("    " + BETWEEN[what][0])
    lines.append("    return counts, sums, labels, x")
    last = max(order.index("counts"), order.index("sums"))
    fires = counts != "weights" and all(
        BETWEEN[w][1] and not (BETWEEN[w][2] and order.index(w) < order.index("sums"))
        for w in order[:last] if w in BETWEEN)
    return "\n".join(lines) + "\n", fires


@settings(max_examples=8, deadline=None)
@given(programs(), st.integers(2, 40), st.sampled_from([np.float64, np.float32]),
       st.integers(0, 2**31))
def test_random_programs_agree_with_the_rule_off_and_numpy(program, n, dtype, seed):
    source, fires = program
    with pytest.MonkeyPatch.context() as patch:
        gather_where_labelled(patch)
        x, c = data(np.random.default_rng(seed), n=n, dtype=dtype)
        on = agree(source, (x, c), 1e-5 if dtype == np.float32 else 1e-12)
    fired, _ = on_ir(on.get_physl_source())
    assert fired[RULE] == int(fires), source
