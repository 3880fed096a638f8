"""A plain operand of a local product whose shape differs between ranks fails at the
next collective on every rank with one located error (``programs/plain_operand_shapes.py``;
review rev2: before, the ranks summed tiles of different products silently)."""
from __future__ import annotations

import pytest

from .test_mpi import assert_all_ok, program

pytestmark = pytest.mark.mpi


def test_disagreeing_plain_operand_shape_is_a_located_error():
    done, _ = program(2, "plain_operand_shapes.py", timeout=60, OPENBLAS_NUM_THREADS="1")
    assert_all_ok(done, 2)
