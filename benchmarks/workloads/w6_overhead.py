"""W6: per-node and per-task overhead, from ``benchmarks/overhead.py``'s functions.

Each repetition runs, in turn, the inline loop (us per primitive node against plain
Python), fib(20) (ratio to CPython, best of three calls each: a compiled function's
steady state) and, unless quick, 10,000 tiny tasks under
``parallel_block`` (us per task; concurrent.futures and dask.delayed alongside), so
the three interleave like the peers of the other workloads.
"""
from __future__ import annotations

import statistics

import overhead  # benchmarks/ is on sys.path under run.py


def measure(repeat: int, quick: bool) -> dict:
    series: dict[str, list[float]] = {"us_per_inline_node": [], "inline_vs_python_x": [],
                                      "fib20_ms": [], "fib20_vs_cpython_x": []}
    if not quick:
        series.update({"us_per_task": [], "concurrent_futures_us_per_task": []})
    for _ in range(repeat):
        r = overhead.inline_chain(1)
        series["us_per_inline_node"].append(r["us_per_node"])
        series["inline_vs_python_x"].append(r["phylanx_s"] / r["python_s"])
        # best of three calls of a freshly compiled fib against best of three of
        # CPython's: the first evaluation of a new tree also runs the evaluation
        # policy's measuring (inline or task per node)
        f = overhead.fib_bench(3)
        series["fib20_ms"].append(1e3 * f["phylanx_s"])
        series["fib20_vs_cpython_x"].append(f["ratio"])
        if not quick:
            a = overhead.async_tasks(1)
            series["us_per_task"].append(a["us_per_task"])
            series["concurrent_futures_us_per_task"].append(
                1e6 * a["concurrent_futures_s"] / overhead.N_TASKS)
    return {name: {"median": statistics.median(v), "min": min(v), "max": max(v), "values": v}
            for name, v in series.items()}
