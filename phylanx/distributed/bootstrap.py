"""Decides, without importing MPI, whether this process is one rank of a launched job.

``import phylanx`` imports this module (one line in ``phylanx/__init__.py``) so the
runtime's locality factory is in place before anything asks ``here()``.  A process
that no launcher started stays a ``SingleLocality`` and never loads mpi4py; one that
``mpiexec``/``srun``/``phylanx run`` started becomes an MPI locality at first use.
"""
from __future__ import annotations

import os

from ..runtime import locality

#: (rank variable, size variable) set by the launchers we know: MPICH/Intel (hydra,
#: PMI-1/2), PMIx (Open MPI 5, srun --mpi=pmix), Open MPI's own, Slurm's srun
_LAUNCHER_VARIABLES = (
    ("PMI_RANK", "PMI_SIZE"),
    ("PMIX_RANK", "PMIX_SIZE"),
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
    ("MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
    ("SLURM_PROCID", "SLURM_NTASKS"),
)

#: set by ``phylanx run`` (and honoured everywhere): "1" forces MPI, "0" forbids it
FORCE_VARIABLE = "PHYLANX_MPI"


def launched_by_mpi(environ: dict[str, str] | None = None) -> bool:
    """True if a launcher started this process as one of several (or forced by PHYLANX_MPI).

    ``PMIX_RANK`` alone is enough (Open MPI 5 starts even one rank through PMIx), but a
    Slurm step of one task is a plain process: ``SLURM_PROCID`` is set for every job
    step, including a serial ``srun python``.
    """
    env = os.environ if environ is None else environ
    forced = env.get(FORCE_VARIABLE, "").strip()
    if forced in ("0", "1"):
        return forced == "1"
    for rank_var, size_var in _LAUNCHER_VARIABLES:
        if rank_var not in env:
            continue
        if rank_var == "SLURM_PROCID":
            return _as_int(env.get(size_var)) > 1
        return True
    return False


def _as_int(text: str | None) -> int:
    try:
        return int(text or "0")
    except ValueError:
        return 0


def _make_locality() -> locality.Locality:
    if launched_by_mpi():
        from .mpi_locality import MPILocality  # imports mpi4py: only in launched jobs
        return MPILocality.start()
    return locality.SingleLocality()


locality.set_locality_factory(_make_locality)

# Ranks create their communicators collectively, so all must do it at the same point
# of the program: at import, before any rank can wait for another in a collective.
if launched_by_mpi():
    locality.here()
