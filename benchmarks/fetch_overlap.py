"""``dot_d`` with its fetch overlapped against fetch-then-multiply, side by side in one run.

    OPENBLAS_NUM_THREADS=1 mpiexec -n 2 python benchmarks/fetch_overlap.py [--n 2000]
                                                                         [--repeat 5]

Row-tiled ``a`` times column-tiled ``b`` (``benchmarks/distributed.py``'s ``dot_d``): each
rank needs all of ``b``.  Interleaved in one process, so both meet the same load:

* ``fetch, then multiply``: what ``dot_d`` did before ``distributed/overlapped_fetch.py``
  (``tiles.fetch`` of the whole ``b``, every piece waited for, then ``a.local @ b``),
  one lockstep operation as ``dot_d`` is;
* ``overlapped``: ``dot_d`` now (the local columns multiplied while the remote ones
  travel, then each remote piece as it arrives).

Prints the slowest rank's wall seconds (min and median of ``--repeat``), the ratio,
the load average and whether the results agree.  No results file.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="matrix side")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs of each")
    args = ap.parse_args()

    from phylanx import distributed as dist
    from phylanx.distributed import lockstep, tiles
    from phylanx.distributed.mpi import MPI
    from phylanx.distributed.primitives.dist_matrixops.products import dot_d, row_product
    comm = MPI().COMM_WORLD.Dup()
    rng = np.random.default_rng(1)
    whole_a, whole_b = rng.random((args.n, args.n)), rng.random((args.n, args.n))
    a = dist.tiled(whole_a, "row", name="fo_a")
    b = dist.tiled(whole_b, "column", name="fo_b")

    def fetch_then_multiply():
        with lockstep.operation(lockstep.label_of("fetch_then_multiply", (a, b))):
            fetched = tiles.fetch(b.local, b.layout, [tuple((0, n) for n in b.shape)])[0]
            return row_product(a, fetched)

    peers = {"fetch, then multiply": fetch_then_multiply, "overlapped": lambda: dot_d(a, b)}
    times: dict[str, list[float]] = {name: [] for name in peers}
    results = {name: fn() for name, fn in peers.items()}      # warm-up
    for _ in range(args.repeat):
        for name, fn in peers.items():
            comm.Barrier()
            start = time.perf_counter()
            fn()
            times[name].append(comm.allreduce(time.perf_counter() - start, op=MPI().MAX))
    agree = np.array_equal(results["overlapped"].gather(),
                           results["fetch, then multiply"].gather())
    if comm.rank == 0:
        load = os.getloadavg()[0]
        print(f"dot_d {args.n} x {args.n}, {comm.size} localities, row x column tiles; "
              f"{'LOADED' if load > 0.5 else 'idle'}: load average {load:.2f}")
        for name, ts in times.items():
            print(f"  {name:22s} min {min(ts):.3f} s, median {statistics.median(ts):.3f} s")
        before, after = (min(times[n]) for n in peers)
        print(f"  fetch-then-multiply / overlapped: {before / after:.2f}x (min); "
              f"results identical: {agree}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
