"""Every program of the original-style corpus (tests/compat/original_style/) runs as
the original's scripts did: one test per program, in its own process (forked by one
``compat_count.Launcher`` that has imported phylanx and NumPy, the most of a small
program's CPU time; ``test_the_launcher_runs_a_program_as_python_would`` checks that a
forked program sees what ``python program.py`` would).

A program marked ``# compat-difference:`` (a deliberate difference, listed in
docs/physl.md) or ``# compat-gap:`` (a feature not built) must fail: if it passes,
its mark is stale.  The target of issue 30: at least 90% of the programs pass.
"""
from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

import phylanx

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("compat_count", ROOT / "tools" / "compat_count.py")
compat_count = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("compat_count", compat_count)   # its dataclasses look themselves up
_spec.loader.exec_module(compat_count)

PROGRAMS = compat_count.programs()
#: the programs run against the phylanx this test imported (also an older tree's)
PHYLANX_TREE = Path(phylanx.__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def launcher():
    with compat_count.Launcher(PHYLANX_TREE) as shared:
        yield shared


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_program(program, launcher):
    outcome = compat_count.run(program, PHYLANX_TREE, launcher=launcher)
    if program.failure_kind is None:
        assert outcome.passed, outcome.detail
    else:
        assert not outcome.passed, \
            f"{program.name} passes: remove its compat-{program.failure_kind} mark"


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("`", ""))


def test_each_difference_is_documented():
    physl = (ROOT / "docs" / "physl.md").read_text()
    section = physl.split("## Where we differ from the original, on purpose", 1)[1]
    section = _plain(section.split("\n## ", 1)[0])
    for program in PROGRAMS:
        if program.failure_kind == "difference":
            claim = _plain(program.why.split(" (", 1)[0])
            assert claim in section, f"{program.name}: '{claim}' is not in docs/physl.md"


def test_the_corpus_is_broad_and_meets_the_target():
    # every unmarked program passes and every marked one fails (test_program), so the
    # count of passing programs is the count of unmarked ones
    assert len(PROGRAMS) >= 60
    passing = sum(p.failure_kind is None for p in PROGRAMS)
    assert passing / len(PROGRAMS) >= 0.9


def test_the_count_reports_failures_and_marks(tmp_path):
    (tmp_path / "a_passes.py").write_text("assert 1 + 1 == 2\n")
    (tmp_path / "b_fails.py").write_text("raise ValueError('boom')\n")
    (tmp_path / "c_gap.py").write_text("# compat-gap: not built\nraise SystemExit(3)\n")
    outcomes = compat_count.run_all(compat_count.programs(tmp_path), PHYLANX_TREE)
    text = compat_count.report(outcomes)
    assert [o.passed for o in outcomes] == [True, False, False]
    assert "b_fails.py: FAIL  (ValueError: boom)" in text
    assert "c_gap.py: not built" in text
    assert text.endswith("1/3 original-style programs pass (33.3%)")


_SEES = """
import json, os, sys, threading
import phylanx
import numpy as np
from phylanx import config
print("on stdout")
json.dump({"name": __name__, "argv": sys.argv, "cwd": os.getcwd(), "path0": sys.path[0],
           "stdin": sys.stdin.read(), "phylanx": phylanx.__file__,
           "fusion": config.get("fusion")}, open("seen.json", "w"))
config.set("fusion", not config.get("fusion"))   # must not reach the next program
threading.Thread(target=lambda: open("thread.txt", "w").write("joined")).start()
"""


def test_the_launcher_runs_a_program_as_python_would(tmp_path, launcher):
    """A forked program sees what ``python program.py`` shows it (its own name, argv,
    folder, an empty stdin, phylanx of the tree), its stdout is not the launcher's
    answer, a change to phylanx's state stays in its process, and it ends like an
    interpreter (non-daemon threads joined; exit status and error line reported)."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    sees = folder / "a_sees.py"
    sees.write_text(_SEES)
    (folder / "b_exits.py").write_text("import sys\nsys.exit(3)\n")
    (folder / "c_raises.py").write_text("def f():\n    raise KeyError('where')\nf()\n")
    (folder / "d_sleeps.py").write_text("import time\ntime.sleep(60)\n")
    seen = []
    for forked in (None, launcher, launcher):      # a fresh interpreter, then forks
        outcome = compat_count.run(compat_count.Program(sees), PHYLANX_TREE,
                                   launcher=forked)
        assert outcome.passed, outcome.detail
        seen.append(json.loads((folder / "seen.json").read_text()))
        assert (folder / "thread.txt").read_text() == "joined"
        (folder / "thread.txt").unlink()
    assert seen[1] == seen[0], "a forked program sees another world than python's"
    assert seen[2] == seen[1], "a program's change of phylanx's state reached the next"
    assert (seen[0]["name"], seen[0]["argv"], seen[0]["cwd"], seen[0]["stdin"]) == \
        ("__main__", [str(sees)], str(folder), "")
    exits, raises = (compat_count.run(compat_count.Program(folder / name), PHYLANX_TREE,
                                      launcher=launcher)
                     for name in ("b_exits.py", "c_raises.py"))
    assert (exits.passed, exits.detail) == (False, "exit status 3")
    assert (raises.passed, raises.detail) == (False, "KeyError: 'where'")
    slow = compat_count.run(compat_count.Program(folder / "d_sleeps.py"), PHYLANX_TREE,
                            timeout=0.5, launcher=launcher)
    assert (slow.passed, slow.detail) == (False, "timed out after 0.5 s")
    after = compat_count.run(compat_count.Program(sees), PHYLANX_TREE, launcher=launcher)
    assert after.passed, "the launcher did not survive a killed program"
