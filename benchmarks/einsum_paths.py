"""NumPy's einsum with and without a planned contraction (``optimize=True``), alternated
call by call in one run, over growing sizes: where ``numpy_products.EINSUM_PLANNED_WORK``
should lie (conv44).

    python benchmarks/einsum_paths.py [--calls 50] [--dtype float32]

Cases (multiply-adds = product of the labels' lengths): ``"blc,ck->blk"`` (a pointwise
convolution), its input's and its kernel's cotangents ``"blk,ck->blc"`` and
``"blk,blc->ck"``, and ``"ij,jk->ik"``, at batch sizes from a handful of rows to a
Conv1D layer's (64 x 128 positions, 32 -> 10 channels).  Printed per case: the median
process CPU microseconds per call of each form and planned / plain (below 1: planning
pays).  One BLAS thread is the fair setting (``OPENBLAS_NUM_THREADS=1``); state the
machine's load when quoting.
"""
from __future__ import annotations

import argparse
import os
from functools import partial

import numpy as np
from workloads.common import median_cpu_us

CASES = [("blc,ck->blk", lambda b, l, c, k: [(b, l, c), (c, k)]),
         ("blk,ck->blc", lambda b, l, c, k: [(b, l, k), (c, k)]),
         ("blk,blc->ck", lambda b, l, c, k: [(b, l, k), (b, l, c)]),
         ("ij,jk->ik", lambda b, l, c, k: [(b * l, c), (c, k)])]


timed = median_cpu_us   # (median CPU microseconds of fn(), calls times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--dtype", default="float32")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}; {args.dtype}")
    rng = np.random.default_rng(0)
    for b, l in [(1, 4), (1, 16), (2, 32), (4, 64), (16, 128), (64, 128)]:
        c, k = 32, 10
        for subscripts, shapes in CASES:
            arrays = [rng.standard_normal(s).astype(args.dtype) for s in shapes(b, l, c, k)]
            work = b * l * c * k
            plain = partial(np.einsum, subscripts, *arrays)
            planned = partial(np.einsum, subscripts, *arrays, optimize=True)
            plain(), planned()
            times = {"plain": [], "planned": []}
            for _ in range(3):          # alternated in rounds: a load change hits both
                times["plain"].append(timed(plain, args.calls))
                times["planned"].append(timed(planned, args.calls))
            a, p = np.median(times["plain"]), np.median(times["planned"])
            print(f"  {subscripts:12s} {work:>9d} multiply-adds: plain {a:9.1f} us, "
                  f"planned {p:8.1f} us, ratio {p / a:.2f}")


if __name__ == "__main__":
    main()
