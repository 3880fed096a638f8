"""Shared helpers of the instrumentation tests: running the CLI, small programs."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).resolve().parent / "programs"

FIB_PHYSL = "define(fib, n, if(n < 2, n, fib(n - 1) + fib(n - 2)))\nfib(10)\n"

SCRIPT = '''
import numpy as np
import phylanx
from phylanx import Phylanx

@Phylanx
def work(x, steps):
    s = 0.0
    for i in range(steps):
        y = np.dot(x, x)
        s = s + np.sum(y)
    return s

print(work(np.ones((60, 60)), 12))
phylanx.evaluate("parallel_block(" + ", ".join(
    "sum(dot(random(list(60, 60)), random(list(60, 60))))" for i in range(6)) + ")")
'''


def cli(*args: str, cwd: Path | None = None, timeout: float = 120):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PHYLANX_MPI", None)
    return subprocess.run([sys.executable, "-m", "phylanx", *args], capture_output=True,
                          text=True, cwd=cwd or ROOT, env=env, timeout=timeout)
