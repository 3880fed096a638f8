"""Issue 28's property test of global indices: hypothesis draws index expressions
(ints, negative and out of range, slices with steps, new axes, ellipsis, index arrays,
masks plain and tiled) on randomly tiled arrays (uneven, empty and overlapping
tiles); reads from Python and ``@Phylanx`` and stores must match NumPy on 1-4
localities (``programs/global_index_property.py``; a failure prints its case)."""
from __future__ import annotations

import pytest

from .test_mpi import RANKS, assert_all_ok, program

pytestmark = pytest.mark.mpi

SEED, CASES = 28, 60


@pytest.mark.parametrize("k", RANKS)
def test_random_index_expressions_match_numpy(k):
    done, _ = program(k, "global_index_property.py", str(SEED), str(CASES), timeout=240)
    assert_all_ok(done, k)
    assert done.stdout.count(f" {CASES}") >= k, done.stdout
