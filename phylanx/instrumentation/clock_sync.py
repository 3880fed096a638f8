"""Aligning the ranks' clocks: a few ping-pongs between each rank and rank 0.

Rank ``r`` sends a ping at ``t1`` (its clock), rank 0 answers with its clock
``t2``, the answer arrives at ``t3``; assuming the two halves of the round trip
take as long, rank 0's clock read ``t2`` when rank ``r``'s read ``(t1 + t3) / 2``.
The round with the shortest trip gives the offset (its error is at most half that
trip, which is stored with it).  Rank 0 also sends the start of its recording,
the zero of the merged time axis.
"""
from __future__ import annotations

from time import perf_counter_ns as clock
from typing import Any

_TAG = 7_707


def synchronize(comm: Any, ref_ns: int, rounds: int = 8) -> tuple[int, int, int]:
    """``(offset_ns, rank 0's ref_ns, round trip ns)``: add the offset to this rank's
    clock to read rank 0's.  Every rank of ``comm`` must call it."""
    from ..distributed.mpi import mpi_lock
    rank, size = comm.Get_rank(), comm.Get_size()
    with mpi_lock():   # (a real lock only when the MPI library is not thread-multiple)
        if rank == 0:
            for other in range(1, size):
                for _ in range(rounds):
                    comm.recv(source=other, tag=_TAG)
                    comm.send(clock(), dest=other, tag=_TAG)
            comm.bcast(ref_ns, root=0)
            return 0, ref_ns, 0
        best = None
        for _ in range(rounds):
            t1 = clock()
            comm.send(None, dest=0, tag=_TAG)
            t2 = comm.recv(source=0, tag=_TAG)
            t3 = clock()
            sample = (t3 - t1, t2 - (t1 + t3) // 2)
            if best is None or sample[0] < best[0]:
                best = sample
        ref = comm.bcast(None, root=0)
        return best[1], ref, best[0]
