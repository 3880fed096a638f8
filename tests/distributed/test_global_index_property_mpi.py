"""Issue 28's property test of global indices: hypothesis draws index expressions
(ints, negative and out of range, slices with steps, new axes, ellipsis, index arrays,
masks plain and tiled) on randomly tiled arrays (uneven, empty and overlapping
tiles); reads from Python and ``@Phylanx`` and stores must match NumPy on 1-4
localities (``programs/global_index_property.py``; a failure prints its case).

Each rank count draws its own cases (the seed is ``SEED + k``): 4 x 30 different
expressions, where one seed for all drew the same 60 four times.  Every rank runs each
case, so a case costs k times its single-process time; 30 a launch cut the four jobs'
CPU time by a fifth (docs/performance.md, "The time of make test (stop 41)")."""
from __future__ import annotations

import pytest

from .test_mpi import RANKS, assert_all_ok, program

pytestmark = pytest.mark.mpi

SEED, CASES = 28, 30


@pytest.mark.parametrize("k", RANKS)
def test_random_index_expressions_match_numpy(k):
    done, _ = program(k, "global_index_property.py", str(SEED + k), str(CASES),
                      timeout=240)
    assert_all_ok(done, k)
    assert done.stdout.count(f" {CASES}") >= k, done.stdout
