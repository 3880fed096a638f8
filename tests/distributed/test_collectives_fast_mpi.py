"""The collectives' fast path under ``mpiexec -n 1..4`` (``programs/collectives_fast.py``):
one MPI request for a small all_reduce, broadcast, all_gather or barrier (the agreement
header travels with the data), a thread waiting long for a collective that does not burn
a core, results around the inline limit, disagreements still naming the ranks."""
from __future__ import annotations

import pytest

from .test_mpi import assert_all_ok, program

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("k", (1, 2, 3, 4))
def test_collectives_fast_path(k):
    done, _ = program(k, "collectives_fast.py", timeout=240)
    assert_all_ok(done, k)
