"""Global subscripts and structure ops of a row-tiled array against their peers.

Run under a launcher (2 ranks on this machine)::

    mpiexec -n 2 python benchmarks/global_indexing.py [--rows 100000] [--cols 32]
        [--repeat 7] [--json FILE]

For each operation it times, interleaved in the same run (so that load from other
processes hits all alike), median over ``--repeat``:

* ``phylanx``: the operation on the tiled array inside a ``@Phylanx`` function (the
  ``DISTRIBUTION`` rule, ``dist_matrixops/global_subscripts.py``, ``global_structure.py``);
* ``gather``: what a primitive without a rule costs: the whole array gathered on every
  rank, then NumPy (``x.gather()`` then the NumPy call);
* ``mpi4py``: the same result written by hand with mpi4py + NumPy on the local tiles
  (where there is an obvious hand version).

and reports the ratios phylanx / gather and phylanx / mpi4py.  Rank 0 prints a table
and writes the JSON.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from phylanx import Phylanx
from phylanx import distributed as dist
from phylanx.distributed.mpi import MPI


@Phylanx
def column(x):
    return x[:, 3]


@Phylanx
def element(x, i):
    return x[i, 1]


@Phylanx
def masked(x):
    return x[x > 0.9]


@Phylanx
def joined(x):
    return np.concatenate((x, x))


@Phylanx
def running(x):
    return np.cumsum(x, axis=0)


@Phylanx
def first_max(x):
    return np.argmax(x)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--cols", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    comm = MPI().COMM_WORLD.Dup()
    rank, size = comm.Get_rank(), comm.Get_size()
    whole = np.random.default_rng(0).random((args.rows, args.cols))
    x = dist.tiled(whole, "row", name="bench")
    local = x.local
    (start, _), _ = x.box
    flat_start = start * args.cols

    def hand_element():
        i = args.rows // 2
        owner = next(r for r, b in enumerate(x.layout.boxes) if b[0][0] <= i < b[0][1])
        value = local[i - start, 1] if rank == owner else None
        return comm.bcast(value, root=owner)

    def hand_masked():
        return local[local > 0.9]     # each rank keeps its part (the tiled answer)

    def hand_cumsum():
        totals = local.sum(axis=0)
        before = comm.exscan(totals) if size > 1 else None
        return np.cumsum(local, axis=0) + (0 if before is None or rank == 0 else before)

    def hand_argmax():
        k = int(np.argmax(local))
        pairs = comm.allgather((local.flat[k], flat_start + k))
        best = max(v for v, _ in pairs)
        return min(i for v, i in pairs if v == best)

    cases = {
        "x[:, 3]": (lambda: column(x), lambda: x.gather()[:, 3], lambda: local[:, 3].copy()),
        "x[i, 1]": (lambda: element(x, args.rows // 2), lambda: x.gather()[args.rows // 2, 1],
                    hand_element),
        "x[x > 0.9]": (lambda: masked(x), lambda: (lambda w: w[w > 0.9])(x.gather()),
                       hand_masked),
        "concatenate((x, x))": (lambda: joined(x), lambda: np.concatenate((x.gather(),) * 2),
                                None),
        "cumsum(x, axis=0)": (lambda: running(x), lambda: np.cumsum(x.gather(), axis=0),
                              hand_cumsum),
        "argmax(x)": (lambda: first_max(x), lambda: np.argmax(x.gather()), hand_argmax),
    }
    results = {}
    for name, peers in cases.items():
        times: dict[str, list[float]] = {"phylanx": [], "gather": [], "mpi4py": []}
        for fn in peers:                  # warm-up (compiles the decorated function)
            if fn is not None:
                fn()
        for _ in range(args.repeat):
            for label, fn in zip(times, peers):
                if fn is None:
                    continue
                comm.Barrier()
                t0 = time.perf_counter()
                fn()
                comm.Barrier()
                times[label].append(time.perf_counter() - t0)
        med = {k: statistics.median(v) * 1e3 for k, v in times.items() if v}
        results[name] = med
    if rank == 0:
        print(f"{size} ranks, {args.rows} x {args.cols} float64, row-tiled; ms, median of "
              f"{args.repeat}")
        print(f"{'operation':24} {'phylanx':>9} {'gather':>9} {'mpi4py':>9} "
              f"{'/gather':>8} {'/mpi4py':>8}")
        for name, med in results.items():
            hand = med.get("mpi4py")
            print(f"{name:24} {med['phylanx']:9.2f} {med['gather']:9.2f} "
                  f"{hand if hand is not None else float('nan'):9.2f} "
                  f"{med['phylanx'] / med['gather']:8.2f} "
                  f"{(med['phylanx'] / hand) if hand else float('nan'):8.2f}")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"ranks": size, "rows": args.rows, "cols": args.cols,
                           "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
