"""min/max reductions propagate NaN as NumPy's do, small or large, under ``mpiexec -n 2``
and ``-n 3`` (``programs/reduce_nan.py``): MPI's own MIN/MAX keep whichever operand
the comparison picks, so a NaN vanished when the array went to MPI."""
from __future__ import annotations

import pytest

from .test_mpi import assert_all_ok, program

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("k", (2, 3))
def test_min_max_propagate_nan(k):
    done, _ = program(k, "reduce_nan.py", timeout=240)
    assert_all_ok(done, k)
