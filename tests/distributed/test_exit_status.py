"""The exit status a leaving rank tells the others (``faults.exit_status``): Python does
not give it to ``atexit`` handlers, so ``sys.exit``/``exit`` keep their ``SystemExit``
and it counts only if it ended the script.  Checked in plain subprocesses (no MPI)
against the status the process really exits with."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROLOGUE = """\
import atexit, sys
from phylanx.distributed import faults
faults.install(0, 1, None)
atexit.register(lambda: print("status", faults.exit_status(), flush=True))
def leave(code):
    sys.exit(code)
"""

CASES = {
    "falls off the end": "x = 1\n",
    "sys.exit in a function": "leave(4)\n",
    "exit builtin": "exit(5)\n",
    "caught in a function, then the end": """\
        def careful():
            try:
                leave(6)
            except SystemExit:
                pass
        careful()
        """,
    "caught at the top level, then the end": """\
        try:
            sys.exit(7)
        except SystemExit:
            pass
        x = 2
        """,
    "in a thread": """\
        import threading
        t = threading.Thread(target=leave, args=(8,))
        t.start(); t.join()
        """,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_status_told_to_other_ranks_is_the_one_the_process_exits_with(case, tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(PROLOGUE + textwrap.dedent(CASES[case]))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), PHYLANX_MPI="0"),
                          timeout=60)
    assert f"status {done.returncode}" in done.stdout.splitlines(), (done.returncode,
                                                                      done.stdout, done.stderr)
