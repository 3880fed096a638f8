"""Ranks that disagree and errors on one rank (issue 26 items 3, 4), under ``mpiexec -n
1..4`` (``programs/agreement.py``): a tile count other than the number of localities,
``distributed.tiled`` given different arrays, ``fit(distributed="data")`` with a
different model, sample count or seed on one rank are located errors on every rank
naming it; a distributed primitive failing on one rank (caught by the program) is the
same located error on every rank, and later gathers, reductions and products are
NumPy's; ``dot_d`` with all rows on one rank and empty tiles elsewhere is NumPy's.
On 4 ranks the ``fit`` disagreements are made by ranks 0, 2 and 3 (rank 1, a middle
rank as on 3 ranks, makes every other disagreement): see ``FIT_RANKS``."""
from __future__ import annotations

import pytest

from .test_mpi import RANKS, assert_all_ok, program

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("k", RANKS)
def test_disagreeing_ranks_and_caught_errors_keep_every_rank_in_step(k):
    # a short collective timeout: a rank left out of step must fail fast, not hang
    done, _ = program(k, "agreement.py", timeout=240, PHYLANX_COLLECTIVE_TIMEOUT="20")
    assert_all_ok(done, k)
