"""Rewordings of loop programs against their original form, side by side in one run.

    python benchmarks/loops_phrasing.py [--repeat 10] [--quick]

For each ``(name, original, reworded, make_data)`` of
``workloads/rewordings_loops.REWORDINGS`` (a helper ``def``, float32 data, ``while`` with
a counter, ``+=``, a compound ``while`` condition): both are decorated with ``@Phylanx``,
run until phylanx's adaptive state settled (``workloads.common.settled``), checked
against the undecorated function, then timed alternately (original, reworded, and the
undecorated NumPy functions) in rounds of one call each.  Prints median milliseconds,
the ratio reworded / original (target: within 1.15x) and each one's ratio to NumPy,
and whether the compiled loop (``phylanx/fusion/loops.py``) ran.
"""
from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np
from workloads.common import settled
from workloads.rewordings_loops import REWORDINGS


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def kernel_calls(fn) -> int:
    """Runs of compiled loops in ``fn``'s tree (0: the tree ran every loop)."""
    from phylanx.fusion import loops
    dec = fn.decorator()
    dec._ensure_compiled()
    total = 0
    for node in dec._function.body.walk():
        owner = getattr(node.inline, "__self__", None)
        if isinstance(owner, loops.CompiledLoop):
            total += sum(e.calls for e in list(owner.entries.values())
                         if isinstance(e, loops._Entry))
    return total


def close(got, want) -> bool:
    got, want = np.asarray(got), np.asarray(want)
    tol = 1e-4 if np.float32 in (got.dtype, want.dtype) else 1e-8
    scale = float(np.max(np.abs(want))) or 1.0
    return got.dtype == want.dtype and np.allclose(got, want, rtol=tol, atol=tol * scale)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    from phylanx import Phylanx
    print(f"# python benchmarks/loops_phrasing.py --repeat {args.repeat}"
          + (" --quick" if args.quick else ""))
    print(f"{cpu_model()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f} at start; "
          "median ms per call; ratio reworded / original (target <= 1.15)")
    worst = 0.0
    for name, original, reworded, make_data in REWORDINGS:
        data_o, data_r = make_data(args.quick)
        peers = {"original": (Phylanx(original), data_o), "reworded": (Phylanx(reworded), data_r)}
        runs = {}
        for label, (fn, fargs) in peers.items():
            want = (original if label == "original" else reworded)(*fargs)
            # enough calls for the short CG calls to reach the compile cost
            run = settled(lambda fn=fn, fargs=fargs: fn(*fargs), calls=3000)
            assert close(run(), want), f"{name}: {label} differs from NumPy"
            runs[label] = run
        runs["numpy original"] = lambda f=original, a=data_o: f(*a)
        runs["numpy reworded"] = lambda f=reworded, a=data_r: f(*a)
        before = {label: kernel_calls(peers[label][0]) for label in peers}
        times: dict[str, list[float]] = {label: [] for label in runs}
        for _ in range(args.repeat):           # one call each per round, alternating
            for label, run in runs.items():
                t0 = time.perf_counter()
                run()
                times[label].append(1e3 * (time.perf_counter() - t0))
        med = {label: float(np.median(t)) for label, t in times.items()}
        loops = {label: kernel_calls(peers[label][0]) > before[label] for label in peers}
        ratio = med["reworded"] / med["original"]
        worst = max(worst, ratio)
        print(f"{name}\n  original {med['original']:8.2f} ms "
              f"({med['original'] / med['numpy original']:.2f}x NumPy, compiled loop "
              f"{'yes' if loops['original'] else 'no'})\n  reworded {med['reworded']:8.2f} ms "
              f"({med['reworded'] / med['numpy reworded']:.2f}x NumPy, compiled loop "
              f"{'yes' if loops['reworded'] else 'no'})\n  reworded / original {ratio:.2f}x")
    print(f"worst reworded / original: {worst:.2f}x; load {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
