"""A caught disagreement between ranks whose large all_reduces started their data
with the header (of two layouts) and a rank that started none leaves no request
pending: the program ends with status 0 (``programs/caught_mismatch.py``)."""
from __future__ import annotations

import pytest

from .test_mpi import assert_all_ok, program

pytestmark = pytest.mark.mpi


def test_a_caught_mismatch_of_two_speculated_layouts_exits_cleanly():
    done, _ = program(3, "caught_mismatch.py", timeout=240)
    assert_all_ok(done, 3)
