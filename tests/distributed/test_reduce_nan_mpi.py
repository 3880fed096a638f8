"""Two checks one ``mpiexec`` job per rank count runs (``programs/several.py``; a launch
costs 1-2 s):

* min/max reductions propagate NaN as NumPy's do (and order complex numbers as NumPy does;
  a bitwise op of floats is NumPy's TypeError), small or large, under ``mpiexec -n 2``
  and ``-n 3`` (``programs/reduce_nan.py``): MPI's own MIN/MAX keep whichever operand
  the comparison picks, so a NaN vanished when the array went to MPI;
* a caught disagreement between ranks whose large all_reduces started their data with
  the header (of two layouts) and a rank that started none leaves no request pending:
  the job ends with status 0 (``programs/caught_mismatch.py``, in the 3-rank job, run
  last so that the job's exit is the one right after it).
"""
from __future__ import annotations

import functools
import re

import pytest

from .test_mpi import assert_program_ok, several

pytestmark = pytest.mark.mpi

#: rank count -> the programs its job runs, in order
JOBS = {
    2: ("reduce_nan.py",),
    3: ("reduce_nan.py", "caught_mismatch.py"),
}


@functools.cache
def job(k: int):
    return several(k, *[(name,) for name in JOBS[k]], timeout=240)


def assert_ok_on_every_rank(done, name: str, k: int) -> None:
    """``name`` finished on every rank, and each rank printed one ``OK <rank>`` (each
    program's last line) for each program it finished."""
    assert_program_ok(done, name, k)
    finished = re.findall(r"DONE \S+\.py (\d+)\.", done.stdout)
    said_ok = re.findall(r"OK (\d+)", done.stdout)
    assert sorted(said_ok) == sorted(finished), done.stdout + done.stderr


@pytest.mark.parametrize("k", sorted(JOBS))
def test_min_max_propagate_nan(k):
    assert_ok_on_every_rank(job(k), "reduce_nan.py", k)


def test_a_caught_mismatch_of_two_speculated_layouts_exits_cleanly():
    done = job(3)
    assert_ok_on_every_rank(done, "caught_mismatch.py", 3)
    assert done.returncode == 0, done.stdout + done.stderr
