"""What deciding before running costs a fused region on tiles (``distributed/fused_tiles.py``).

    python benchmarks/fused_tile_checks.py [--repeat 7] [--calls 200]

The tile path asks each operation's kernel for its result dtype on one-element
stand-ins (and reads the ``warnings`` filters) before the region runs on the tiles,
instead of running it and retrying node by node when it failed.  One process (one
locality: the tile path runs there too), a row-tiled chain ``np.sum(x * np.tanh(x - c)
+ y, axis=1)`` on a small tile (64 x 8) and a large one (2048 x 64), fused on NumPy
(no kernel compile): side by side, alternating, the calls as committed and the same
calls with the checks switched off (``_result_dtype`` giving the operand's dtype,
``warnings_raise`` False: a benchmark-only patch).  Prints min and median microseconds
per call and the ratio with / without, and the same of the decision alone (``trace``
and the warnings check, timed inside each call: on a loaded machine the calls' spread
hides a difference of microseconds).  Results are printed, never written: a run on a
loaded machine says so (load average).
"""
from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    os.environ.setdefault("PHYLANX_MPI", "0")
    from phylanx import Phylanx, config
    from phylanx import distributed as dist
    from phylanx.distributed import fused_tiles

    warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)
    for name, value in (("fusion", True), ("fusion_count_threshold", 1),
                        ("fusion_min_time_us", 0.0), ("fusion_min_size", 10 ** 9)):
        config.set(name, value)     # hot at once, on NumPy (no compile in the timing)

    checked = (fused_tiles._result_dtype, fused_tiles.warnings_raise)
    traced = fused_tiles.trace
    decisions: list[float] = []

    def timed_trace(region, values):
        start = time.perf_counter()
        fused_tiles.warnings_raise()
        made = traced(region, values)
        decisions.append(time.perf_counter() - start)
        return made
    fused_tiles.trace = timed_trace

    def unchecked_dtype(op, values):
        return next(v.dtype for v in values if hasattr(v, "layout"))

    def chain(x, y, c):
        return np.sum(x * np.tanh(x - c) + y, axis=1)

    print(f"load average {os.getloadavg()}")
    rng = np.random.default_rng(0)
    for rows, cols in ((64, 8), (2048, 64)):
        fn = Phylanx(chain)
        a, b = rng.normal(size=(2, rows, cols))
        c = rng.normal(size=cols)
        x = dist.tiled(a, "row", name=f"x{rows}")
        y = dist.tiled(b, "row", name=f"y{rows}")
        np.testing.assert_allclose(np.asarray(fn(x, y, c)), chain(a, b, c), rtol=1e-12)
        times: dict[str, list[float]] = {"checks": [], "none": []}
        decided: dict[str, list[float]] = {"checks": [], "none": []}
        for turn in range(args.repeat):      # (the order alternates)
            for label in ("none", "checks") if turn % 2 else ("checks", "none"):
                if label == "none":
                    fused_tiles._result_dtype = unchecked_dtype
                    fused_tiles.warnings_raise = lambda: False
                try:
                    del decisions[:]
                    start = time.perf_counter()
                    for _ in range(args.calls):
                        fn(x, y, c)
                    times[label].append((time.perf_counter() - start) / args.calls * 1e6)
                    decided[label] += [d * 1e6 for d in decisions]
                finally:
                    fused_tiles._result_dtype, fused_tiles.warnings_raise = checked
        line = [f"tile {rows}x{cols}:"]
        for label, got in times.items():
            line.append(f"{label} min {min(got):.1f} us median {statistics.median(got):.1f} us")
        ratio = statistics.median(times["checks"]) / statistics.median(times["none"])
        print("  ".join(line) + f"  ratio (median) {ratio:.3f}")
        print("    the decision alone: " + "  ".join(
            f"{label} min {min(got):.1f} us median {statistics.median(got):.1f} us"
            for label, got in decided.items()))


if __name__ == "__main__":
    main()
