"""``dot_d`` and ``conv1d_d`` multiply / convolve their own tiles while the remote
pieces travel, seen in the recorded timeline with every remote read held back
(``programs/fetch_overlap.py``); ``conv1d_d`` tiled by batch sends no halo message.
One launch."""
from __future__ import annotations

import pytest

from .test_mpi import assert_all_ok, program

pytestmark = pytest.mark.mpi


def test_local_tiles_compute_while_the_remote_pieces_travel():
    done, _ = program(2, "fetch_overlap.py", timeout=120, OPENBLAS_NUM_THREADS="1")
    assert_all_ok(done, 2)
