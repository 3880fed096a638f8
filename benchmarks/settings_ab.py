"""One setting on and off, on the general programs, in one process: CPU-time ratios to NumPy.

For each program of ``general_programs.py`` chosen, ``@Phylanx`` is compiled twice, with
the setting on and off (``phylanx.config``), both settled (``workloads.common.settled``),
and the undecorated function runs beside them; the three take turns, in each of the six
orders in turn (a repetition count that is a multiple of 6 balances them).  Times are
the process's CPU time (``time.process_time``), which a loaded machine disturbs less
than the wall clock (it still counts the BLAS threads' spinning), and the table gives
each median over NumPy's::

    python benchmarks/settings_ab.py SETTING [--only NAME,...] [--repeat N] [--quick]
                                     [--workloads W1,W2,...] [--fresh] [--phrasing]

Results are checked against NumPy first (the program's tolerance), as ``general.py``
does.  ``--workloads`` adds the cases of ``run.py``'s workloads (W1-W5), their phylanx
setup run once with the setting on and once off; ``--fresh`` adds the element-wise
chains of ``elementwise_programs.py``; ``--phrasing`` adds every case of ``phrasing.py``
(W1 and W2, the original and each rewording, each a row).  The last line gives the
geometric mean and the range of on/off over every row.  A compiled program keeps the
settings it was compiled with (``fusion.install`` reads them), so the setting is on
only while each one compiles.
"""
from __future__ import annotations

import argparse
import itertools
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
    return _timed(program.name, peers, repeat)


def run_case(case, setting: str, repeat: int) -> dict:
    """One case of a workload (``workloads/``), its phylanx setup made with the setting
    on and off, timed as :func:`run_program` times a program."""
    from phylanx import config
    peers = {"numpy": case.setups["numpy"]()}
    for value in (True, False):
        config.set(setting, value)
        try:
            peers[f"{setting}={'on' if value else 'off'}"] = case.setups["phylanx"]()
        finally:
            config.reset(setting)
    compare = case.compare or (lambda r: r)
    want = compare(peers["numpy"]())
    for name in list(peers)[1:]:
        err = max_rel_err(compare(peers[name]()), want)
        if err > case.tol:
            raise SystemExit(f"{case.name}, {name}: disagrees with NumPy ({err:.2g})")
    return _timed(case.name, peers, repeat)


def run_rewording(case, rewording, setting: str, quick: bool, repeat: int) -> dict:
    """One rewording of ``phrasing.py`` (or a case's original), compiled with the setting
    on and off, timed as :func:`run_program` times a program."""
    from phrasing import compiled, tolerance

    from phylanx import config
    arguments = case.data(rewording.dtype)
    _, plain = compiled(rewording.source)
    peers = {"numpy": lambda: plain(*arguments)}
    for value in (True, False):
        config.set(setting, value)
        try:
            decorated, _ = compiled(rewording.source)
            decorated._ensure_compiled()
        finally:
            config.reset(setting)
        peers[f"{setting}={'on' if value else 'off'}"] = (
            lambda decorated=decorated: decorated(*arguments))
    label = f"{case.name}: {rewording.name}"
    want = as_numpy(peers["numpy"]())
    for name in list(peers)[1:]:
        peers[name] = settled(peers[name], seconds=0.5 if quick else 2.0)
        err = max_rel_err(as_numpy(peers[name]()), want)
        if err > tolerance(rewording.dtype):
            raise SystemExit(f"{label}, {name}: disagrees with NumPy ({err:.2g})")
    return _timed(label, peers, repeat)


def _timed(label: str, peers: dict, repeat: int) -> dict:
    names = list(peers)
    times: dict[str, list[float]] = {n: [] for n in names}
    # every order in turn, not rotations of one: the process's CPU time counts BLAS
    # threads still spinning after a product, which the peer run next pays; with
    # rotations the "on" peer followed NumPy in 3 of 5 repetitions and "off" in 1
    # (W1-W5 without a single fused region were 5-25% slower "on"); with every
    # permutation each peer follows each other equally often over len(names)! runs
    orders = list(itertools.permutations(names))
    for rep in range(repeat):
        for name in orders[rep % len(orders)]:
            start = time.process_time()
            peers[name]()
            times[name].append(time.process_time() - start)
    base = statistics.median(times["numpy"])
    return {"program": label, "numpy_ms": base * 1e3,
            **{n: statistics.median(times[n]) / base for n in names[1:]}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("setting", help="a boolean setting of phylanx.config")
    ap.add_argument("--only", help="comma-separated substrings of program names")
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--quick", action="store_true", help="small sizes")
    ap.add_argument("--workloads", default="",
                    help="comma-separated workloads of run.py (W1-W5) to add")
    ap.add_argument("--fresh", action="store_true",
                    help="add the element-wise chains of elementwise_programs.py")
    ap.add_argument("--phrasing", action="store_true",
                    help="add the cases of phrasing.py (original and rewordings)")
    args = ap.parse_args(argv)
    chosen = [p for p in PROGRAMS if not args.only or any(
        s.strip().lower() in p.name.lower() for s in args.only.split(","))]
    if args.only and args.workloads:
        chosen = []                 # --only names programs; with --workloads, those alone
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# {args.setting} on/off: {cpu_model()}, {os.cpu_count()} cores, load {load:.1f}, "
          f"CPU time, medians of {args.repeat}")
    print(f"| program | NumPy ms (CPU) | {args.setting} on / NumPy | off / NumPy |")
    print("|---|---:|---:|---:|")
    if args.fresh:
        from elementwise_programs import PROGRAMS as FRESH
        chosen += FRESH
    rows = (run_program(program, args.setting, args.quick, args.repeat)
            for program in chosen)
    ratios = []
    for row in itertools.chain(rows, phrasing_rows(args), workload_rows(args)):
        on, off = (row[f"{args.setting}={v}"] for v in ("on", "off"))
        ratios.append(on / off)
        print(f"| {row['program']} | {row['numpy_ms']:.2f} | {on:.2f}x | {off:.2f}x |",
              flush=True)
    if ratios:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"# on/off: geometric mean {statistics.geometric_mean(ratios):.2f}x, "
              f"range {min(ratios):.2f}x-{max(ratios):.2f}x over {len(ratios)} rows; "
              f"load {load:.1f} at end")
    return 0


def phrasing_rows(args):
    """The rows of ``--phrasing``: every case of phrasing.py, original and rewordings."""
    if not args.phrasing:
        return
    from phrasing import REWORDINGS, Rewording, cases
    for case in cases(args.quick):
        for rewording in [Rewording("original", case.workload, case.original)] + [
                r for r in REWORDINGS if r.workload == case.workload]:
            yield run_rewording(case, rewording, args.setting, args.quick, args.repeat)


def workload_rows(args):
    """The rows of the workloads named by ``--workloads`` (run.py's cases)."""
    import importlib

    from run import WORKLOADS
    for name in filter(None, (w.strip().upper() for w in args.workloads.split(","))):
        module = importlib.import_module(f"workloads.{WORKLOADS[name]}")
        for case in module.cases(args.quick):
            yield run_case(case, args.setting, args.repeat)


if __name__ == "__main__":
    sys.exit(main())
