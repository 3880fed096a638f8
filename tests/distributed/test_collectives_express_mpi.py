"""The collectives' express path (``collectives._express``: a collective whose other ranks
are there runs on the calling thread and returns a done future) under ``mpiexec -n 2``,
one launch (``programs/collectives_express.py``): done at return for the rank that comes
last, the same results as the engine's path and NumPy's, a late rank handed to the engine
with a queued successor, and disagreements (express, and the byte-wise agreement of
broadcasts and gathers) still naming the ranks."""
from __future__ import annotations

import pytest

from .test_mpi import assert_all_ok, program

pytestmark = pytest.mark.mpi


def test_collectives_express():
    done, _ = program(2, "collectives_express.py", timeout=180)
    assert_all_ok(done, 2)
