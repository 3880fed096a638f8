"""Issue 28, one ``mpiexec`` job per rank count (a launch costs 1-2 s), several checks each:

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

import functools

import pytest

from .test_mpi import assert_program_ok, several

pytestmark = pytest.mark.mpi

PROGRAMS = ("view_refresh.py", "plain_agreement.py")


@functools.cache
def job(k: int):
    return several(k, *[(p,) for p in PROGRAMS], timeout=120, OPENBLAS_NUM_THREADS="1")


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_a_gathered_view_sees_later_stores(k):
    assert_program_ok(job(k), "view_refresh.py", k)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_plain_operands_that_differ_between_ranks_are_a_located_error(k):
    assert_program_ok(job(k), "plain_agreement.py", k)
