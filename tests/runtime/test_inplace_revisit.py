"""In-place reuse's choice is revisited (runtime/inplace.py through the side table,
runtime/choices.py): a node that saw only small arrays at first is probed again later,
so arrays that grew get reused buffers; values stay NumPy's throughout."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import config
from phylanx import execution_tree as et
from phylanx.runtime import choices, inplace

SRC = "define(f, a, b, a * 2.0 + b)"


@pytest.fixture
def fn():
    if not inplace.refcounts_proven():
        pytest.skip("in-place reuse is off on this interpreter")
    config.set("optimize", True)
    try:
        state = et.compiler_state("inplace-revisit")
        f = et.eval(state, SRC)
    finally:
        config.reset("optimize")
    add = next(n for s in state.snippets for n in s.walk() if n.primitive == "__add")
    return f, add


def _variant(node) -> str:
    return node.choice.variant.__qualname__.split(".")[0]


def test_a_node_that_saw_small_arrays_is_probed_again(fn):
    f, add = fn
    small = np.arange(10.0)
    for _ in range(inplace.PROBE):
        np.testing.assert_array_equal(et.invoke(f, (small, small), {}), small * 2.0 + small)
    assert _variant(add) == "build_eager"          # small arrays: the ordinary closure
    big = np.linspace(0.0, 1.0, 2 * inplace.MIN_ELEMENTS)
    calls = 0
    while _variant(add) == "build_eager" and calls < choices.REVISIT_FIRST + 2:
        np.testing.assert_array_equal(et.invoke(f, (big, big), {}), big * 2.0 + big)
        calls += 1
    assert _variant(add) == "_binary", calls       # probed again: reuses temporaries
    assert calls >= 2                              # not at once: after the period
    np.testing.assert_array_equal(et.invoke(f, (big, big), {}), big * 2.0 + big)
