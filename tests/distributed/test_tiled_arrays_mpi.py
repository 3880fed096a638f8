"""Tiled arrays under ``mpiexec -n 1..4``: five SPMD programs, each with a test of its own,
run one after the other in one job per rank count (``programs/several.py``: a launch
costs 1-2 s of interpreter start-ups, and a file of its own per program paid it four
times per program), after (k <= 3) the distributed examples of ``test_examples_mpi.py``
(``programs/examples.py``, first: a fresh process, as when launched alone):

* ``programs/tiles.py``: every distributed primitive against NumPy (tile by tile and
  gathered), annotations, bad input the same located error on every rank;
* ``programs/global_indexing.py``: global subscripts, stores and structure ops, every
  result NumPy's for the whole array, tiled or plain alike on every rank, bad indices
  the same located IndexError on every rank; row, uneven-with-an-empty-tile, sym,
  column and overlapping tilings;
* ``programs/global_view.py``: a tiled array never answers locally (the global answer or
  the same located error on every rank, with uneven and empty tiles);
* ``programs/global_index_property.py`` (issue 28's property test of global indices):
  hypothesis draws index expressions (ints, negative and out of range, slices with
  steps, new axes, ellipsis, index arrays, masks plain and tiled) on randomly tiled
  arrays (uneven, empty and overlapping tiles); reads from Python and ``@Phylanx`` and
  stores must match NumPy.  Each rank count draws its own cases (the seed is
  ``INDEX_SEED + k``): 30 different expressions at 1-3 ranks, 12 at 4; every rank runs
  each case, so a case costs k times its single-process time (and more on 4 ranks
  sharing 2 cores): the 4-rank job draws its own cases, fewer of them;
* ``programs/dist_property.py`` (issue 26's property test): random programs over the
  distributed primitives, with random tilings, against single-process NumPy (a failure
  is reproduced by running the program with the seed and case it prints).  The seed is
  fixed: every rank count runs the same programs, on tilings drawn for its k ranks; 1-3
  ranks run 200 of them, 4 ranks (where a case costs most) the first 80, of which 7
  are the Cannon product, on a 2 x 2 grid there alone.

A program that fails ends the job: its test names it, the later programs' tests say
which program ended the job (``test_mpi.assert_program_ok``).
"""
from __future__ import annotations

import functools
import re

import numpy as np
import pytest

from .test_examples_mpi import example_modules, expected_results
from .test_mpi import RANKS, assert_program_ok, several

pytestmark = pytest.mark.mpi

INDEX_SEED, INDEX_CASES = 28, 30
PROGRAM_SEED, PROGRAM_CASES = 26, 200
#: the 4-rank job's cases of each (4 ranks share 2 cores: a case costs most there)
FOUR_RANK_INDEX_CASES, FOUR_RANK_PROGRAM_CASES = 12, 80


def index_cases(k: int) -> int:
    return FOUR_RANK_INDEX_CASES if k == 4 else INDEX_CASES


def program_cases(k: int) -> int:
    return FOUR_RANK_PROGRAM_CASES if k == 4 else PROGRAM_CASES


#: the rank counts whose job runs the distributed examples first
EXAMPLES_RANKS = (1, 2, 3)


@pytest.fixture(scope="module")
def examples_dirs(tmp_path_factory):
    """Where the examples of each rank count's job save their results."""
    return {k: tmp_path_factory.mktemp(f"examples-{k}") for k in EXAMPLES_RANKS}


@pytest.fixture(scope="module")
def job(examples_dirs):
    """The job of k ranks running this file's programs, launched once per k."""
    @functools.cache
    def run(k: int):
        examples = [("examples.py", str(examples_dirs[k]))] if k in EXAMPLES_RANKS else []
        return several(k, *examples,
                       ("tiles.py",), ("global_indexing.py",), ("global_view.py",),
                       ("global_index_property.py", str(INDEX_SEED + k), str(index_cases(k))),
                       ("dist_property.py", str(PROGRAM_SEED), str(program_cases(k))),
                       timeout=900)
    yield run
    run.cache_clear()


def assert_ran_all_cases(done, cases: int, k: int) -> None:
    """Every rank printed ``OK <rank> <cases>`` (a property program's last line)."""
    ranks = re.findall(rf"OK (\d+) {cases}(?!\d)", done.stdout)
    assert sorted(map(int, ranks)) == list(range(k)), done.stdout


@pytest.mark.parametrize("k", RANKS)
def test_tiled_arrays_and_distributed_primitives(k, job):
    assert_program_ok(job(k), "tiles.py", k)


@pytest.mark.parametrize("k", RANKS)
def test_global_indices_and_structure_ops_match_numpy(k, job):
    assert_program_ok(job(k), "global_indexing.py", k)


@pytest.mark.parametrize("k", RANKS)
def test_tiled_arrays_give_the_global_answer_or_a_located_error(k, job):
    assert_program_ok(job(k), "global_view.py", k)


@pytest.mark.parametrize("k", RANKS)
def test_random_index_expressions_match_numpy(k, job):
    done = job(k)
    assert_program_ok(done, "global_index_property.py", k)
    assert_ran_all_cases(done, index_cases(k), k)


@pytest.mark.parametrize("k", RANKS)
def test_random_distributed_programs_match_numpy(k, job):
    done = job(k)
    assert_program_ok(done, "dist_property.py", k)
    assert_ran_all_cases(done, program_cases(k), k)


@pytest.mark.parametrize("k", EXAMPLES_RANKS)
def test_distributed_examples_match_single_process_numpy(k, job, examples_dirs):
    done = job(k)
    assert_program_ok(done, "examples.py", k)
    for run, expected in expected_results(example_modules()).items():
        got = np.load(examples_dirs[k] / f"{run}.npz")
        for key, want in expected.items():
            # only the order of the sums differs from one process: rounding
            np.testing.assert_allclose(got[key], want, rtol=1e-9, atol=1e-12,
                                       err_msg=f"{run} {key} on {k} ranks")
    # rank 0 alone reports, with the accuracy of the whole data set (no other program
    # of the job prints these words)
    assert len(re.findall(r"accuracy: ", done.stdout)) == 2, done.stdout
    assert f"{k} localit" in done.stdout
