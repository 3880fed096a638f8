"""What one ``mpiexec`` job per rank count checks (a launch costs 1-2 s):

* augmented assignments to tiled arrays give NumPy's answer (``programs/inplace_stores.py``:
  ``x[x > 2] *= 0.5``, ``x[idx] += v``, ``x[1:5] -= 1``, ``x += 1``; before, ``__inplace``
  refused a tiled operand);
* an error on one rank in work that sends no message is agreed by every rank
  (``distributed/one_rank_errors.py``, ``programs/one_rank_errors.py``): errors every
  rank meets are raised everywhere and caught in step (``alike``, a guard: it passed
  before too); an error only one rank meets, after which the others got a result, ends
  the job within seconds with one located message (before: the failing rank caught it
  and the ranks went on apart, silently or into a collective that hung until its
  timeout);
* an error every rank meets, one rank seconds after the others (longer than a remote
  call may take, ``remote_timeout``, within ``collective_timeout``), is still raised by
  every rank and caught in step (``lagging``, in the 2-rank job; before, the others
  took the late rank for one that went on and ended the job);
* so is an error every rank meets in one of two calls of a helper that the evaluation
  policy runs concurrently, the calls ending in another order on each rank
  (``concurrent``, in the 2-rank job; before, the ranks numbered the runs of the
  helper's product differently and the job ended);
* issue 28: a gathered copy standing for NumPy's view of a tiled array (``y = x[2]`` of
  row tiles) sees every later store into the array (``x[2, 0] = v``, ``x[...] = v``,
  ``x += 1``, another view changed in place, a store through a tiled view of the array),
  read by a primitive, returned, or read by NumPy in Python after a store from Python
  (``programs/view_refresh.py``; before: the old values, silently);
* a plain operand that differs between ranks meeting a tiled array is a located error
  on every rank naming it (``programs/plain_agreement.py``; before: a silently wrong
  answer).

(The issue 28 checks had a file of their own that imported this file's job: with
``--dist loadfile`` on the other worker, it launched the four jobs a second time.)
"""
from __future__ import annotations

import functools
import re
import time

import pytest

from .test_mpi import PROGRAMS, several

pytestmark = pytest.mark.mpi

SOURCE = (PROGRAMS / "one_rank_errors.py").read_text().splitlines()

#: rank count -> (what fails on one rank only, that rank, the line it fails at)
JOBS = {
    1: None,
    2: ("product", 1, "return a @ b"),
    3: ("store", 1, "a[1:3] = v"),
    4: ("broadcast", 3, "return a + v"),
}

#: the rank counts whose job also runs ``lagging`` (it costs the lag, 2 s) and
#: ``concurrent``
LAGGING = (2,)


@functools.cache
def job(k: int):
    """One job: the in-place stores, the errors every rank meets, then (k > 1) the
    error one rank meets, which ends it; (the output, the seconds it took)."""
    runs = [("inplace_stores.py",), ("view_refresh.py",), ("plain_agreement.py",),
            ("one_rank_errors.py", "alike")]
    if k in LAGGING:
        runs += [("one_rank_errors.py", "lagging"), ("one_rank_errors.py", "concurrent")]
    if JOBS[k] is not None:
        what, odd, _ = JOBS[k]
        runs.append(("one_rank_errors.py", what, str(odd)))
    start = time.monotonic()
    done = several(k, *runs, timeout=90, OPENBLAS_NUM_THREADS="1")
    return done, time.monotonic() - start


@pytest.mark.parametrize("k", sorted(JOBS))
def test_augmented_assignments_to_tiled_arrays_give_numpys_answer(k):
    done = job(k)[0]
    # (the job's last program ends it on purpose when k > 1: look at this one's DONE)
    finished = re.findall(r"DONE inplace_stores\.py (\d+)\.", done.stdout)
    assert sorted(map(int, finished)) == list(range(k)), done.stdout + done.stderr


@pytest.mark.parametrize("k", sorted(k for k in JOBS if JOBS[k] is not None))
def test_an_error_on_one_rank_only_ends_the_job_with_one_located_message(k):
    done, elapsed = job(k)
    what, odd, failing_line = JOBS[k]
    output = done.stdout + done.stderr
    in_step = 4 if k in LAGGING else 2      # inplace_stores, alike (lagging, concurrent)
    assert sorted(re.findall(r"OK \d+", done.stdout)) == sorted(
        [f"OK {r}" for r in range(k)] * in_step), output
    # within seconds: a collective waiting for the failing rank would take 60 s
    assert done.returncode != 0 and "WENT ON" not in output and elapsed < 45, \
        (elapsed, output)
    line = next(i for i, text in enumerate(SOURCE, 1) if failing_line in text)
    located = f"[rank {odd}] {PROGRAMS / 'one_rank_errors.py'}:{line}:"
    reports = [text for text in output.splitlines() if text.startswith("[rank ")]
    assert len(reports) == 1 and reports[0].startswith(located), output
    assert f"on locality {odd} only" in reports[0], output


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
