"""Do independent expensive computations overlap?  Two BLAS products, three ways.

Two independent ``dot`` products of ``--n`` x ``--n`` matrices (default 1200),
with one BLAS thread each (set ``OPENBLAS_NUM_THREADS=1``), evaluated

* as *operands*: ``dot(a, b) + dot(c, d)`` — the policy marks both operands
  asynchronous after ``eval_count_threshold`` timed runs;
* as *statements*: ``block(define(x, dot(a, b)), define(y, dot(c, d)), x + y)`` —
  the compiler's dependency analysis lets the first overlap the second;
* under ``parallel_block(store(x, dot(a, b)), store(y, dot(c, d)))``.

On two or more cores each should take about one product's time (NumPy
releases the GIL), against two products' time run sequentially.  Prints
milliseconds (best of ``--repeat``) and the ratio to one product.
Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/overlap.py``.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from phylanx import execution_tree as et


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


PROGRAMS = {
    "operands": "define(f, a, b, c, d, dot(a, b) + dot(c, d))",
    "statements": "define(f, a, b, c, d, block(define(x, dot(a, b)), "
                  "define(y, dot(c, d)), x + y))",
    "parallel_block": "define(f, a, b, c, d, block(define(x, 0), define(y, 0), "
                      "parallel_block(store(x, dot(a, b)), store(y, dot(c, d))), x + y))",
}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1200)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    a, b, c, d = (rng.random((args.n, args.n)) for _ in range(4))
    one = best_of(lambda: np.dot(a, b), args.repeat)
    two = best_of(lambda: np.dot(a, b) + np.dot(c, d), args.repeat)
    print(f"{os.cpu_count()} cores, OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, n={args.n}")
    print(f"numpy, one product       : {1e3 * one:7.1f} ms")
    print(f"numpy, two in sequence   : {1e3 * two:7.1f} ms  ({two / one:.2f}x one product)")
    expected = np.dot(a, b) + np.dot(c, d)
    for name, code in PROGRAMS.items():
        state = et.compiler_state(name)
        et.compile(state, "<overlap>", "f", code)
        fn = et.code_for(state, "<overlap>", "f")
        for _ in range(8):          # let the policy measure and decide
            got = et.invoke(fn, (a, b, c, d), {})
        assert np.allclose(got, expected)
        t = best_of(lambda fn=fn: et.invoke(fn, (a, b, c, d), {}), args.repeat)
        print(f"phylanx {name:<16}: {1e3 * t:7.1f} ms  ({t / one:.2f}x one product)")


if __name__ == "__main__":
    main()
