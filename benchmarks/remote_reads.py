"""``get_remote`` of a large tile against the same bytes sent by hand with mpi4py.

    OPENBLAS_NUM_THREADS=1 mpiexec -n 2 python benchmarks/remote_reads.py [--mb 64]
                                                                         [--repeat 7]

Every rank registers a float64 tile of ``--mb`` megabytes (``dist.register_array``,
``unchanged=True`` as the fetches of ``dot_d`` and ``conv1d_d`` do)
and reads the other's (rank ``r`` reads rank ``r + 1``'s, cyclically) at the same
time, as ``dot_d`` of row x column tiles fetches the other ranks' columns of ``b``;
beside it, interleaved so both meet the same load, the peer: ``Sendrecv`` of the same
bytes into a new array (what a hand-written program sends).  Prints the slowest
rank's wall and the busiest rank's CPU milliseconds (min and median), the ratio
phylanx / mpi4py and the load average; the data read is checked.  No results file.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=64.0, help="tile size in megabytes")
    ap.add_argument("--repeat", type=int, default=7, help="timed reads of each")
    args = ap.parse_args()

    from phylanx import distributed as dist
    from phylanx.distributed.mpi import MPI
    comm = MPI().COMM_WORLD.Dup()
    rank, size = comm.rank, comm.size
    if size < 2:
        raise SystemExit("run with mpiexec -n 2 (or more)")
    source, target = (rank + 1) % size, (rank - 1) % size
    rows = max(1, int(args.mb * 2 ** 20 / 8 / 1000))
    tile = np.random.default_rng(rank).normal(size=(rows, 1000))
    # unchanged while registered, as the tiles dot_d and conv1d_d fetch are
    dist.register_array("remote_reads/tile", tile, unchanged=True)
    comm.Barrier()

    def phylanx():
        return dist.get_remote(source, "remote_reads/tile").result(timeout=600)

    def by_hand():
        got = np.empty_like(tile)
        comm.Sendrecv(tile, target, 5, got, source, 5)
        return got

    want = np.random.default_rng(source).normal(size=tile.shape)
    times = {"phylanx": ([], []), "mpi4py": ([], [])}
    for _ in range(args.repeat):
        for name, read in (("phylanx", phylanx), ("mpi4py", by_hand)):
            comm.Barrier()
            wall, cpu = time.perf_counter(), time.process_time()
            got = read()
            comm.Barrier()
            times[name][0].append(comm.allreduce(time.perf_counter() - wall, op=MPI().MAX))
            times[name][1].append(comm.allreduce(time.process_time() - cpu, op=MPI().MAX))
            assert np.array_equal(got, want), name
    if rank == 0:
        load = os.getloadavg()[0]
        print(f"{size} ranks, each reads a {tile.nbytes / 2 ** 20:.0f} MB tile; load average "
              f"{load:.2f} ({'LOADED' if load > 0.5 else 'idle'}); ms, min / median")
        for name, (walls, cpus) in times.items():
            ms = [f"{min(v) * 1e3:7.1f} / {statistics.median(v) * 1e3:7.1f}"
                  for v in (walls, cpus)]
            print(f"  {name:8s} wall {ms[0]}   CPU {ms[1]}")
        ratio = min(times["phylanx"][0]) / min(times["mpi4py"][0])
        print(f"  phylanx / mpi4py (wall, min): {ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
