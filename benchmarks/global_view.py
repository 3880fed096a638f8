"""The unchanged ``examples/lra.py`` on row-tiled inputs, 1 and 2 localities, against NumPy.

    python benchmarks/global_view.py [--rows 20000] [--features 100] [--iterations 50]
                                     [--repeat 3]

Launches (with the mpiexec next to this Python) this script on 1 and then on 2 ranks,
one BLAS thread per rank, in one run.  On every rank: ``lra`` (the example's own
``@Phylanx`` function, imported) on ``distributed.tiled(x, "row")`` with plain labels,
timed after a warm-up call, the slowest rank's time, min of ``--repeat``; on rank 0 of
the 1-rank run also ``lra.python`` (plain NumPy, one BLAS thread) on the whole array.
Prints the times and the ratios (NumPy / phylanx on 1 rank, 1 rank / 2 ranks) and
checks the weights against NumPy's.  Nothing is written: on a shared machine the
figures are "loaded" (the lead reruns idle).
"""
from __future__ import annotations

import argparse
import json
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

    from phylanx import distributed as dist
    warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(args.rows, args.features))
    y = (x @ rng.normal(size=args.features) > 0).astype(float)
    tiled = dist.tiled(x, "row", name="x")
    lra(tiled, y, 1e-5, 2, False)                      # translate, compile, communicators
    times, weights = [], None
    for _ in range(args.repeat):
        dist.barrier(name="bench").result()
        start = time.perf_counter()
        weights = lra(tiled, y, 1e-5, args.iterations, False)
        times.append(dist.all_reduce(time.perf_counter() - start, "max", name="t").result())
    weights = weights.gather() if isinstance(weights, dist.DistributedArray) else weights
    out = {"ranks": dist.num_localities(), "phylanx_s": min(times)}
    want = None
    if dist.num_localities() == 1:
        numpy_times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            want = lra.python(x, y, 1e-5, args.iterations, False)
            numpy_times.append(time.perf_counter() - start)
        out["numpy_s"] = min(numpy_times)
    else:
        want = lra.python(x, y, 1e-5, args.iterations, False)
    out["agrees"] = bool(np.allclose(weights, want, rtol=1e-9))
    if dist.find_here() == 0:
        print("RESULT " + json.dumps(out), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--features", type=int, default=100)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return 0
    from mpi_launch import run_ranks
    results = {}
    for ranks in (1, 2):
        done = run_ranks(__file__, ranks, ["--worker", *sys.argv[1:]], capture=True)
        line = next((ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")), None)
        if done.returncode != 0 or line is None:
            print(done.stdout + done.stderr)
            return 1
        results[ranks] = json.loads(line[len("RESULT "):])
    one, two = results[1], results[2]
    print(f"LRA {args.rows} x {args.features}, {args.iterations} iterations, row-tiled, "
          "one BLAS thread per rank")
    print(f"  NumPy (1 process)    {one['numpy_s'] * 1e3:9.1f} ms")
    print(f"  phylanx, 1 rank      {one['phylanx_s'] * 1e3:9.1f} ms  "
          f"(NumPy / phylanx {one['numpy_s'] / one['phylanx_s']:.2f}x)")
    print(f"  phylanx, 2 ranks     {two['phylanx_s'] * 1e3:9.1f} ms  "
          f"(scaling 1 -> 2 ranks {one['phylanx_s'] / two['phylanx_s']:.2f}x; NumPy / "
          f"phylanx {one['numpy_s'] / two['phylanx_s']:.2f}x)")
    print(f"  weights agree with NumPy: 1 rank {one['agrees']}, 2 ranks {two['agrees']}")
    return 0 if one["agrees"] and two["agrees"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
