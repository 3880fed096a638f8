"""Issue 28, in the ``mpiexec`` job per rank count of
``test_one_rank_errors_and_inplace_mpi.py`` (a launch costs 1-2 s: no job of its own):

* a gathered copy standing for NumPy's view of a tiled array (``y = x[2]`` of row tiles)
  sees every later store into the array (``x[2, 0] = v``, ``x[...] = v``, ``x += 1``,
  another view changed in place, a store through a tiled view of the array), read by a
  primitive, returned, or read by NumPy in Python after a store from Python
  (``programs/view_refresh.py``; before: the old values, silently);
* a plain operand that differs between ranks meeting a tiled array is a located error
  on every rank naming it (``programs/plain_agreement.py``; before: a silently wrong
  answer).
"""
from __future__ import annotations

import re

import pytest

from .test_one_rank_errors_and_inplace_mpi import JOBS, job

pytestmark = pytest.mark.mpi


def assert_returned_everywhere(name: str, k: int) -> None:
    """``name`` returned on every rank (the job's last program ends it on purpose when
    k > 1: look at this one's DONE lines, as the job's own tests do)."""
    done = job(k)[0]
    finished = re.findall(rf"DONE {re.escape(name)} (\d+)\.", done.stdout)
    assert sorted(map(int, finished)) == list(range(k)), done.stdout + done.stderr


@pytest.mark.parametrize("k", sorted(JOBS))
def test_a_gathered_view_sees_later_stores(k):
    assert_returned_everywhere("view_refresh.py", k)


@pytest.mark.parametrize("k", sorted(JOBS))
def test_plain_operands_that_differ_between_ranks_are_a_located_error(k):
    assert_returned_everywhere("plain_agreement.py", k)
