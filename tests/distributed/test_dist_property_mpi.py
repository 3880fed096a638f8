"""Issue 26's property test: random programs over the distributed primitives, with
random tilings (uneven, empty and overlapping tiles), on 1-4 localities, against
single-process NumPy (``programs/dist_property.py``; the seed is fixed, so a failure
is reproduced by running the program with the seed and case it prints)."""
from __future__ import annotations

import pytest

from .test_mpi import RANKS, assert_all_ok, program

pytestmark = pytest.mark.mpi

SEED, CASES = 26, 200


@pytest.mark.parametrize("k", RANKS)
def test_random_distributed_programs_match_numpy(k):
    done, _ = program(k, "dist_property.py", str(SEED), str(CASES), timeout=180)
    assert_all_ok(done, k)
    assert done.stdout.count(f" {CASES}") >= k, done.stdout
