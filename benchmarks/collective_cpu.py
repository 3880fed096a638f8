"""CPU time per collective of the calling thread, beside raw mpi4py, in one run.

Run on ONE rank (``mpiexec -n 1 python benchmarks/collective_cpu.py``): MPI completes a
request at its first test there, so the calling thread's CPU time is phylanx's own path
(Python, copies, page faults), not waiting for other ranks; and it resists a loaded
machine better than wall time.  Each case: the best, over ``--rounds`` interleaved
rounds, of the mean thread CPU time of a loop of calls; ratio = phylanx / raw mpi4py of
the same size (``Allreduce`` for all of them: on one rank every raw collective is a copy).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from phylanx import distributed as dist
from phylanx.distributed.mpi import MPI


def cases(comm) -> dict:
    small, large = np.ones(1), np.ones(1 << 17)       # 8 B, 1 MiB
    out_small, out_large = np.empty_like(small), np.empty_like(large)
    return {
        "all_reduce 8 B": lambda: dist.all_reduce(small, name="a").result(),
        "all_reduce 8 B unchecked": lambda: dist.all_reduce(small, name="au",
                                                            check=False).result(),
        "broadcast 8 B": lambda: dist.broadcast(small, 0, name="b").result(),
        "broadcast 8 B unchecked": lambda: dist.broadcast(small, 0, name="bu",
                                                          check=False).result(),
        "all_gather 8 B": lambda: dist.all_gather(small, name="g").result(),
        "raw 8 B": lambda: comm.Allreduce(small, out_small),
        "all_reduce 1 MiB": lambda: dist.all_reduce(large, name="A").result(),
        "all_reduce 1 MiB unchecked": lambda: dist.all_reduce(large, name="AU",
                                                              check=False).result(),
        "broadcast 1 MiB": lambda: dist.broadcast(large, 0, name="B").result(),
        "all_gather 1 MiB": lambda: dist.all_gather(large, name="G").result(),
        "raw 1 MiB": lambda: comm.Allreduce(large, out_large),
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=2000, help="per loop at 8 B (1 MiB: a tenth)")
    args = ap.parse_args(argv)
    comm = MPI().COMM_WORLD.Dup()
    if comm.Get_size() != 1:
        ap.error("run on one rank: mpiexec -n 1")
    timed = cases(comm)
    best = {name: float("inf") for name in timed}
    for call in timed.values():
        for _ in range(20):
            call()      # (communicators, plans, first-touch pages)
    for _ in range(args.rounds):
        for name, call in timed.items():
            count = args.calls if "8 B" in name else max(1, args.calls // 10)
            start = time.thread_time()
            for _ in range(count):
                call()
            best[name] = min(best[name], (time.thread_time() - start) / count)
    print(f"{'case':>28} {'CPU us':>8} {'ratio':>6}")
    for name, seconds in best.items():
        raw = best["raw 8 B" if "8 B" in name else "raw 1 MiB"]
        print(f"{name:>28} {seconds * 1e6:8.2f} {seconds / raw:6.2f}")


if __name__ == "__main__":
    main()
