"""Count how many of the original-style Python programs pass: ``pass/total``.

The corpus is ``tests/compat/original_style/*.py``: small scripts written the way
the original Phylanx's regression and unit scripts were (``@Phylanx`` functions,
``execution_tree``, PhySL text, asserts against NumPy).  Each program runs in its
own interpreter with a timeout; it passes when it exits with status 0.

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
import os
import re
import subprocess
import sys
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
        timeout: float = TIMEOUT_SECONDS) -> Outcome:
    """Run one program in a fresh interpreter whose ``phylanx`` is under ``pythonpath``."""
    env = dict(os.environ, PYTHONPATH=str(pythonpath))
    try:
        done = subprocess.run([sys.executable, str(program.path)], env=env,
                              cwd=program.path.parent, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return Outcome(program, False, f"timed out after {timeout:g} s")
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    raised = [line for line in lines if _RAISED.match(line)]   # not the caret lines
    detail = (raised or lines or [f"exit status {done.returncode}"])[-1]
    return Outcome(program, done.returncode == 0, "" if done.returncode == 0 else detail)


def run_all(items: Iterable[Program], pythonpath: str | Path = ROOT, jobs: int = 1,
            timeout: float = TIMEOUT_SECONDS) -> list[Outcome]:
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
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
