"""Functions whose source is not in a file: exec, stdin, the REPL, notebooks, source=."""
from __future__ import annotations

import linecache
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from phylanx import Phylanx, PhylanxError, PhylanxSyntaxError
from phylanx.frontend.options import UnsupportedOptionError
from phylanx.frontend.source import SourceUnavailableError

ROOT = Path(__file__).resolve().parents[2]
CELL = "def cell_fn(x, n):\n    y = x * n\n    return np.sum(y) + 1\n"


def _exec(text: str, filename: str, register: bool) -> dict:
    """Run ``text`` as ``exec`` does, optionally registering it in linecache as IPython
    registers a notebook cell (mtime None: ``linecache.checkcache`` keeps it)."""
    if register:
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"np": np}
    exec(compile(text, filename, "exec"), namespace)
    return namespace


def test_exec_with_a_linecache_entry_works_like_a_notebook_cell():
    fn = _exec(CELL, "<ipython-input-7-0123456789ab>", register=True)["cell_fn"]
    x = np.arange(4.0)
    assert Phylanx(fn)(x, 3) == fn(x, 3)


def test_errors_point_into_a_registered_cell():
    text = "def bad_cell(x):\n    class A:\n        pass\n    return x\n"
    fn = _exec(text, "<ipython-input-8-0123456789ab>", register=True)["bad_cell"]
    with pytest.raises(PhylanxSyntaxError) as info:
        Phylanx(fn)
    assert (info.value.loc.file, info.value.loc.line) == ("<ipython-input-8-0123456789ab>", 2)
    assert "    class A:" in str(info.value)


def test_exec_of_a_bare_string_is_a_located_error_saying_what_to_do():
    fn = _exec(CELL, "<string>", register=False)["cell_fn"]
    with pytest.raises(SourceUnavailableError) as info:
        Phylanx(fn)
    err = info.value
    assert isinstance(err, PhylanxError) and not isinstance(err, OSError)
    assert "could not get the source code of 'cell_fn' (defined in <string>)" in str(err)
    assert "define it in a file, or pass Phylanx(source=...)" in str(err)
    assert (err.loc.file, err.loc.line) == ("<string>", 1)


def test_source_option_translates_a_function_without_a_file():
    fn = _exec(CELL, "<string>", register=False)["cell_fn"]
    decorated = Phylanx(source=CELL)(fn)
    x = np.arange(5.0)
    assert decorated(x, 2) == fn(x, 2)
    assert "cell_fn" in decorated.get_physl_source()


def test_source_option_errors_are_located_in_the_given_text():
    text = "def g(x):\n    y = x\n    del y\n    return x\n"
    fn = _exec(text, "<string>", register=False)["g"]
    with pytest.raises(PhylanxSyntaxError) as info:
        Phylanx(source=text)(fn)
    assert info.value.loc.line == 3 and "    del y" in str(info.value)


def test_source_option_for_a_lambda():
    square = eval("lambda v: v * v")   # noqa: S307 - a lambda with no source anywhere
    with pytest.raises(SourceUnavailableError):
        Phylanx(square)
    assert Phylanx(source="lambda v: v * v")(square)(3.0) == 9.0


@pytest.mark.parametrize("text, message", [
    ("def other(x):\n    return x\n", "has no 'def cell_fn'"),
    ("def cell_fn(a, b):\n    return a\n", "parameters (a, b) but the function takes (x, n)"),
    ("def cell_fn(x, n:\n", "not valid Python"),
])
def test_source_option_that_does_not_fit_the_function(text, message):
    fn = _exec(CELL, "<string>", register=False)["cell_fn"]
    with pytest.raises(SourceUnavailableError, match=message.replace("(", r"\(")
                       .replace(")", r"\)")):
        Phylanx(source=text)(fn)


def test_source_option_must_be_text():
    with pytest.raises(UnsupportedOptionError, match="source must be the function's source"):
        Phylanx(source=3)


def test_a_helper_without_source_is_reported_at_the_call():
    helper = _exec("def helper(v):\n    return v + 1\n", "<string>", register=False)["helper"]

    @Phylanx
    def calls_helper(x):
        return helper(x) * 2

    with pytest.raises(PhylanxSyntaxError, match="could not get the source code of 'helper'") \
            as info:
        calls_helper(1.0)
    assert info.value.loc.file == __file__ and "helper(x)" in str(info.value)


# the blank line ends the def at the interactive prompt
PROGRAM = """\
import numpy as np
from phylanx import Phylanx
@Phylanx
def f(x):
    return np.sum(x) + 1

print("never", f(np.ones(3)))
"""
WITH_SOURCE = """\
import numpy as np
from phylanx import Phylanx
src = "def f(x):\\n    return np.sum(x) + 1\\n"
exec(src)
f = Phylanx(source=src)(f)
print("result", f(np.ones(3)))
"""


def _python(args: list[str], stdin: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *args], input=stdin, capture_output=True,
                          text=True, env=env, timeout=120, cwd=ROOT)


@pytest.mark.parametrize("args", [["-"], ["-i"]], ids=["stdin script", "REPL"])
def test_a_function_fed_through_stdin(args):
    failed = _python(args, PROGRAM)
    assert "SourceUnavailableError: <stdin>:" in failed.stderr
    assert "could not get the source code of 'f' (defined in <stdin>)" in failed.stderr
    assert "OSError" not in failed.stderr and "never" not in failed.stdout
    worked = _python(args, WITH_SOURCE)
    assert "result 4.0" in worked.stdout, worked.stderr
