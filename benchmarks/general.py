"""General programs (issue 27): NumPy code not written for phylanx, against NumPy and JAX.

Every program of ``general_programs.py`` runs three ways on the same arguments: the
undecorated function (NumPy, the reference), ``@Phylanx`` of the same function after
settling (``workloads.common.settled``: the adaptive kernels compiled, checked and
timed, as JAX's jit compile is done before timing) and ``jax.jit`` of a JAX port
(float64 enabled; float32 data stay float32).  Results are checked against NumPy
(max |peer - numpy| / max |numpy| within the program's tolerance) before any timing;
a peer that disagrees is reported and not timed.  The peers then take turns, the order
rotating each repetition, and the table gives NumPy's median time, each peer's median
over NumPy's, and the geometric mean of the ratios::

    python benchmarks/general.py [--quick] [--repeat N] [--only NAME,...] [--json out]
                                 [--pipelines ast,ir]

``--pipelines ast,ir`` makes one phylanx peer per pipeline (``phylanx[ast]``,
``phylanx[ir]``: the function compiled under that ``PHYLANX_PIPELINE``, docs/ir.md), timed
in the same turns as the others.

The issue's targets: phylanx's geometric mean <= 0.8x NumPy, none above 1.5x.
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from general_programs import PROGRAMS, Program, jax_port  # noqa: E402
from workloads.common import first_call_under, jax_x64, max_rel_err, settled  # noqa: E402

PEERS = ("numpy", "phylanx", "jax")


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _fresh(program: Program, args: tuple):
    """A function of no arguments running with ``args`` (those the program mutates
    copied on each call, for every peer alike)."""
    if not program.copies:
        return lambda fn: (lambda: fn(*args))

    def bind(fn):
        def run():
            given = list(args)
            for i in program.copies:
                given[i] = given[i].copy()
            return fn(*given)
        return run
    return bind


def runners(program: Program, quick: bool, pipelines: tuple = (None,)) -> tuple[dict, dict]:
    """(peer -> function of no arguments, peer -> why it is missing).  A phylanx peer per
    pipeline (None: as configured, the peer ``phylanx``), compiled by its first call."""
    from phylanx import Phylanx
    args = program.data(quick)
    bind = _fresh(program, args)
    made = {"numpy": bind(program.fn)}
    missing = {}
    for pipeline in pipelines:
        run = bind(Phylanx(program.fn))
        first_call_under(pipeline, run)
        made["phylanx" if pipeline is None else f"phylanx[{pipeline}]"] = run
    jax = jax_x64()
    if jax is None:
        missing["jax"] = "jax not installed"
    elif program.jax is None:
        missing["jax"] = program.why_no_jax or "no port"
    else:
        port = jax_port(jax, program.jax)
        jargs = tuple(jax.numpy.asarray(a) if isinstance(a, np.ndarray) else a
                      for a in args)

        def run_jax():
            out = port(*jargs)
            return jax.block_until_ready(out)
        made["jax"] = run_jax
    return made, missing


def as_numpy(value):
    if isinstance(value, (tuple, list)):
        return [as_numpy(v) for v in value]
    return np.asarray(value)


def check(program: Program, quick: bool, pipelines: tuple = (None,)) -> dict:
    """Each peer's result against NumPy's: peer -> (max relative error, agrees)."""
    made, _ = runners(program, quick, pipelines)
    want = as_numpy(made["numpy"]())
    out = {}
    for peer in made:
        if peer != "numpy":
            err = max_rel_err(as_numpy(made[peer]()), want)
            out[peer] = (err, err <= program.tol)
    return out


def run_program(program: Program, quick: bool, repeat: int,
                pipelines: tuple = (None,)) -> dict:
    made, missing = runners(program, quick, pipelines)
    row: dict = {"program": program.name, "peers": {}}
    for peer, why in missing.items():
        row["peers"][peer] = {"status": f"n/a: {why}"}
    want = as_numpy(made["numpy"]())
    timed = []
    for peer, run in made.items():
        t0 = time.perf_counter()
        if peer.startswith("phylanx"):
            run = made[peer] = settled(run, seconds=0.5 if quick else 3.0)
        got = as_numpy(run())
        setup = time.perf_counter() - t0
        err = max_rel_err(got, want)
        ok = err <= program.tol
        row["peers"][peer] = {"status": "ok" if ok else f"disagrees ({err:.2g})",
                              "max_rel_err": err, "setup_s": setup, "times_s": []}
        if ok:
            timed.append(peer)
    for rep in range(repeat):
        shift = rep % len(timed)
        for peer in timed[shift:] + timed[:shift]:
            gc.collect()
            t0 = time.perf_counter()
            made[peer]()
            row["peers"][peer]["times_s"].append(time.perf_counter() - t0)
    base = row["peers"]["numpy"]
    base["median_s"] = statistics.median(base["times_s"])
    for peer in timed:
        r = row["peers"][peer]
        r["median_s"] = statistics.median(r["times_s"])
        r["ratio"] = r["median_s"] / base["median_s"]
    return row


def geomean(values: list[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def table(rows: list[dict]) -> str:
    seen = dict.fromkeys(p for row in rows for p in row["peers"] if p != "numpy")
    peers = sorted(seen, key=lambda p: p == "jax")      # the phylanx peers, then JAX
    label = {"jax": "JAX"}
    lines = ["| program | NumPy ms | " + " | ".join(f"{label.get(p, p)} / NumPy" for p in peers)
             + " |", "|---|---:|" + "---:|" * len(peers)]

    def cell(r):
        return f"{r['ratio']:.2f}x" if "ratio" in r else r["status"]
    for row in rows:
        p = row["peers"]
        lines.append(f"| {row['program']} | {p['numpy']['median_s'] * 1e3:.2f} | " + " | ".join(
            cell(p.get(peer, {"status": "n/a"})) for peer in peers) + " |")
    means = [geomean([r["peers"][peer]["ratio"] for r in rows
                      if "ratio" in r["peers"].get(peer, {})]) for peer in peers]
    lines.append("| **geometric mean** | | " + " | ".join(
        f"**{m:.2f}x**" if m else "-" for m in means) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, 3 repetitions")
    ap.add_argument("--repeat", type=int, help="timed repetitions per peer (default 7)")
    ap.add_argument("--only", help="comma-separated substrings of program names")
    ap.add_argument("--json", help="write the results to this file")
    ap.add_argument("--pipelines", help="comma-separated pipelines, one phylanx peer each "
                                        "(ast,ir)")
    args = ap.parse_args(argv)
    pipelines = tuple(args.pipelines.split(",")) if args.pipelines else (None,)
    repeat = args.repeat or (3 if args.quick else 7)
    chosen = [p for p in PROGRAMS if not args.only or any(
        s.strip().lower() in p.name.lower() for s in args.only.split(","))]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# general programs: {cpu_model()}, {os.cpu_count()} cores, "
          f"load {load:.1f}, repeat {repeat}{', quick' if args.quick else ''}",
          flush=True)
    rows = []
    for program in chosen:
        rows.append(run_program(program, args.quick, repeat, pipelines))
        print(f"  {program.name}: " + ", ".join(
            f"{peer} {r['ratio']:.2f}x" if "ratio" in r else f"{peer} {r['status']}"
            for peer, r in rows[-1]["peers"].items() if peer != "numpy"), flush=True)
    print()
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"cpu": cpu_model(), "load": load, "quick": args.quick, "repeat": repeat,
             "rows": rows}, indent=1))
    bad = [r["program"] for r in rows
           if any(not v["status"].startswith(("ok", "n/a")) for v in r["peers"].values())]
    if bad:
        print("disagreeing with NumPy: " + ", ".join(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
