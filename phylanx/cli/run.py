"""``phylanx run``: start N localities (MPI ranks) running one program (SPMD).

    phylanx run -n 4 script.py [ARGS...]        a Python script, ARGS in sys.argv
    phylanx run -n 2 program.physl [ARGS...]    PhySL; ARGS (PhySL expressions) in sys_argv
    phylanx run -n 8 --hostfile hosts app.py    hosts passed to the launcher

It wraps ``mpiexec`` (the one next to this Python, which the ``mpich`` wheel installs,
else the first on PATH; ``--mpiexec`` chooses another) and exits with its status.
Each rank runs ``python -m phylanx run --worker PROGRAM``, which reports an uncaught
error as ``[rank R] file:line:col: message`` and aborts the job, so a failure on one
rank never leaves the others waiting.  A script started directly by ``mpiexec`` or
``srun`` behaves the same (``import phylanx`` sets it up).
"""
from __future__ import annotations

import argparse
import os
import runpy
import shutil
import subprocess
import sys
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="phylanx run", description="Run a program on N localities (MPI ranks).",
        epilog="example: phylanx run -n 2 examples/script.py")
    p.add_argument("-n", "--localities", type=int, default=1, metavar="N",
                   help="number of localities (MPI ranks), default 1")
    p.add_argument("--hostfile", help="file of host names, passed to the launcher")
    p.add_argument("--mpiexec", help="launcher to use (default: mpiexec next to this Python, "
                                     "or on PATH)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("program", help="a Python script (.py) or a PhySL file")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments of the program")
    return p


def find_mpiexec() -> str | None:
    beside = Path(sys.executable).parent / "mpiexec"
    if beside.exists():
        return str(beside)
    return shutil.which("mpiexec")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.worker:
        return run_worker(args.program, args.args)
    if args.localities < 1:
        print("phylanx run: -n needs at least 1 locality", file=sys.stderr)
        return 2
    if not Path(args.program).is_file():
        print(f"phylanx run: cannot read {args.program}", file=sys.stderr)
        return 2
    launcher = args.mpiexec or find_mpiexec()
    if launcher is None:
        print("phylanx run: no mpiexec found; pip install 'phylanx[mpi]' (the mpich wheel "
              "brings one) or give --mpiexec", file=sys.stderr)
        return 2
    command = [launcher, "-n", str(args.localities)]
    if args.hostfile:
        command += ["-hostfile", args.hostfile]
    command += [sys.executable, "-m", "phylanx", "run", "--worker", args.program, *args.args]
    env = dict(os.environ, PHYLANX_MPI="1")
    try:
        return subprocess.call(command, env=env)
    except KeyboardInterrupt:
        return 130


def run_worker(program: str, argv: list[str]) -> int:
    """What each rank runs: the program, with faults reported once and the job aborted."""
    from ..distributed import faults
    from ..runtime.locality import here
    locality = here()        # (created at import under a launcher; here for clarity)
    rank, size = locality.id(), locality.count()
    world = getattr(locality, "world", None)
    try:
        if program.endswith(".py"):
            sys.argv = [program, *argv]
            sys.path.insert(0, str(Path(program).resolve().parent))
            runpy.run_path(program, run_name="__main__")
        else:
            _run_physl(program, argv)
    except SystemExit as e:
        faults.set_exit_status(faults.status_code(e.code))   # told to the other ranks
        raise
    except BaseException as e:  # noqa: BLE001 - every error ends the whole job
        faults.report_and_abort(e, rank, size, world)
    faults.set_exit_status(0)
    return 0


def _run_physl(program: str, argv: list[str]) -> None:
    from ..execution_tree import compiler_state
    from ..language import parse
    from . import physl as physl_cli
    with open(program, encoding="utf-8") as fh:
        source = fh.read()
    state = compiler_state("physl", program)
    physl_cli.bind_argv(state, argv)
    state.run(state.compile_text(parse(source, program), program))
