"""Large collectives at MPI speed under ``mpiexec`` (``programs/collectives_overlap.py``):
a checked all_reduce's data starts with its header exchange and is waited for by its
waiter itself; disagreements in it are still located errors naming the ranks on every
rank (the channel renewed); all_gather of alike arrays without copies; and a rank killed
during a large all_reduce ends the job fast."""
from __future__ import annotations

import pytest

from .test_mpi import PROGRAMS, _line_of, assert_all_ok, program

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("k", (1, 3))
def test_large_collectives_overlap_and_still_agree(k):
    done, _ = program(k, "collectives_overlap.py", timeout=240)
    assert_all_ok(done, k)


def test_a_rank_killed_during_a_large_all_reduce_ends_the_job_fast():
    # guard: the others may be inside MPI_Wait for the data (the launcher ends the job)
    done, elapsed = program(2, "faults.py", "kill-large", timeout=60)
    assert done.returncode != 0 and elapsed < 15, (elapsed, done.stdout + done.stderr)


def test_a_rank_stopped_during_a_large_all_reduce_fails_the_others_by_the_timeout():
    # the others wait for the data in MPI_Wait, which nothing interrupts: past the
    # collective timeout they report the located error and end the job (they hung)
    done, elapsed = program(2, "faults.py", "stop-large", timeout=90,
                            PHYLANX_COLLECTIVE_TIMEOUT="3")
    output = done.stdout + done.stderr
    assert done.returncode != 0 and elapsed < 60, (elapsed, output)
    where = f"{PROGRAMS / 'faults.py'}:{_line_of('a stopped peer: waited for here')}"
    assert f"[rank 0] {where}" in output and "did not complete within 3 s" in output, output


@pytest.mark.parametrize("collective", ("all_reduce", "all_gather"))
def test_a_rank_whose_data_start_fails_ends_the_job_with_the_located_error(collective):
    # its header went out, so the others wait for its data in MPI_Wait (no cancel for a
    # collective): the job ends at once with the error located at the call, where the
    # others sat until the collective timeout (60 s) and the failing rank went on alone
    # (all_gather: its data waited for in MPI_Wait since ar44, _agreed_data)
    done, elapsed = program(2, "faults.py", "start-fails", collective, timeout=90)
    output = done.stdout + done.stderr
    assert done.returncode != 0 and elapsed < 30, (elapsed, output)
    where = f"{PROGRAMS / 'faults.py'}:{_line_of('a data start refused: here')}"
    assert f"[rank 1] {where}" in output and "went on" not in output, output
