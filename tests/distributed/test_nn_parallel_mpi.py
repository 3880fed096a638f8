"""Data-parallel ``fit`` under ``mpiexec -n 2, 3`` == single-process ``fit`` (losses and
weights, with Adam/SGD, dropout, uneven and empty shards), and the gradient
all_reduces overlap the backward pass (``programs/nn_data_parallel.py``)."""
from __future__ import annotations

import re

import pytest

from .test_mpi import assert_all_ok, program

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("k", (2, 3))
def test_data_parallel_fit_matches_one_process_and_overlaps(k):
    done, _ = program(k, "nn_data_parallel.py", "--overlap", timeout=120)
    assert_all_ok(done, k)
    # rank 0 reports the overlap of each of 3 steps (the assertion ran on every rank)
    assert len(re.findall(r"^overlap: first all_reduce", done.stdout, re.M)) == 3, done.stdout
