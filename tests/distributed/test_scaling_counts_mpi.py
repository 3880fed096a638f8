"""The collectives of the unchanged examples on 2 localities, counted by the runtime's
timeline, equal the cost model's (``programs/scaling_counts.py``): a row-tiled
``x @ w`` sends nothing, an LRA iteration one all_gather of the gradient's partial
sums.  One launch."""
from __future__ import annotations

import pytest

from .test_mpi import assert_all_ok, program

pytestmark = pytest.mark.mpi


def test_counted_messages_match_the_cost_model():
    done, _ = program(2, "scaling_counts.py", timeout=120, OPENBLAS_NUM_THREADS="1")
    assert_all_ok(done, 2)
