"""What the digests of plain operands cost (issue 28, ``agreement.operand_digest``).

    python benchmarks/plain_digest.py [--ranks 2] [--repeat 5] [--samples 50000]

Launches itself under the mpiexec next to this Python (one BLAS thread per rank) and
times, side by side in one run, alternating so that load changes hit both alike:

* ``examples/lra.py``'s ``lra`` (unchanged) on row-tiled data: every iteration's
  ``np.dot(x, weights)`` meets a plain ``weights`` (and scalars meet tiled arrays), so
  the rule digests them and the next message carries the digests; beside it the same
  calls with the digests switched off (``darray.plain_operands`` returning nothing, a
  benchmark-only patch);
* ``operand_digest`` alone on arrays of 8 elements to 8 M (rank 0).

Prints the slowest rank's min and median seconds of each and the ratio with / without.
Results are printed, never written: a run on a loaded machine says so (load average).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "examples"))


def worker(args) -> None:
    from lra import lra
    from mpi4py import MPI

    from phylanx import distributed as dist
    from phylanx.distributed import darray
    from phylanx.distributed.agreement import operand_digest
    warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)
    comm = MPI.COMM_WORLD
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.samples, args.features))
    y = (x @ rng.standard_normal(args.features) > 0).astype(float)
    alpha = 2.0 / args.samples
    tx, ty = dist.tiled(x, "row", name="digest_x"), dist.tiled(y, "row", name="digest_y")
    digesting = darray.plain_operands

    def without(*_args):
        return ()

    def timed(switch) -> float:
        darray.plain_operands = switch
        try:
            comm.Barrier()
            start = time.perf_counter()
            lra(tx, ty, alpha, args.iterations, False)
            return comm.allreduce(time.perf_counter() - start, op=MPI.MAX)
        finally:
            darray.plain_operands = digesting

    for switch in (digesting, without):     # translate, compile, warm the loop
        timed(switch)
    runs: dict[str, list[float]] = {"with digests": [], "without": []}
    for _ in range(args.repeat):
        runs["with digests"].append(timed(digesting))
        runs["without"].append(timed(without))
    if comm.rank == 0:
        load = os.getloadavg()
        print(f"ranks {comm.size}, lra {args.samples} x {args.features}, "
              f"{args.iterations} iterations; load average {load[0]:.1f} "
              f"({'LOADED' if load[0] > 0.5 * (os.cpu_count() or 1) else 'idle'})")
        for name, times in runs.items():
            print(f"  {name:13s} min {min(times):.4f} s  median {statistics.median(times):.4f} s")
        ratio = min(runs["with digests"]) / min(runs["without"])
        print(f"  ratio with / without (min): {ratio:.3f}")
        for size in (8, 4096, 65536, 1 << 20, 1 << 23):
            a = rng.standard_normal(size)
            count = max(3, min(2000, (1 << 24) // size))
            start = time.perf_counter()
            for _ in range(count):
                operand_digest(a)
            each = (time.perf_counter() - start) / count
            print(f"  operand_digest of {size:>8} float64: {each * 1e6:9.1f} us "
                  f"({a.nbytes / each / 1e9:.2f} GB/s)")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--samples", type=int, default=50_000)
    ap.add_argument("--features", type=int, default=100)
    ap.add_argument("--iterations", type=int, default=50)
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
