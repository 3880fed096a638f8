"""benchmarks/distributed_allreduce.py's ``engine%`` is a share of calls: a collective the
progress engine took counts once, however many MPI requests it posted there (a checked
64 KiB all_reduce posts two, header and data: the column said 200%).  One rank, every
request handed to the engine at once (the express path's tests set to none)."""
from __future__ import annotations

import ast
import sys

import pytest

from ..distributed.test_mpi import launch

pytestmark = pytest.mark.mpi

PROGRAM = """
import numpy as np
from benchmarks import distributed_allreduce as bench
from phylanx import distributed as dist
from phylanx.distributed import collectives
from phylanx.distributed.mpi import MPI

comm = MPI().COMM_WORLD
shares = {}
for engine_takes_all in (False, True):
    if engine_takes_all:
        collectives._EXPRESS_POLLS, collectives._EXPRESS_SPIN = 0, 0.0
    for nbytes in (8, 65536):
        a = np.ones(nbytes // 8)
        dist.all_reduce(a, name="share").result()       # (the channel is made)
        handed = []
        bench._time(comm, lambda: dist.all_reduce(a, name="share").result(), 5, handed)
        shares[(engine_takes_all, nbytes)] = handed[0]
print("SHARES", shares, flush=True)
"""


def test_engine_share_counts_calls_not_requests():
    done, _ = launch(1, sys.executable, "-c", PROGRAM, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    line, = (ln for ln in done.stdout.splitlines() if ln.startswith("SHARES"))
    shares = ast.literal_eval(line[len("SHARES"):])
    # one rank: an 8-byte call completes on the calling thread; with no express tests the
    # engine takes every call, once each
    assert shares[(False, 8)] == 0.0, shares
    assert shares[(True, 8)] == 1.0 and shares[(True, 65536)] == 1.0, shares
