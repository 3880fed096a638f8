"""Tiled arrays and the distributed primitives under ``mpiexec -n 1..4``
(``programs/tiles.py``: every primitive against NumPy, bad input on every rank)."""
from __future__ import annotations

import pytest

from .test_mpi import RANKS, assert_all_ok, program

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("k", RANKS)
def test_tiled_arrays_and_distributed_primitives(k):
    done, _ = program(k, "tiles.py", timeout=180)
    assert_all_ok(done, k)
