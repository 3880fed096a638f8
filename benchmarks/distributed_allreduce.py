"""all_reduce of phylanx against raw mpi4py, 8 B to 64 MiB, and where the time goes.

Run under a launcher with 2 ranks (``benchmarks/distributed.py`` does it for you)::

    mpiexec -n 2 python benchmarks/distributed_allreduce.py [--json FILE] [--repeat 5]

For each size (8 B, then 16 B * 4**k up to 64 MiB: float64 buffers) it times, in the
same run and interleaved (so that load from other processes hits all alike):

* ``phylanx``: ``phylanx.distributed.all_reduce(a).result()`` (header check on, the
  default), and ``phylanx_nocheck`` (setting ``check_collectives`` off);
* ``raw``: ``comm.Allreduce(a, out)`` of mpi4py on a duplicate of COMM_WORLD, with a
  preallocated ``out`` (phylanx allocates its result each call).

At 8 B it also splits the phylanx call into parts (``profile``): returning the future
(``submit``), raw ``Iallreduce`` + ``Wait`` and + a ``Test`` loop (what a non-blocking
collective costs before any engine), and the engine's bookkeeping (the rest).
Rank 0 prints a table and writes the JSON.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from phylanx import config
from phylanx import distributed as dist
from phylanx.distributed.mpi import MPI
from phylanx.runtime.locality import here

SIZES = [8] + [16 * 4 ** k for k in range(12)]          # 8 B ... 64 MiB
TARGET_SECONDS = 0.25   # per measurement: enough calls to average the noise out


def _calls_for(comm, seconds_per_call: float) -> int:
    """The same number of calls on every rank (rank 0's estimate, broadcast)."""
    count = max(3, min(20000, int(TARGET_SECONDS / max(seconds_per_call, 1e-7))))
    return int(comm.bcast(count, root=0))


def _time(comm, call, count: int) -> float:
    """Seconds per call: the slowest rank's average over ``count`` calls."""
    comm.Barrier()
    start = time.perf_counter()
    for _ in range(count):
        call()
    elapsed = (time.perf_counter() - start) / count
    return comm.allreduce(elapsed, op=MPI().MAX)


def sweep(comm, repeat: int) -> list[dict]:
    rows = []
    for nbytes in SIZES:
        a = np.full(nbytes // 8, 1.0)
        out = np.empty_like(a)
        variants = {
            "phylanx": lambda a=a: dist.all_reduce(a, "sum", name="bench").result(),
            "phylanx_nocheck": lambda a=a: dist.all_reduce(a, "sum", name="bench").result(),
            "raw": lambda a=a, out=out: comm.Allreduce(a, out, op=MPI().SUM),
        }
        # warm up every path (communicators, first-touch pages), then size the loops
        for name, call in variants.items():
            _set_check(comm, name != "phylanx_nocheck")
            call()
        probe = time.perf_counter()
        variants["phylanx"]()
        count = _calls_for(comm, time.perf_counter() - probe)
        samples: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(repeat):
            for name, call in variants.items():
                _set_check(comm, name != "phylanx_nocheck")
                samples[name].append(_time(comm, call, count))
        _set_check(comm, True)
        assert np.allclose(dist.all_reduce(a, name="bench").result(), comm.Get_size())
        row = {"bytes": nbytes, "calls": count}
        for name, values in samples.items():
            row[name] = {"min_us": min(values) * 1e6,
                         "median_us": statistics.median(values) * 1e6}
        for name in ("phylanx", "phylanx_nocheck"):
            row[f"ratio_{name}"] = {k: row[name][k] / row["raw"][k]
                                    for k in ("min_us", "median_us")}
        row["bandwidth_GBps"] = {name: nbytes / (row[name]["min_us"] * 1e-6) / 1e9
                                 for name in variants}
        rows.append(row)
        if comm.Get_rank() == 0:
            print(_line(row), flush=True)
    return rows


def _set_check(comm, on: bool) -> None:
    """Every rank switches the header check at the same point (between collectives)."""
    comm.Barrier()
    config.set("check_collectives", on)


def profile(comm, repeat: int, count: int = 2000) -> dict:
    """Where the time of an 8-byte all_reduce goes (microseconds per call, medians)."""
    a, out = np.ones(1), np.empty(1)
    world = comm

    def submit_only():
        # the futures are collected after the loop: only the submission is timed here
        futures.append(dist.all_reduce(a, "sum", name="profile"))

    engine = here().engine

    def spin_wait():
        # the waiter polls the engine without ever sleeping: what remains is the
        # engine's own cost; the difference to phylanx_nocheck is Future.result()'s
        # 1 ms event.wait after a poll that completed nothing
        future = dist.all_reduce(a, "sum", name="profile")
        while not future.done():
            engine.poll()
        future.result()

    def iallreduce_wait():
        world.Iallreduce(a, out, op=MPI().SUM).Wait()

    def iallreduce_test():
        request = world.Iallreduce(a, out, op=MPI().SUM)
        while not request.Test():
            pass

    parts: dict[str, list[float]] = {k: [] for k in (
        "submit", "phylanx_nocheck", "phylanx_nocheck_spinwait", "phylanx", "raw_allreduce",
        "raw_iallreduce_wait", "raw_iallreduce_test")}
    for _ in range(repeat):
        _set_check(comm, False)
        futures: list = []
        comm.Barrier()
        start = time.perf_counter()
        for _ in range(count):
            submit_only()
        parts["submit"].append((time.perf_counter() - start) / count)
        for f in futures:
            f.result()
        parts["phylanx_nocheck"].append(_time(
            comm, lambda: dist.all_reduce(a, "sum", name="profile").result(), count))
        parts["phylanx_nocheck_spinwait"].append(_time(comm, spin_wait, count))
        _set_check(comm, True)
        parts["phylanx"].append(_time(
            comm, lambda: dist.all_reduce(a, "sum", name="profile").result(), count))
        parts["raw_allreduce"].append(_time(comm, lambda: comm.Allreduce(a, out), count))
        parts["raw_iallreduce_wait"].append(_time(comm, iallreduce_wait, count))
        parts["raw_iallreduce_test"].append(_time(comm, iallreduce_test, count))
    result = {k: {"min_us": min(v) * 1e6, "median_us": statistics.median(v) * 1e6}
              for k, v in parts.items()}
    med = {k: v["median_us"] for k, v in result.items()}
    result["derived_median_us"] = {
        "header_check": med["phylanx"] - med["phylanx_nocheck"],
        "nonblocking_vs_blocking_mpi": med["raw_iallreduce_test"] - med["raw_allreduce"],
        "waiter_sleeps_in_future_result": med["phylanx_nocheck"]
        - med["phylanx_nocheck_spinwait"],
        "engine_bookkeeping": med["phylanx_nocheck_spinwait"] - med["submit"]
        - med["raw_iallreduce_test"],
    }
    return result


def _line(row: dict) -> str:
    return (f"{_size(row['bytes']):>8} {row['raw']['median_us']:10.1f} "
            f"{row['phylanx']['median_us']:10.1f} {row['phylanx_nocheck']['median_us']:10.1f} "
            f"{row['ratio_phylanx']['median_us']:6.2f} "
            f"{row['ratio_phylanx_nocheck']['median_us']:6.2f} "
            f"{row['bandwidth_GBps']['phylanx']:8.3f}")


def _size(nbytes: int) -> str:
    for unit, scale in (("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if nbytes >= scale:
            return f"{nbytes // scale} {unit}"
    return f"{nbytes} B"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5, help="interleaved rounds per size")
    ap.add_argument("--json", help="rank 0 writes the results here")
    args = ap.parse_args(argv)
    comm = MPI().COMM_WORLD.Dup()      # raw traffic apart from phylanx's communicators
    if comm.Get_rank() == 0:
        print(f"{comm.Get_size()} ranks; us per call (median of {args.repeat}); "
              "ratio = phylanx / raw; bandwidth = bytes / best time")
        print(f"{'size':>8} {'raw':>10} {'phylanx':>10} {'no check':>10} {'ratio':>6} "
              f"{'(nochk)':>6} {'GB/s':>8}")
    rows = sweep(comm, args.repeat)
    prof = profile(comm, args.repeat)
    if comm.Get_rank() == 0:
        print("8 B, us per call (median): " + ", ".join(
            f"{k} {v['median_us']:.1f}" for k, v in prof.items() if "median_us" in v))
        print("derived: " + ", ".join(f"{k} {v:.1f}"
                                      for k, v in prof["derived_median_us"].items()))
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"ranks": comm.Get_size(), "sizes": rows, "profile_8B": prof}, f,
                          indent=1)
    comm.Barrier()


if __name__ == "__main__":
    main()
