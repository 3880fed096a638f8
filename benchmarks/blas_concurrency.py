"""Two pieces of work run concurrently on two Python threads, with BLAS at all its
threads vs one thread: what runtime/blas_threads.py's policy is based on.

    python benchmarks/blas_concurrency.py [--size 1500] [--repeat 3]

Pieces: ``big`` a size x size product, ``tall`` a 1,000,000 x 16 by 16 x 8 product
(k-means' distances), ``elem`` an element-wise exp of 4,000,000 doubles.  Reports the
best of ``--repeat`` runs of each piece alone and of pairs run concurrently, in ms.
"""
from __future__ import annotations

import argparse
import os
import threading
import time

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits


def best(run, repeat):
    run()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times) * 1e3


def pair(first, second):
    def run():
        thread = threading.Thread(target=first)
        thread.start()
        second()
        thread.join()
    return run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1500)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    a, b = rng.random((args.size, args.size)), rng.random((args.size, args.size))
    x, c, e = rng.random((1_000_000, 16)), rng.random((16, 8)), rng.random(4_000_000)
    pieces = {"big": lambda: a @ b, "tall": lambda: x @ c, "elem": lambda: np.exp(e)}
    runs = {**pieces, "big||big": pair(pieces["big"], pieces["big"]),
            "big||elem": pair(pieces["big"], pieces["elem"]),
            "big||tall": pair(pieces["big"], pieces["tall"]),
            "tall||tall": pair(pieces["tall"], pieces["tall"]),
            "tall||elem": pair(pieces["tall"], pieces["elem"])}
    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
    cores = os.cpu_count()
    print(f"{cores} cores, {blas[0]['internal_api']} {blas[0]['version']} "
          f"({blas[0]['threading_layer']}), load {os.getloadavg()[0]:.2f}")
    print(f"{'':12}" + "".join(f"{name:>12}" for name in runs))
    for threads in (cores, 1):
        with threadpool_limits(threads, "blas"):
            row = [best(run, args.repeat) for run in runs.values()]
        print(f"{threads} BLAS thr. " + "".join(f"{t:12.1f}" for t in row))


if __name__ == "__main__":
    main()
