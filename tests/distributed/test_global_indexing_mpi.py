"""Global subscripts, stores and structure ops of tiled arrays under ``mpiexec -n 1..4``
(``programs/global_indexing.py``: every result NumPy's for the whole array, tiled or
plain alike on every rank, bad indices the same located IndexError on every rank;
row, uneven-with-an-empty-tile, sym, column and overlapping tilings)."""
from __future__ import annotations

import pytest

from .test_mpi import RANKS, assert_all_ok, program

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("k", RANKS)
def test_global_indices_and_structure_ops_match_numpy(k):
    done, _ = program(k, "global_indexing.py", timeout=240)
    assert_all_ok(done, k)
