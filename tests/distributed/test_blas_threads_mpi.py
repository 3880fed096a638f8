"""One BLAS thread per rank under mpiexec (runtime/blas_threads.py, issue 11 item 4)."""
from __future__ import annotations

import pytest

from .test_mpi import assert_all_ok, program

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("k", (1, 2))
def test_every_rank_has_one_blas_thread(k):
    done, _ = program(k, "blas_threads.py")
    assert_all_ok(done, k)
