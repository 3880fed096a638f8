"""Fresh programs, each phrased 2-3 ways: @Phylanx against NumPy and JAX (issue 27).

    python benchmarks/fresh.py [--quick] [--repeat N] [--only NAME,...] [--settle S] [--cpu]

Every phrasing of every program of ``fresh_programs.py`` runs as the undecorated
function (NumPy) and as ``@Phylanx`` of the same function, on the same arguments (a
float32 phrasing: the float arguments cast to float32); each program's JAX port runs
once, ``jax.jit`` on the float64 arguments.  Before any timing, each phrasing's phylanx
result is checked against NumPy's result of that same phrasing: same shape, same dtype,
values within the program's tolerance (a difference is a silent wrong answer, reported
as DIFFERS and not timed); every float64 phrasing's NumPy result is checked against the
first phrasing's too.

Warm-up: the phylanx peers are settled (``workloads.common.settled``: called until the
adaptive kernels are compiled, checked and timed, about ``--settle`` seconds, as JAX's
jit compile runs before its timing); NumPy and JAX are called once before timing.  The
peers then take turns, the order rotating each round, ``--repeat`` rounds.  The table
gives per phrasing NumPy's median and its ratio to NumPy's first phrasing (what the
phrasing itself costs: a ``while`` testing a residual does more work), phylanx's median
over NumPy's, and phylanx's median over phylanx's first phrasing (the phrasing ratio:
issue 27 asks it within 1.3x, beside NumPy's own); JAX's column is the program's port
over the first phrasing's NumPy time.
The load average and CPU are printed: a figure taken on a loaded machine says so.
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fresh_programs import PROGRAMS, Phrasing, Program, jax_port  # noqa: E402
from general import cpu_model  # noqa: E402
from workloads.common import jax_x64, max_rel_err, settled  # noqa: E402


def as_float32(args: tuple) -> tuple:
    """The float arguments (arrays and Python floats) in float32; the rest as given."""
    def one(a):
        if isinstance(a, np.ndarray) and a.dtype == np.float64:
            return a.astype(np.float32)
        return np.float32(a) if isinstance(a, float) else a
    return tuple(one(a) for a in args)


def agreement(got, want, tol: float) -> str:
    """"same" or why ``got`` is not NumPy's ``want``: shape, dtype, then values."""
    g, w = np.asarray(got), np.asarray(want)
    if g.shape != w.shape:
        return f"DIFFERS (shape {g.shape} != {w.shape})"
    if g.dtype != w.dtype:
        return f"DIFFERS (dtype {g.dtype} != {w.dtype})"
    err = max_rel_err(g, w)
    return "same" if err <= tol else f"DIFFERS ({err:.1e})"


def peers(program: Program, phrasing: Phrasing, args: tuple, settle: float):
    """(numpy run, phylanx run, agreement): both functions of no arguments, phylanx's
    settled."""
    from phylanx import Phylanx
    given = as_float32(args) if phrasing.float32 else args
    numpy_run = lambda: phrasing.fn(*given)  # noqa: E731
    decorated = Phylanx(phrasing.fn)
    phylanx_run = lambda: decorated(*given)  # noqa: E731
    tol = program.tol32 if phrasing.float32 else program.tol
    try:
        phylanx_run = settled(phylanx_run, seconds=settle)
        status = agreement(phylanx_run(), numpy_run(), tol)
    except Exception as e:   # a crash on valid NumPy code is a finding: reported
        status = f"FAILS ({type(e).__name__}: {str(e).splitlines()[0][:80]})"
    return numpy_run, phylanx_run, status


#: the clock of :func:`turns`: wall time, or the process's CPU time (``--cpu``, for a
#: loaded machine, where a call longer than a time slice waits for the others)
CLOCK = [time.perf_counter]


