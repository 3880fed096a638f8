"""Collectives started early and waited late against waited where they start, one run.

Run under a launcher (2 ranks; one BLAS thread per rank)::

    OPENBLAS_NUM_THREADS=1 mpiexec -n 2 python benchmarks/started_collectives.py
        [--rows 50000] [--n 500] [--late-ms 20] [--repeat 15]

The program has two independent reductions and local work per step::

    p = x @ w                 # row-tiled x: each rank its rows, no message
    g = x.T @ (p - y)         # partial products summed: one all_gather
    m = np.sum(p * p)         # a sum over the tiled axis: one all_gather
    s = np.sum(a @ a)         # local work on a plain matrix
    return w - 1e-9 * g * s + 1e-12 * m

Every rank but 0 arrives ``--late-ms`` later (a straggler), so rank 0's collectives
wait.  Two compilations of the same function, three peers interleaved in the same run:

* ``program order``: compiled with no primitive marked as starting
  (``runtime/started.STARTS`` empty while it compiles) and ``sync_execution`` on:
  each collective is waited for by the statement that starts it, nothing spawned;
* ``spawned``: the same compilation, the policy free to spawn a measured statement
  on another thread (what ran before ``runtime/started.py``: the collective's
  statement waits on its own thread while the local work runs);
* ``started early``: the statements of ``g`` and ``m`` start their all_gathers, the
  local product runs on the same thread while they are in flight, both are waited
  for at the return.

Rank 0 prints the best and median time of each (ms), the ratios of the bests and of the
medians, and the
bound ``(late + product) / max(late, product)``.  No results file: loaded figures go
to docs/performance.md labelled.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from phylanx import Phylanx
from phylanx import distributed as dist
from phylanx.runtime import started


def step(x, y, w, a):
    p = x @ w
    g = x.T @ (p - y)
    m = np.sum(p * p)
    s = np.sum(a @ a)
    return w - 1e-9 * g * s + 1e-12 * m


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--late-ms", type=float, default=20.0)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args(argv)
    r = dist.find_here()
    rng = np.random.default_rng(0)
    whole_x, whole_y = rng.random((args.rows, 10)), rng.random(args.rows)
    w, a = rng.random(10), rng.random((args.n, args.n)) / args.n
    x = dist.tiled(whole_x, "row", name="sx")
    y = dist.tiled(whole_y, "row", name="sy")
    want = step(whole_x, whole_y, w, a)

    waited, early = Phylanx(step), Phylanx(step)
    marks = set(started.STARTS)
    started.STARTS.clear()
    try:
        got = waited(x, y, w, a)          # compiled without start marks
    finally:
        started.STARTS.update(marks)
    np.testing.assert_allclose(got, want, rtol=1e-9)
    np.testing.assert_allclose(early(x, y, w, a), want, rtol=1e-9)

    t0 = time.perf_counter()
    for _ in range(5):
        np.sum(a @ a)
    product_ms = (time.perf_counter() - t0) / 5 * 1e3

    from phylanx import config
    peers = (("program order", waited, True), ("spawned", waited, False),
             ("started early", early, False))
    times: dict[str, list[float]] = {name: [] for name, _, _ in peers}
    for run in range(args.repeat + 6):         # (6 first: the policy measures, decides)
        for name, fn, sync in peers:
            config.set("sync_execution", sync)
            dist.barrier().result()
            if r != 0:
                time.sleep(args.late_ms / 1e3)
            t0 = time.perf_counter()
            got = fn(x, y, w, a)
            if run >= 6:
                times[name].append((time.perf_counter() - t0) * 1e3)
            np.testing.assert_allclose(got, want, rtol=1e-9)
    config.reset("sync_execution")
    if r == 0:
        late = args.late_ms
        print(f"ranks {dist.num_localities()}, rows {args.rows}, n {args.n}, late "
              f"{late:g} ms, load average {os.getloadavg()[0]:.1f}; product alone "
              f"{product_ms:.1f} ms")
        for name, ts in times.items():
            print(f"  {name:14s} best {min(ts):7.1f} ms  median {statistics.median(ts):7.1f} ms")
        bound = (late + product_ms) / max(late, product_ms, 1e-9)
        for name in ("program order", "spawned"):
            ratios = [min(times[name]) / min(times["started early"]),
                      statistics.median(times[name]) / statistics.median(times["started early"])]
            print(f"  {name} / started early: best {ratios[0]:.2f}x, median {ratios[1]:.2f}x "
                  f"(bound {bound:.2f}x)")


if __name__ == "__main__":
    main()
