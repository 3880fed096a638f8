"""Every rank fails at once when one cannot pickle its value, and a channel goes on, in
step, after one rank's collective timed out (``programs/collectives_after_timeout.py``,
one ``mpiexec -n 2`` launch): the persistent header exchange must not be replaced on one
rank alone."""
from __future__ import annotations

import re

import pytest

from .test_mpi import program

pytestmark = pytest.mark.mpi


def test_channel_in_step_after_a_timeout():
    done, _ = program(2, "collectives_after_timeout.py", timeout=120)
    # (a collective timed out: the job ends by MPI_Abort, whatever the results)
    assert sorted(re.findall(r"OK \d+", done.stdout)) == ["OK 0", "OK 1"], \
        done.stdout + done.stderr
