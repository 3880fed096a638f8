"""Without a launcher: locality 0 of 1, no mpi4py import, the API still answers."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import phylanx
from phylanx import distributed as dist
from phylanx.distributed.bootstrap import launched_by_mpi

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("env, expected", [
    ({}, False),
    ({"PMI_RANK": "0", "PMI_SIZE": "2"}, True),
    ({"PMIX_RANK": "0"}, True),
    ({"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "4"}, True),
    ({"SLURM_PROCID": "0", "SLURM_NTASKS": "1"}, False),   # a serial srun step
    ({"SLURM_PROCID": "0", "SLURM_NTASKS": "4"}, True),
    ({"PMI_RANK": "0", "PHYLANX_MPI": "0"}, False),
    ({"PHYLANX_MPI": "1"}, True),
])
def test_launcher_detection(env, expected):
    assert launched_by_mpi(env) is expected


def test_import_and_evaluate_do_not_import_mpi4py():
    code = ("import sys, phylanx\n"
            "assert phylanx.evaluate('list(find_here(), num_localities(), all_reduce(2))')"
            " == [0, 1, 2]\n"
            "from phylanx import distributed\n"
            "assert distributed.all_gather(5).result() == [5]\n"
            "print('mpi4py' in sys.modules)\n")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PMI", "OMPI_", "SLURM_", "PHYLANX_MPI"))}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_api_in_one_process():
    assert (dist.find_here(), dist.num_localities(), dist.find_all_localities()) == (0, 1, [0])
    assert dist.all_reduce(np.arange(3), "max").result().tolist() == [0, 1, 2]
    assert dist.broadcast("x").result() == "x" and dist.gather(1).result() == [1]
    assert dist.scatter([7]).result() == 7 and dist.barrier().result() is None
    assert dist.run_on(0, max, 2, 5).result() == 5
    dist.register_function("twice", lambda x: 2 * x)
    assert dist.run_on(0, "twice", 4).result() == 8
    dist.register_array("a", np.arange(6))
    assert dist.get_remote(0, "a", slice(1, 3)).result().tolist() == [1, 2]
    with pytest.raises(dist.PhylanxRemoteError, match="does not exist"):
        dist.run_on(1, max, 1, 2)
    with pytest.raises(phylanx.PhylanxError):
        dist.get_remote(0, "missing")


def test_placed_calls_in_one_process():
    assert phylanx.evaluate("block(define(f, x, x + 1), f{L#0}(1))") == 2
    assert phylanx.evaluate("block(define{L#0}(v, 3), v * 2)") == 6
    with pytest.raises(phylanx.PhylanxCompileError, match="does not exist"):
        phylanx.evaluate("block(define(f, x, x), f{L#1}(1))")
    with pytest.raises(phylanx.PhylanxCompileError, match="top level"):
        phylanx.evaluate("block(define(g, y, block(define(h, x, x), h{L#0}(y))), g(1))")


@pytest.mark.parametrize("kind", [KeyboardInterrupt, SystemExit])
def test_run_on_here_does_not_store_an_interrupt(kind):
    def stop():
        raise kind()

    # raised in the caller (which ran ``stop``), not stored in a future nobody may read
    with pytest.raises(kind):
        dist.run_on(0, stop)
    with pytest.raises(ZeroDivisionError):          # an ordinary error is delivered
        dist.run_on(0, lambda: 1 / 0).result(timeout=2)
