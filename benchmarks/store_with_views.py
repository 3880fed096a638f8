"""What a store into a tiled array costs while a gathered view copy lives (issue 28,
``view_copies.refresh``: one all_gather per store while any copy is registered).

    python benchmarks/store_with_views.py [--ranks 2] [--repeat 3] [--stores 400]

Launches itself under the mpiexec next to this Python and times, side by side in one
run and alternating, the loop ``for i in range(n): x[i % rows, 0] = float(i)`` into a
row-tiled 64 x 64 array, from Python and inside ``@Phylanx``, with no gathered copy
alive and with one (``y = x[2]`` held).  Prints the slowest rank's median microseconds
per store and the ratio with / without.  To compare with the code before the refresh,
run it with ``PYTHONPATH`` pointing at that tree.  Results are printed, never written.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings

import numpy as np


def worker(args) -> None:
    from mpi4py import MPI

    from phylanx import Phylanx
    from phylanx import distributed as dist
    warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)
    comm = MPI.COMM_WORLD
    whole = np.zeros((64, 64))

    def stores(x, n):
        for i in range(n):
            x[i % 64, 0] = 1.0

    def stores_holding_a_view(x, n):
        y = x[2]
        for i in range(n):
            x[i % 64, 0] = 1.0
        return y

    compiled = {False: Phylanx(stores), True: Phylanx(stores_holding_a_view)}

    def timed(where: str, view: bool, count: int) -> float:
        x = dist.tiled(whole, "row", name=f"stores_{where}_{view}")
        held = x[2] if view and where == "python" else None
        comm.Barrier()
        start = time.perf_counter()
        if where == "python":
            stores(x, count)
        else:
            compiled[view](x, count)
        elapsed = comm.allreduce(time.perf_counter() - start, op=MPI.MAX)
        del held
        return elapsed / count * 1e6

    for where in ("python", "phylanx"):     # translate, compile, warm
        for view in (False, True):
            timed(where, view, 4)
    runs: dict[tuple[str, bool], list[float]] = {}
    for _ in range(args.repeat):
        for where in ("python", "phylanx"):
            for view in (False, True):
                runs.setdefault((where, view), []).append(timed(where, view, args.stores))
    if comm.rank == 0:
        load = os.getloadavg()
        print(f"ranks {comm.size}, {args.stores} stores; load average {load[0]:.1f} "
              f"({'LOADED' if load[0] > 0.5 * (os.cpu_count() or 1) else 'idle'})")
        for where in ("python", "phylanx"):
            without = statistics.median(runs[(where, False)])
            with_view = statistics.median(runs[(where, True)])
            print(f"  {where:8s} no view {without:8.1f} us/store   one live view "
                  f"{with_view:8.1f} us/store   ratio {with_view / without:.1f}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--stores", type=int, default=400)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args)
        return
    from mpi_launch import run_ranks
    run_ranks(__file__, args.ranks,
              ["--worker", *(argv if argv is not None else sys.argv[1:])])


if __name__ == "__main__":
    main()
