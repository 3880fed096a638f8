"""One setting on and off, on the general programs, in one process: CPU-time ratios to NumPy.

For each program of ``general_programs.py`` chosen, ``@Phylanx`` is compiled twice, with
the setting on and off (``phylanx.config``), both settled (``workloads.common.settled``),
and the undecorated function runs beside them; the three take turns, the order rotating
each repetition.  Times are the process's CPU time (``time.process_time``), which a
loaded machine disturbs less than the wall clock (it still counts the BLAS threads'
spinning), and the table gives each median over NumPy's::

    python benchmarks/settings_ab.py SETTING [--only NAME,...] [--repeat N] [--quick]

Results are checked against NumPy first (the program's tolerance), as ``general.py``
does.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from general import _fresh, as_numpy, cpu_model  # noqa: E402
from general_programs import PROGRAMS  # noqa: E402
from workloads.common import max_rel_err, settled  # noqa: E402


def compiled(fn, setting: str, value: bool):
    from phylanx import Phylanx, config
    config.set(setting, value)
    try:
        decorated = Phylanx(fn)
        decorated._ensure_compiled()
    finally:
        config.reset(setting)
    return decorated


def run_program(program, setting: str, quick: bool, repeat: int) -> dict:
    args = program.data(quick)
    bind = _fresh(program, args)
    peers = {"numpy": bind(program.fn)}
    for value in (True, False):
        peers[f"{setting}={'on' if value else 'off'}"] = bind(
            compiled(program.fn, setting, value))
    want = as_numpy(peers["numpy"]())
    for name in list(peers)[1:]:
        peers[name] = settled(peers[name], seconds=0.5 if quick else 2.0)
        err = max_rel_err(as_numpy(peers[name]()), want)
        if err > program.tol:
            raise SystemExit(f"{program.name}, {name}: disagrees with NumPy ({err:.2g})")
    names = list(peers)
    times: dict[str, list[float]] = {n: [] for n in names}
    for rep in range(repeat):
        shift = rep % len(names)
        for name in names[shift:] + names[:shift]:
            start = time.process_time()
            peers[name]()
            times[name].append(time.process_time() - start)
    base = statistics.median(times["numpy"])
    return {"program": program.name, "numpy_ms": base * 1e3,
            **{n: statistics.median(times[n]) / base for n in names[1:]}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("setting", help="a boolean setting of phylanx.config")
    ap.add_argument("--only", help="comma-separated substrings of program names")
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--quick", action="store_true", help="small sizes")
    args = ap.parse_args(argv)
    chosen = [p for p in PROGRAMS if not args.only or any(
        s.strip().lower() in p.name.lower() for s in args.only.split(","))]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# {args.setting} on/off: {cpu_model()}, {os.cpu_count()} cores, load {load:.1f}, "
          f"CPU time, medians of {args.repeat}")
    print(f"| program | NumPy ms (CPU) | {args.setting} on / NumPy | off / NumPy |")
    print("|---|---:|---:|---:|")
    for program in chosen:
        row = run_program(program, args.setting, args.quick, args.repeat)
        on, off = (row[f"{args.setting}={v}"] for v in ("on", "off"))
        print(f"| {row['program']} | {row['numpy_ms']:.2f} | {on:.2f}x | {off:.2f}x |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
