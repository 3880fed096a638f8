"""The cost of a lazy call (``f.lazy().eval(x)``) against an ordinary call ``f(x)`` and
the bare function value (``execution_tree.invoke``, what ``eval`` ran before it read the
Python globals: it ran with those an earlier call loaded), in one run.

Prints microseconds per call and the ratios to the ordinary call.  Run:
``python benchmarks/lazy_calls.py [--repeat 7] [--calls 2000]``.
"""
from __future__ import annotations

import argparse
import time

from phylanx import Phylanx, execution_tree

SCALE = 2.0


@Phylanx
def scaled(x):
    return x * SCALE


def per_call(fn, calls: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn(3.0)
        best = min(best, time.perf_counter() - t0)
    return best / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--calls", type=int, default=2000)
    a = parser.parse_args()
    lazy = scaled.lazy()
    assert scaled(3.0) == lazy.eval(3.0) == 6.0
    function = scaled._function
    peers = {"call f(x)": scaled, "lazy().eval(x)": lazy.eval,
             "invoke(function value)": lambda x: execution_tree.invoke(function, (x,), {})}
    base = None
    times: dict = {name: [] for name in peers}
    for _ in range(3):   # interleaved rounds: each peer sees the same load
        for name, fn in peers.items():
            times[name].append(per_call(fn, a.calls, a.repeat))
    for name, ts in times.items():
        us = min(ts)
        base = base or us
        print(f"{name:24s} {us:8.2f} us/call  x{us / base:.2f} of a call")


if __name__ == "__main__":
    main()
