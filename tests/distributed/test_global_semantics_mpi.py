"""NumPy's global answer for tiled arrays, and the single-process examples unchanged on
tiled inputs, under ``mpiexec -n 1..4`` (issue 28 items 1 and 3):
``programs/global_semantics.py`` (reductions over any axes, broadcasting, products in
every tiling combination, the gather fallback, bad input; uneven, empty and
overlapping tiles; a seeded random sweep) and ``programs/unchanged_examples.py``
(``examples/lra.py``, ``kmeans.py``, ``als.py`` imported, compared with their
undecorated functions), and ``programs/fresh_tables.py`` (tables allocated with the rows
of a tiled array and filled column by column reduce without a message; issue 28 item 5),
and ``programs/fused_tiles.py`` (fused regions on the tiles of row-tiled operands: random
chains against NumPy and against the node-by-node trace; ranks choosing differently;
compiled loops of replicated values giving the same bytes on every rank),
and ``programs/gram_tiles.py`` (the gram row pass on each rank's row tile: random
programs ``x.T @ f(x @ w, y, s)`` in several spellings, float32/float64, even, uneven
and empty tiles, against NumPy and against node by node; ranks choosing differently),
and ``programs/empty_tiles.py`` (every rule on operands whose empty tile is written
either way, rank 0's or a middle rank's, against NumPy; before ``fresh_tables.py``: its
gathered copies made that program's table stores send an all_gather each, issue 28,
dist50; ``fresh_tables.py`` checks it itself too).
The programs run in one job per rank count (``programs/several.py``); each test checks
its own program."""
from __future__ import annotations

import functools

import pytest

from .test_mpi import RANKS, assert_program_ok, several

pytestmark = pytest.mark.mpi


@pytest.fixture(scope="module")
def job():
    """The job of k ranks running both programs, launched once per k."""
    @functools.cache
    def run(k: int):
        return several(k, ("global_semantics.py", str(k), "12"), ("unchanged_examples.py",),
                       ("empty_tiles.py",), ("fresh_tables.py",), ("fused_tiles.py",),
                       ("gram_tiles.py",), timeout=600)
    yield run
    run.cache_clear()


@pytest.mark.parametrize("k", RANKS)
def test_tiled_arrays_give_numpys_answer_for_the_whole_array(k, job):
    assert_program_ok(job(k), "global_semantics.py", k)


@pytest.mark.parametrize("k", RANKS)
def test_the_examples_run_unchanged_on_tiled_inputs(k, job):
    assert_program_ok(job(k), "unchanged_examples.py", k)


@pytest.mark.parametrize("k", RANKS)
def test_fresh_tables_filled_from_row_tiles_stay_on_each_ranks_rows(k, job):
    assert_program_ok(job(k), "fresh_tables.py", k)


@pytest.mark.parametrize("k", RANKS)
def test_fused_regions_run_on_row_tiles_and_leave_the_node_by_node_trace(k, job):
    assert_program_ok(job(k), "fused_tiles.py", k)


@pytest.mark.parametrize("k", RANKS)
def test_the_gram_row_pass_runs_on_each_ranks_row_tile(k, job):
    assert_program_ok(job(k), "gram_tiles.py", k)


@pytest.mark.parametrize("k", RANKS)
def test_every_rule_takes_empty_tiles_written_either_way(k, job):
    assert_program_ok(job(k), "empty_tiles.py", k)
