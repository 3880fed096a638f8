"""Count how many of the original-style Python programs pass: ``pass/total``.

The corpus is ``tests/compat/original_style/*.py``: small scripts written the way
the original Phylanx's regression and unit scripts were (``@Phylanx`` functions,
``execution_tree``, PhySL text, asserts against NumPy).  Each program runs in its
own process with a timeout; it passes when it exits with status 0.  The process is a
fresh interpreter (``run``), or, for a whole corpus, a fork of one interpreter that has
imported ``phylanx`` and NumPy and nothing else (``Launcher``): importing them is most of
a small program's CPU time, and a fork starts from the state a fresh interpreter reaches
by importing them, so the programs still share nothing.

A program that checks the original's behaviour where we differ on purpose (each
listed in docs/physl.md, "Where we differ from the original, on purpose") says so
in a line ``# compat-difference: <why>``; one that needs a feature not built
says ``# compat-gap: <what>``.  Both are counted like any other program (they are
expected to fail) and listed by name, never left out of the total.

    python tools/compat_count.py                      # this checkout
    python tools/compat_count.py --pythonpath /tmp/old   # another tree of phylanx
"""
from __future__ import annotations

import argparse
import json
import os
import re
import select
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "compat" / "original_style"
TIMEOUT_SECONDS = 180.0
_RAISED = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit)\b")
_EXPECTED_FAILURE = re.compile(r"^#\s*compat-(difference|gap):\s*(.+)$", re.MULTILINE)


@dataclass(frozen=True)
class Program:
    path: Path
    failure_kind: str | None = None   # "difference" (documented) or "gap" (not built)
    why: str | None = None            # why it is expected to fail

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class Outcome:
    program: Program
    passed: bool
    detail: str   # the last line of the error output, or the timeout


def programs(corpus: Path = CORPUS) -> list[Program]:
    """The corpus, in file-name order."""
    found = []
    for path in sorted(corpus.glob("*.py")):
        match = _EXPECTED_FAILURE.search(path.read_text())
        found.append(Program(path, *(match.groups() if match else ())))
    return found


def run(program: Program, pythonpath: str | Path = ROOT,
        timeout: float = TIMEOUT_SECONDS, launcher: Launcher | None = None) -> Outcome:
    """Run one program whose ``phylanx`` is under ``pythonpath``: in a fresh interpreter,
    or forked by ``launcher`` (which must have been started on the same tree)."""
    if launcher is not None:
        if Path(launcher.pythonpath).resolve() != Path(pythonpath).resolve():
            raise ValueError(f"the launcher imports phylanx from {launcher.pythonpath}, "
                             f"not from {pythonpath}")
        status, stderr = launcher.run(program.path, timeout)
    else:
        env = dict(os.environ, PYTHONPATH=str(pythonpath))
        try:
            done = subprocess.run([sys.executable, str(program.path)], env=env,
                                  cwd=program.path.parent, capture_output=True, text=True,
                                  timeout=timeout)
            status, stderr = done.returncode, done.stderr
        except subprocess.TimeoutExpired:
            status, stderr = None, ""
    if status is None:
        return Outcome(program, False, f"timed out after {timeout:g} s")
    lines = [line for line in stderr.splitlines() if line.strip()]
    raised = [line for line in lines if _RAISED.match(line)]   # not the caret lines
    detail = (raised or lines or [f"exit status {status}"])[-1]
    return Outcome(program, status == 0, "" if status == 0 else detail)


# The launcher's own program.  For each request line (a JSON [script, stderr file,
# timeout]) it forks, waits for the child at most the timeout (then kills it, through a
# pidfd: no other process can have taken the pid) and answers one line: the exit status,
# or null when it killed the child.  The child becomes the script as ``python script``
# would (its directory as the working directory and sys.path[0], its argv,
# ``__name__ == "__main__"``, stdin and stdout detached from the launcher's pipes, stderr
# to the file) and leaves by the interpreter's ordinary exit: an uncaught exception
# prints its traceback and exits with 1, SystemExit sets the status, atexit handlers run
# and non-daemon threads are joined.
_LAUNCHER = """
import json, os, runpy, select, signal, sys
import numpy, phylanx
for request in sys.stdin:
    script, stderr_path, timeout = json.loads(request)
    pid = os.fork()
    if pid == 0:
        folder = os.path.dirname(script)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.dup2(os.open(stderr_path, os.O_WRONLY | os.O_TRUNC), 2)
        os.chdir(folder)
        sys.argv = [script]
        sys.path[0] = folder
        del request, pid, null, timeout
        runpy.run_path(script, run_name="__main__")
        sys.exit(0)
    child = os.pidfd_open(pid)
    ended = select.select([child], [], [], timeout)[0]
    if not ended:
        signal.pidfd_send_signal(child, signal.SIGKILL)
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    os.close(child)
    print(json.dumps(status if ended else None), flush=True)
"""