def turns(runs: dict, repeat: int) -> dict:
    """Median seconds of each run, one call each per round, the order rotating."""
    names = list(runs)
    times: dict = {k: [] for k in names}
    clock = CLOCK[0]
    for r in range(repeat):
        for k in names[r % len(names):] + names[:r % len(names)]:
            gc.collect()
            t0 = clock()
            runs[k]()
            times[k].append(clock() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def run_program(program: Program, quick: bool, repeat: int, settle: float) -> list[str]:
    args = program.data(quick)
    reference = np.asarray(program.phrasings[0].fn(*args))
    runs: dict = {}
    status: dict = {}
    for ph in program.phrasings:
        numpy_run, phylanx_run, status[ph.name] = peers(program, ph, args, settle)
        if not ph.float32:
            numpy_status = agreement(numpy_run(), reference, program.tol)
            if numpy_status != "same":      # the phrasings themselves must agree
                status[ph.name] = f"phrasing: {numpy_status}"
        numpy_run()
        runs[("numpy", ph.name)] = numpy_run
        if status[ph.name] == "same":
            runs[("phylanx", ph.name)] = phylanx_run
    jax = jax_x64()
    jax_note = "n/a"
    if jax is not None and program.jax:
        port = jax_port(jax, program.jax)
        jargs = tuple(jax.numpy.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        jax_run = lambda: jax.block_until_ready(port(*jargs))  # noqa: E731
        jax_status = agreement(np.asarray(jax_run()).astype(reference.dtype), reference,
                               program.tol)
        if jax_status == "same":
            runs[("jax", "")] = jax_run
        else:
            jax_note = jax_status
    median = turns(runs, repeat)
    first = program.phrasings[0].name
    base = median[("numpy", first)]
    lines = []
    for i, ph in enumerate(program.phrasings):
        np_ms = median[("numpy", ph.name)] * 1e3
        mine = median.get(("phylanx", ph.name))
        if mine is None:
            cells = f"{'-':>8s} | {'-':>8s}"
        else:
            own = median.get(("phylanx", first))
            vs_first = f"{mine / own:7.2f}x" if own else f"{'-':>8s}"
            cells = f"{mine / median[('numpy', ph.name)]:7.2f}x | {vs_first}"
        jax_cell = (f"{median[('jax', '')] / base:6.3g}x" if ("jax", "") in median
                    else jax_note) if i == 0 else ""
        lines.append(f"| {program.name if i == 0 else '':24s} | {ph.name:34s} | "
                     f"{np_ms:9.3f} | {np_ms / (base * 1e3):6.2f}x | {cells} | {jax_cell:>7s} "
                     f"| {status[ph.name]} |")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, 3 rounds")
    ap.add_argument("--repeat", type=int, help="timed rounds (default 7)")
    ap.add_argument("--settle", type=float, help="seconds settling each phylanx peer")
    ap.add_argument("--only", help="comma-separated substrings of program names")
    ap.add_argument("--cpu", action="store_true",
                    help="time the process's CPU (all its threads) instead of the wall")
    a = ap.parse_args(argv)
    repeat = a.repeat or (3 if a.quick else 7)
    settle = a.settle if a.settle is not None else (0.2 if a.quick else 2.0)
    if a.cpu:
        CLOCK[0] = time.process_time
    chosen = [p for p in PROGRAMS if not a.only or any(
        s.strip().lower() in p.name.lower() for s in a.only.split(","))]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# fresh programs: {cpu_model()}, {os.cpu_count()} cores, load {load} at start, "
          f"repeat {repeat}, settle {settle} s{', quick' if a.quick else ''}"
          f"{', CPU time' if a.cpu else ''}")
    print("| program | phrasing | NumPy ms | NumPy /1st | phylanx/NumPy | phylanx /1st "
          "| JAX/NumPy | result |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    failed = 0
    for program in chosen:
        lines = run_program(program, a.quick, repeat, settle)
        failed += sum(("DIFFERS" in x) or ("FAILS" in x) for x in lines)
        print("\n".join(lines), flush=True)
    print(f"# load {' '.join(f'{x:.2f}' for x in os.getloadavg())} at end")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
