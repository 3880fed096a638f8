"""How a benchmark relaunches itself on N localities: one helper for every script.

A distributed benchmark is one file that runs twice: as the launcher (what the user
types) and, under ``mpiexec -n N``, as the worker on every rank.  The launcher's part is
always the same, and lives here:

* the ``mpiexec`` next to this Python (``phylanx.cli.run.find_mpiexec``: the one of the
  ``mpich`` wheel in the venv), or a clear exit when there is none;
* one BLAS/OpenMP/numba thread per rank (``OPENBLAS_NUM_THREADS=1`` ...), so that 2 ranks
  use 2 cores rather than 2 x 2 threads competing for them;
* ``PYTHONPATH`` led by this checkout (and ``benchmarks/``, for the shared workloads), so
  the ranks import the phylanx being measured, not an installed one;
* a timeout on the whole job: a hung rank ends the benchmark instead of the session;
* more ranks than cores allowed: Open MPI refuses them without ``--oversubscribe``, MPICH
  has no such flag and needs none (the benchmark says that such a run is oversubscribed).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
ROOT = BENCHMARKS.parent

#: a thread count of 1 for every BLAS/OpenMP library a rank may load, and numba's pool
#: (phylanx's compiled parallel loops: 2 ranks with 2 numba threads each oversubscribe
#: 2 cores, and a rank's process time counts its pool's spinning)
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "NUMBA_NUM_THREADS": "1"}


def mpiexec() -> str:
    """The launcher to use, or exit with how to get one."""
    from phylanx.cli.run import find_mpiexec
    found = find_mpiexec()
    if found is None:
        sys.exit("no mpiexec: pip install 'phylanx[mpi]'")
    return found


def rank_env(**extra: str) -> dict[str, str]:
    """This process's environment for the ranks: one thread each, this checkout first."""
    path = [str(ROOT), str(BENCHMARKS), os.environ.get("PYTHONPATH", "")]
    return dict(os.environ, **ONE_THREAD, **extra,
                PYTHONPATH=os.pathsep.join(p for p in path if p))


def run_ranks(script: str, ranks: int, args: list[str], *, capture: bool = False,
              timeout: float = 1800, env: dict[str, str] | None = None,
              ) -> subprocess.CompletedProcess:
    """``mpiexec -n ranks python script args``; with ``capture`` its output as text.

    Without ``capture`` a failing job raises (``check=True``): its ranks have printed
    their error already.  With it the caller reads the output and decides.
    """
    launcher = mpiexec()
    command = [launcher, "-n", str(ranks), *_oversubscribe_flag(launcher, ranks),
               sys.executable, str(script), *args]
    return subprocess.run(command, env=env if env is not None else rank_env(),
                          check=not capture, capture_output=capture,
                          text=capture, timeout=timeout)


def _oversubscribe_flag(launcher: str, ranks: int) -> list[str]:
    """``--oversubscribe`` when Open MPI would refuse ``ranks`` on this machine's cores."""
    if ranks <= (os.cpu_count() or 1):
        return []
    probe = subprocess.run([launcher, "--version"], capture_output=True, text=True, timeout=30)
    return ["--oversubscribe"] if "open mpi" in (probe.stdout + probe.stderr).lower() else []