class Launcher:
    """One interpreter with ``phylanx`` (from ``pythonpath``) and NumPy imported, forking
    a process per program; close it when done (or use it as a context manager)."""

    def __init__(self, pythonpath: str | Path = ROOT) -> None:
        self.pythonpath = str(pythonpath)
        env = dict(os.environ, PYTHONPATH=self.pythonpath)
        self._process = subprocess.Popen([sys.executable, "-c", _LAUNCHER], env=env,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         text=True, bufsize=1)

    def run(self, script: Path, timeout: float) -> tuple[int | None, str]:
        """The exit status of ``script`` (None when it ran out of ``timeout`` seconds and
        was killed) and what it wrote to stderr."""
        with tempfile.NamedTemporaryFile("r", suffix=".stderr") as stderr:
            self._process.stdin.write(json.dumps([str(script), stderr.name, timeout]) + "\n")
            self._process.stdin.flush()
            # one answer per request: nothing the text buffer could read ahead of select
            ready, _, _ = select.select([self._process.stdout], [], [],
                                        timeout + TIMEOUT_SECONDS)
            if not ready:
                raise TimeoutError(f"the launcher did not answer for {script}")
            line = self._process.stdout.readline()
            if not line:
                raise RuntimeError(f"the launcher ended (status {self._process.wait()}): "
                                   f"could it import phylanx from {self.pythonpath}?")
            return json.loads(line), stderr.read()

    def close(self) -> None:
        self._process.stdin.close()
        try:
            self._process.wait(timeout=TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process.stdout.close()

    def __enter__(self) -> Launcher:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def run_all(items: Iterable[Program], pythonpath: str | Path = ROOT, jobs: int = 1,
            timeout: float = TIMEOUT_SECONDS) -> list[Outcome]:
    """Every program's outcome: forked by one launcher, or with ``jobs`` > 1 that many
    fresh interpreters at once."""
    if jobs <= 1:
        with Launcher(pythonpath) as launcher:
            return [run(p, pythonpath, timeout, launcher) for p in items]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda p: run(p, pythonpath, timeout), items))


def report(outcomes: list[Outcome]) -> str:
    passed = sum(o.passed for o in outcomes)
    total = len(outcomes)
    lines = [f"{o.program.name}: {'pass' if o.passed else 'FAIL'}"
             + ("" if o.passed else f"  ({o.detail})") for o in outcomes]
    headings = {"difference": "counted, expected to fail: a deliberate difference (docs/physl.md, "
                              "'Where we differ from the original, on purpose')",
                "gap": "counted, expected to fail: a feature of the original not built"}
    for kind, heading in headings.items():
        marked = [o for o in outcomes if o.program.failure_kind == kind]
        if marked:
            lines += ["", heading + ":"]
            lines += [f"  {o.program.name}: {o.program.why}"
                      + ("  [passes: the mark is stale]" if o.passed else "") for o in marked]
    lines.append("")
    percent = 100.0 * passed / total if total else 0.0
    lines.append(f"{passed}/{total} original-style programs pass ({percent:.1f}%)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pythonpath", default=str(ROOT),
                        help="the directory holding the phylanx package to test")
    parser.add_argument("--corpus", default=str(CORPUS), help="the programs' directory")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="programs run at once")
    parser.add_argument("--timeout", type=float, default=TIMEOUT_SECONDS,
                        help="seconds each program may take")
    args = parser.parse_args(argv)
    outcomes = run_all(programs(Path(args.corpus)), args.pythonpath, args.jobs, args.timeout)
    print(report(outcomes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
