"""A tiled array never answers locally, under ``mpiexec -n 1..4``
(``programs/global_view.py``: the global answer or the same located error on every
rank, with uneven and empty tiles)."""
from __future__ import annotations

import pytest

from .test_mpi import RANKS, assert_all_ok, program

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("k", RANKS)
def test_tiled_arrays_give_the_global_answer_or_a_located_error(k):
    done, _ = program(k, "global_view.py", timeout=120)
    assert_all_ok(done, k)
