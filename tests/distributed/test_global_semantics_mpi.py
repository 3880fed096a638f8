"""NumPy's global answer for tiled arrays, and the single-process examples unchanged on
tiled inputs, under ``mpiexec -n 1..4`` (issue 28 items 1 and 3):
``programs/global_semantics.py`` (reductions over any axes, broadcasting, products in
every tiling combination, the gather fallback, bad input; uneven, empty and
overlapping tiles; a seeded random sweep) and ``programs/unchanged_examples.py``
(``examples/lra.py``, ``kmeans.py``, ``als.py`` imported, compared with their
undecorated functions)."""
from __future__ import annotations

import pytest

from .test_mpi import RANKS, assert_all_ok, program

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("k", RANKS)
def test_tiled_arrays_give_numpys_answer_for_the_whole_array(k):
    done, _ = program(k, "global_semantics.py", str(k), "12", timeout=300)
    assert_all_ok(done, k)


@pytest.mark.parametrize("k", RANKS)
def test_the_examples_run_unchanged_on_tiled_inputs(k):
    done, _ = program(k, "unchanged_examples.py", timeout=300)
    assert_all_ok(done, k)
