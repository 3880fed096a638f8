"""``dot_d`` and ``conv1d_d`` multiply / convolve their own tiles while the remote
pieces travel, seen in the recorded timeline with every remote read held back
(``programs/fetch_overlap.py``); ``conv1d_d`` tiled by batch sends no halo message.
Remote reads of NumPy arrays travel as raw bytes, every dtype intact
(``programs/raw_replies.py``).  A plain operand the ranks pass differently fails at
the result's next exchange (``programs/replicated_operands.py``).  One launch for all."""
from __future__ import annotations

import functools

import pytest

from .test_mpi import assert_program_ok, several

pytestmark = pytest.mark.mpi


@functools.cache
def _job():
    return several(2, ("fetch_overlap.py",), ("raw_replies.py",), ("replicated_operands.py",),
                   timeout=180,
                   OPENBLAS_NUM_THREADS="1")


def test_local_tiles_compute_while_the_remote_pieces_travel():
    assert_program_ok(_job(), "fetch_overlap.py", 2)


def test_remote_reads_of_arrays_travel_as_raw_bytes():
    assert_program_ok(_job(), "raw_replies.py", 2)


def test_plain_operands_the_ranks_pass_differently_are_an_error():
    assert_program_ok(_job(), "replicated_operands.py", 2)
