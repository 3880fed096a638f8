"""Who should complete MPI requests: a progress thread, or the threads that wait?

Run under a launcher: ``mpiexec -n 2 python benchmarks/progress.py`` (rank 0 prints).

For each variant it measures

* latency: 200 sequential all_reduces of 8 doubles (microseconds per collective);
* overlap: an all_reduce of 2**20 doubles started, then 50 ms of NumPy work, then
  the wait (milliseconds in total, against work alone + communication alone);
* the cost of the agreement header (``check_collectives`` on vs off) on the latency.

Variants: ``thread`` (the engine's own progress thread; ``future.result()`` sleeps on
an event) and ``wait`` (the waiting thread also calls ``engine.poll()`` in its loop,
which is what ``phylanx.runtime.progress`` registration gives).
"""
from __future__ import annotations

import time

import numpy as np

from phylanx import distributed as dist
from phylanx.runtime.locality import here


def wait(future, variant: str):
    if variant == "wait":
        engine = here().engine
        while not future.done():
            if not engine.poll():
                time.sleep(0)
    return future.result()


def latency(variant: str, count: int = 200) -> float:
    x = np.ones(8)
    wait(dist.all_reduce(x, name=f"lat-{variant}"), variant)       # warm up (communicator)
    start = time.perf_counter()
    for _ in range(count):
        wait(dist.all_reduce(x, name=f"lat-{variant}"), variant)
    return (time.perf_counter() - start) / count * 1e6


def work(seconds: float) -> None:
    end = time.perf_counter() + seconds
    a = np.random.default_rng(0).random((200, 200))
    while time.perf_counter() < end:
        a = np.tanh(a @ a.T / 200)


def overlap(variant: str) -> tuple[float, float, float]:
    big = np.ones(2 ** 20)
    name = f"big-{variant}"
    wait(dist.all_reduce(big, name=name), variant)
    dist.barrier().result()
    start = time.perf_counter()
    wait(dist.all_reduce(big, name=name), variant)
    comm_alone = time.perf_counter() - start
    dist.barrier().result()
    start = time.perf_counter()
    work(0.05)
    work_alone = time.perf_counter() - start
    dist.barrier().result()
    start = time.perf_counter()
    future = dist.all_reduce(big, name=name)
    work(0.05)
    wait(future, variant)
    both = time.perf_counter() - start
    return comm_alone * 1e3, work_alone * 1e3, both * 1e3


def main() -> None:
    rank, size = dist.find_here(), dist.num_localities()
    rows = []
    for variant in ("thread", "wait", "thread", "wait"):
        dist.barrier().result()
        lat = latency(variant)
        comm, alone, both = overlap(variant)
        rows.append((variant, lat, comm, alone, both))
    dist.set_on_every_rank("check_collectives", False)
    unchecked = latency("thread")
    dist.set_on_every_rank("check_collectives", True)
    checked = latency("thread")
    if rank == 0:
        print(f"{size} ranks; latency: us per all_reduce of 8 doubles; overlap: ms")
        print(f"{'variant':<8} {'latency':>9} {'comm':>7} {'work':>7} {'both':>7}")
        for variant, lat, comm, alone, both in rows:
            print(f"{variant:<8} {lat:9.1f} {comm:7.2f} {alone:7.2f} {both:7.2f}")
        print(f"header check: {checked:.1f} us with, {unchecked:.1f} us without")


if __name__ == "__main__":
    main()
