"""Several SPMD programs in one ``mpiexec`` job, one after the other (a launch costs 1-2 s
of interpreter, NumPy, phylanx and mpi4py start-up per rank; a test file with several
programs per rank count pays it once):
``several.py -- PROGRAM [ARGS...] [-- PROGRAM [ARGS...]]...``.

Each program runs as its own ``__main__`` (``runpy``: its own globals, ``__file__``,
``sys.argv`` and ``sys.path[0]``, as when launched alone); when it returns on this
rank the runner prints ``DONE <program file name> <rank>. <seconds> s`` (where the
job's time goes).  A program that fails
ends the job as it would alone (its located error names the program's file and line),
so the programs after it print no DONE and their tests say which program ended the
job (``test_mpi.assert_program_ok``).
"""
import runpy
import sys
import time
from pathlib import Path

from phylanx import distributed as dist


def runs(argv: list[str]) -> list[list[str]]:
    """``-- a.py x -- b.py`` -> ``[["a.py", "x"], ["b.py"]]``."""
    if not argv or argv[0] != "--":
        raise SystemExit("usage: several.py -- PROGRAM [ARGS...] [-- PROGRAM [ARGS...]]...")
    found: list[list[str]] = []
    for word in argv:
        if word == "--":
            found.append([])
        else:
            found[-1].append(word)
    if any(not run for run in found):
        raise SystemExit("several.py: a '--' without a program after it")
    return found


rank = dist.find_here()
for program, *args in runs(sys.argv[1:]):
    sys.argv = [program, *args]
    sys.path[0] = str(Path(program).resolve().parent)     # (its neighbours importable)
    start = time.perf_counter()
    runpy.run_path(program, run_name="__main__")
    print(f"DONE {Path(program).name} {rank}. {time.perf_counter() - start:.1f} s", flush=True)
