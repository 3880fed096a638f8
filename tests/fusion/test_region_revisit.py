"""A fused region given back for small evaluations is looked at again later (the side
table's revisit, runtime/choices.py): sizes may have grown.  Values stay NumPy's."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import config, fusion
from phylanx.fusion import hot
from phylanx.runtime import choices

pytest.importorskip("numba")

CODE = "lambda(x, x * 2 + 1)"


@pytest.fixture
def policy(tmp_path):
    config.set("fusion", True)
    config.set("fusion_background", False)
    config.set("fusion_cache_dir", str(tmp_path))
    config.set("fusion_min_time_us", 1e9)            # no evaluation is big
    yield
    for name in ("fusion", "fusion_background", "fusion_cache_dir", "fusion_min_time_us"):
        config.reset(name)


def test_a_region_given_back_is_watched_again_after_a_revisit(policy):
    state = phylanx.execution_tree.compiler_state("region-revisit", "<region-revisit>")
    node = state.compile_text(CODE)
    [region] = fusion.regions_of(node)

    def call(v):
        return phylanx.execution_tree.eval(state, CODE, v)
    for i in range(hot.GIVE_UP):
        assert call(float(i)) == i * 2 + 1
    assert region.state == hot.OFF and fusion.regions_of(node) == []
    x = np.linspace(-1.0, 1.0, 50)
    calls = 0
    while region.state == hot.OFF and calls < choices.REVISIT_FIRST + 2:
        np.testing.assert_array_equal(call(x), x * 2 + 1)
        calls += 1
    assert region.state == hot.COLD and calls >= 2     # not at once: after the period
    assert fusion.regions_of(node) == [region]     # the node's entry runs it again
    np.testing.assert_array_equal(call(x), x * 2 + 1)
