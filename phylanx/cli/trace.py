"""``phylanx trace``: record a whole run as a trace-event file (Perfetto, chrome://tracing).

    phylanx trace -o trace.json script.py [ARGS...]
    phylanx trace -n 2 -o trace.json program.physl [ARGS...]   # 2 localities (mpiexec)

With ``-n N`` the program runs under ``mpiexec`` (as ``phylanx run``); every rank
records, the clocks are aligned against rank 0 at the start, and rank 0 writes the
merged file.  A failing program still leaves its trace up to the failure (stderr
says "trace written up to the failure: FILE") and the exit status is 1.
``phylanx report FILE -o report.html`` turns the file into a page.
"""
from __future__ import annotations

import argparse
import glob
import os
import runpy
import subprocess
import sys
from pathlib import Path

from ..instrumentation import physl_view, trace_file
from ..instrumentation.timeline import DEFAULT_MAX_SIZE
from ..instrumentation.tracing import trace
from ..instrumentation.validate import TraceFileError, load


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="phylanx trace", description="Record a run as a Chrome/Perfetto trace file.",
        epilog="example: phylanx trace -n 2 -o trace.json examples/script.py")
    p.add_argument("-o", "--output", default="trace.json", help="trace file (trace.json)")
    p.add_argument("-n", "--localities", type=int, default=1, metavar="N",
                   help="number of localities (MPI ranks), default 1")
    p.add_argument("--threshold", type=float, default=None, metavar="US",
                   help="record inline evaluations at least this long (default: the "
                        "trace_threshold_us setting, 50)")
    p.add_argument("--max-size", type=float, default=DEFAULT_MAX_SIZE / 2**20, metavar="MB",
                   help="stop recording when the file would exceed this size (200 MB)")
    p.add_argument("--mpiexec", help="launcher to use with -n (default as phylanx run)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("program", help="a Python script (.py) or a PhySL file")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments of the program")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not Path(args.program).is_file():
        print(f"phylanx trace: cannot read {args.program}", file=sys.stderr)
        return 2
    if args.worker or args.localities == 1:
        return record(args)
    if args.localities < 1:
        print("phylanx trace: -n needs at least 1 locality", file=sys.stderr)
        return 2
    return launch(args)


def record(args) -> int:
    """Run the program in this process (one rank of several, or alone) and record it."""
    tracer = trace(args.output, args.threshold, int(args.max_size * 2**20))
    tracer.start()
    rank, size = tracer.recorder.rank, tracer.recorder.size
    try:
        if args.program.endswith(".py"):
            sys.argv = [args.program, *args.args]
            sys.path.insert(0, str(Path(args.program).resolve().parent))
            try:
                tracer.namespace = runpy.run_path(args.program, run_name="__main__")
            except SystemExit as e:
                if e.code not in (None, 0):
                    raise
        else:
            tracer.sources.append(_run_physl(args.program, args.args))
    except BaseException as e:  # noqa: BLE001 - recorded, reported, then the job ends
        tracer.finish(e)
        if size > 1:
            from ..distributed import faults
            from ..runtime.locality import here
            faults.report_and_abort(e, rank, size, getattr(here(), "world", None))
        _report_error(e)
        return 1
    written = tracer.finish()
    if written:
        print(f"phylanx trace: written {written} ({size} localit{'y' if size == 1 else 'ies'}, "
              f"{len(tracer.recorder.events)} events on rank 0); view it in "
              "https://ui.perfetto.dev or with 'phylanx report'", file=sys.stderr)
    return 0


def _report_error(e: BaseException) -> None:
    from ..errors import PhylanxError
    if isinstance(e, PhylanxError):
        print(f"error: {e}", file=sys.stderr)
    else:
        import traceback
        traceback.print_exception(type(e), e, e.__traceback__, file=sys.stderr)


def _run_physl(program: str, argv: list[str]) -> dict:
    from ..execution_tree import compiler_state
    from ..language import parse
    from . import physl as physl_cli
    with open(program, encoding="utf-8") as fh:
        source = fh.read()
    state = compiler_state("physl", program)
    physl_cli.bind_argv(state, argv)
    tree = parse(source, program)
    view = physl_view.physl_file_source(program, source, tree)
    state.run(state.compile_text(tree, program))
    return view


def launch(args) -> int:
    from .run import find_mpiexec
    launcher = args.mpiexec or find_mpiexec()
    if launcher is None:
        print("phylanx trace: no mpiexec found; pip install 'phylanx[mpi]'", file=sys.stderr)
        return 2
    out = args.output
    for stale in [out, *glob.glob(f"{glob.escape(out)}.rank*")]:
        if os.path.exists(stale):
            os.remove(stale)
    command = [launcher, "-n", str(args.localities), sys.executable, "-m", "phylanx", "trace",
               "--worker", "-o", out, "--max-size", str(args.max_size)]
    if args.threshold is not None:
        command += ["--threshold", str(args.threshold)]
    command += [args.program, *args.args]
    try:
        status = subprocess.call(command, env=dict(os.environ, PHYLANX_MPI="1"))
    except KeyboardInterrupt:
        status = 130
    parts = sorted(glob.glob(f"{glob.escape(out)}.rank*"))
    if parts:        # a rank failed: merge what the ranks wrote before the job ended
        try:
            traces = [load(p) for p in ([out] if os.path.exists(out) else []) + parts]
        except TraceFileError as e:
            print(f"phylanx trace: {e}", file=sys.stderr)
            return status or 1
        unique: dict[int, dict] = {}
        for t in traces:         # (a rank's part may also be inside ``out`` already)
            unique.setdefault(tuple(t["otherData"]["ranks"]), t)
        traces = list(unique.values())
        have = {r for t in traces for r in t["otherData"]["ranks"]}
        missing = [r for r in range(args.localities) if r not in have]
        merged = trace_file.pair_flows(trace_file.merge(traces, missing))
        trace_file.write(merged, out)
        for p in parts:
            os.remove(p)
    if status != 0 and os.path.exists(out):
        print(f"trace written up to the failure: {out}", file=sys.stderr)
    return status
