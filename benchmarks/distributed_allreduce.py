"""all_reduce, broadcast and all_gather of phylanx against raw mpi4py, 8 B to 64 MiB.

Run under a launcher with 2 ranks (``benchmarks/distributed.py`` does it for you)::

    mpiexec -n 2 python benchmarks/distributed_allreduce.py [--json FILE] [--repeat 5]
        [--collectives all_reduce,broadcast,all_gather] [--max-bytes N] [--sizes 8,1024]

For each collective and size (8 B, then 16 B * 4**k up to 64 MiB: float64 buffers) it
times, in the same run and interleaved (so that load from other processes hits all
alike), and reports the ratio phylanx / raw (and ``engine%``: the share of phylanx's
checked calls the progress engine completed, a rank having found another late, or the
call having a large request to wait for):

* ``phylanx``: ``phylanx.distributed.all_reduce(a).result()`` (header check on, the
  default; likewise ``broadcast(a, root=0)`` and ``all_gather(a)``), and, for
  all_reduce and broadcast, ``phylanx_nocheck`` (setting ``check_collectives`` off);
* ``raw``: ``comm.Allreduce(a, out)`` (``Bcast(a, root=0)``, ``Allgather(a, out)``) of
  mpi4py on a duplicate of COMM_WORLD, with a preallocated ``out`` (phylanx allocates
  its result each call).

The targets (issue 28 item 4): ratio <= 2 at 8 B and 1 KiB, <= 1.1 from 1 MiB; the
last lines say which sizes meet them.

At 8 B it also splits the phylanx call into parts (``profile``): returning the future
(``submit``), raw ``Iallreduce`` + ``Wait`` and + a ``Test`` loop (what a non-blocking
collective costs before any engine), and the engine's bookkeeping (the rest).  (Since
the express path, ar43, a collective whose other ranks are there completes before
``submit`` returns: ``submit`` is then most of the call, and the engine's parts are
what a late rank's collective costs.)
Rank 0 prints a table and writes the JSON.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from phylanx import distributed as dist
from phylanx.distributed.mpi import MPI
from phylanx.runtime.locality import here

SIZES = [8] + [16 * 4 ** k for k in range(12)]          # 8 B ... 64 MiB
TARGET_SECONDS = 0.25   # per measurement: enough calls to average the noise out
COLLECTIVES = ("all_reduce", "broadcast", "all_gather")
#: size -> the largest ratio phylanx / raw the target allows (issue 28 item 4)
TARGETS = {8: 2.0, 1024: 2.0, **{n: 1.1 for n in SIZES if n >= 2 ** 20}}


def _calls_for(comm, seconds_per_call: float) -> int:
    """The same number of calls on every rank (rank 0's estimate, broadcast)."""
    count = max(3, min(20000, int(TARGET_SECONDS / max(seconds_per_call, 1e-7))))
    return int(comm.bcast(count, root=0))


def _time(comm, call, count: int, handed: list | None = None) -> float:
    """Seconds per call: the slowest rank's average over ``count`` calls.  ``handed``
    gets the share of the calls the progress engine completed (a rank found another
    late and handed the collective over): the collectives it took (``track``), summed
    over the ranks, per call and rank.  (Not its posts: a collective handed over posts
    each request it has left, a checked 64 KiB all_reduce two: 200%.)"""
    engine = here().engine
    taken = [0]
    if handed is not None:
        track = engine.track

        def counted(*args, **kwargs):
            taken[0] += 1       # (only on the engine's path: the express path never calls it)
            return track(*args, **kwargs)
        engine.track = counted
    try:
        comm.Barrier()
        start = time.perf_counter()
        for _ in range(count):
            call()
        elapsed = (time.perf_counter() - start) / count
    finally:
        if handed is not None:
            del engine.track
    if handed is not None:
        handed.append(comm.allreduce(taken[0]) / (count * comm.Get_size()))
    return comm.allreduce(elapsed, op=MPI().MAX)


def _variants(comm, collective: str, a: np.ndarray) -> dict:
    """name -> the call timed: phylanx's (with and without the header check where that
    is a choice) and raw mpi4py's on preallocated buffers."""
    if collective == "all_reduce":
        out = np.empty_like(a)
        return {
            "phylanx": lambda: dist.all_reduce(a, "sum", name="bench").result(),
            "phylanx_nocheck": lambda: dist.all_reduce(a, "sum", name="bench").result(),
            "raw": lambda: comm.Allreduce(a, out, op=MPI().SUM),
        }
    if collective == "broadcast":
        return {
            "phylanx": lambda: dist.broadcast(a, 0, name="bench").result(),
            "phylanx_nocheck": lambda: dist.broadcast(a, 0, name="bench").result(),
            "raw": lambda: comm.Bcast(a, root=0),
        }
    gathered = np.empty((comm.Get_size(), *a.shape), a.dtype)
    return {
        "phylanx": lambda: dist.all_gather(a, name="bench").result(),
        "raw": lambda: comm.Allgather(a, gathered),
    }


def _check_result(comm, collective: str, a: np.ndarray) -> None:
    """phylanx's answer is right (the benchmark times nothing wrong)."""
    if collective == "all_reduce":
        assert np.allclose(dist.all_reduce(a, name="bench").result(), a * comm.Get_size())
    elif collective == "broadcast":
        assert np.array_equal(dist.broadcast(a, 0, name="bench").result(), a)
    else:
        parts = dist.all_gather(a, name="bench").result()
        assert len(parts) == comm.Get_size() and all(np.array_equal(p, a) for p in parts)


def sweep(comm, repeat: int, collective: str, max_bytes: int,
          sizes: list[int] = SIZES) -> list[dict]:
    rows = []
    for nbytes in [n for n in sizes if n <= max_bytes]:
        a = np.full(nbytes // 8, 1.0)
        variants = _variants(comm, collective, a)
        # warm up every path (communicators, first-touch pages), then size the loops
        for name, call in variants.items():
            _set_check(comm, name != "phylanx_nocheck")
            call()
        probe = time.perf_counter()
        variants["phylanx"]()
        count = _calls_for(comm, time.perf_counter() - probe)
        samples: dict[str, list[float]] = {name: [] for name in variants}
        handed: list[float] = []     # (of the checked phylanx calls)
        for _ in range(repeat):
            for name, call in variants.items():
                _set_check(comm, name != "phylanx_nocheck")
                samples[name].append(_time(comm, call, count,
                                           handed if name == "phylanx" else None))
        _set_check(comm, True)
        _check_result(comm, collective, a)
        row = {"collective": collective, "bytes": nbytes, "calls": count}
        for name, values in samples.items():
            row[name] = {"min_us": min(values) * 1e6,
                         "median_us": statistics.median(values) * 1e6}
        for name in variants:
            if name != "raw":
                row[f"ratio_{name}"] = {k: row[name][k] / row["raw"][k]
                                        for k in ("min_us", "median_us")}
        row["bandwidth_GBps"] = {name: nbytes / (row[name]["min_us"] * 1e-6) / 1e9
                                 for name in variants}
        row["phylanx"]["handed_to_engine"] = statistics.median(handed)
        rows.append(row)
        if comm.Get_rank() == 0:
            print(_line(row), flush=True)
    return rows


def _set_check(comm, on: bool) -> None:
    """Every rank switches the header check at the same point (between collectives)."""
    comm.Barrier()
    dist.set_on_every_rank("check_collectives", on)


def profile(comm, repeat: int, count: int = 2000) -> dict:
    """Where the time of an 8-byte all_reduce goes (microseconds per call, medians)."""
    a, out = np.ones(1), np.empty(1)
    world = comm

    def submit_only():
        # the futures are collected after the loop: only the submission is timed here
        futures.append(dist.all_reduce(a, "sum", name="profile"))

    engine = here().engine

    def spin_wait():
        # the waiter polls the engine itself, in a plain loop: the difference to
        # phylanx_nocheck is what Future.result()'s own wait (ProgressEngine.drive)
        # adds to that
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
        "future_result_over_spinning": med["phylanx_nocheck"]
        - med["phylanx_nocheck_spinwait"],
        "engine_bookkeeping": med["phylanx_nocheck_spinwait"] - med["submit"]
        - med["raw_iallreduce_test"],
    }
    return result


def _line(row: dict) -> str:
    nocheck = row.get("phylanx_nocheck")
    return (f"{row['collective']:>10} {_size(row['bytes']):>8} {row['raw']['median_us']:10.1f} "
            f"{row['phylanx']['median_us']:10.1f} "
            + (f"{nocheck['median_us']:10.1f} " if nocheck else f"{'-':>10} ")
            + f"{row['ratio_phylanx']['median_us']:6.2f} "
            + (f"{row['ratio_phylanx_nocheck']['median_us']:6.2f} " if nocheck
               else f"{'-':>6} ")
            + f"{row['bandwidth_GBps']['phylanx']:8.3f} "
            + f"{100 * row['phylanx']['handed_to_engine']:7.1f}")


def _verdicts(rows: list[dict]) -> list[str]:
    """Per collective, the sizes with a target and whether the median ratio meets it."""
    lines = []
    for collective in dict.fromkeys(r["collective"] for r in rows):
        marks = []
        for row in rows:
            limit = TARGETS.get(row["bytes"])
            if row["collective"] != collective or limit is None:
                continue
            ratio = row["ratio_phylanx"]["median_us"]
            marks.append(f"{_size(row['bytes'])} {ratio:.2f} "
                         f"{'<=' if ratio <= limit else '>'} {limit:g}")
        lines.append(f"target {collective}: " + "; ".join(marks))
    return lines


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
    ap.add_argument("--collectives", default=",".join(COLLECTIVES),
                    help="comma-separated, of " + ", ".join(COLLECTIVES))
    ap.add_argument("--max-bytes", type=int, default=SIZES[-1], help="the largest size")
    ap.add_argument("--sizes", help="comma-separated sizes in bytes (multiples of 8) "
                    "instead of the sweep, e.g. 8,1024,65536,1048576,4194304")
    args = ap.parse_args(argv)
    collectives = [c for c in args.collectives.split(",") if c]
    unknown = sorted(set(collectives) - set(COLLECTIVES))
    if unknown:
        ap.error(f"unknown collectives {unknown}; known: {', '.join(COLLECTIVES)}")
    comm = MPI().COMM_WORLD.Dup()      # raw traffic apart from phylanx's communicators
    if comm.Get_rank() == 0:
        print(f"{comm.Get_size()} ranks; us per call (median of {args.repeat}); "
              "ratio = phylanx / raw; bandwidth = bytes / best time")
        print(f"{'collective':>10} {'size':>8} {'raw':>10} {'phylanx':>10} {'no check':>10} "
              f"{'ratio':>6} {'(nochk)':>6} {'GB/s':>8} {'engine%':>7}")
    sizes = [int(n) for n in args.sizes.split(",")] if args.sizes else SIZES
    if any(n <= 0 or n % 8 for n in sizes):
        ap.error("--sizes: positive multiples of 8 (float64 buffers)")
    rows = [row for collective in collectives
            for row in sweep(comm, args.repeat, collective, args.max_bytes, sizes)]
    prof = profile(comm, args.repeat) if "all_reduce" in collectives else None
    if comm.Get_rank() == 0:
        if prof is not None:
            print("all_reduce 8 B, us per call (median): " + ", ".join(
                f"{k} {v['median_us']:.1f}" for k, v in prof.items() if "median_us" in v))
            print("derived: " + ", ".join(f"{k} {v:.1f}"
                                          for k, v in prof["derived_median_us"].items()))
        for line in _verdicts(rows):
            print(line)
        if args.json:
            with open(args.json, "w") as f:
                # "sizes": the all_reduce rows (the schema benchmarks/distributed.py reads)
                json.dump({"ranks": comm.Get_size(),
                           "sizes": [r for r in rows if r["collective"] == "all_reduce"],
                           **{c: [r for r in rows if r["collective"] == c]
                              for c in collectives if c != "all_reduce"},
                           "profile_8B": prof}, f, indent=1)
    comm.Barrier()


if __name__ == "__main__":
    main()
