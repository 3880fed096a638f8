"""The closures of ``runtime/operand_tests.py`` are compiled once, as bytecode is: their
code objects are kept beside the module's ``.pyc`` and a later process loads them
instead of compiling the template again (about 3 ms of a program's first call).  The
kept file is checked against the module it came from, and not written where bytecode
is not."""
from __future__ import annotations

import json
import linecache
import os
import subprocess
import sys
import traceback

import numpy as np
import pytest

from phylanx import Phylanx
from phylanx.errors import PhylanxError
from phylanx.runtime import operand_tests

CHILD = r"""
import builtins, json, sys
compiled = []
real_compile = builtins.compile
def counting(source, filename, *args, **kwargs):
    if str(filename).startswith("phylanx.runtime.operand_tests"):
        compiled.append(filename)
    return real_compile(source, filename, *args, **kwargs)
builtins.compile = counting
import numpy as np
from phylanx import Phylanx
def small(x, y):
    z = x * 2.0 + y
    return (z - 1.0).sum() + len(x)
got = Phylanx(small)(np.ones(3), np.ones(3))
print(json.dumps({"compiled": len(compiled), "value": float(got)}))
"""


def _child(tmp_path, prefix: str, *, write: bool = True) -> dict:
    script = tmp_path / "child.py"         # a decorated function needs a source file
    script.write_text(CHILD)
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(tmp_path / prefix),
               PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                         text=True, timeout=300, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_second_process_loads_the_closures_instead_of_compiling_them(tmp_path):
    first = _child(tmp_path, "kept")
    second = _child(tmp_path, "kept")
    assert first["value"] == second["value"] == 9.0
    assert first["compiled"] > 0             # the first one compiled the template
    assert second["compiled"] == 0           # the next one loaded what it kept
    # where bytecode is not written, nothing is kept: compiled again
    assert _child(tmp_path, "none", write=False)["compiled"] > 0
    assert not any((tmp_path / "none").rglob("operand_tests_closures*"))


@pytest.fixture
def kept(tmp_path, monkeypatch):
    """The kept file in ``tmp_path``, and the template compilations that happen."""
    path = tmp_path / "closures.bin"
    monkeypatch.setattr(operand_tests, "_kept_path", lambda: str(path))
    monkeypatch.setattr(operand_tests.sys, "dont_write_bytecode", False)
    compiled = []

    def counting(source, filename, mode):
        compiled.append(filename)
        return compile(source, filename, mode)
    monkeypatch.setattr(operand_tests, "compile", counting, raising=False)
    return path, compiled


def test_a_kept_file_of_another_template_or_format_is_compiled_again(kept, monkeypatch):
    path, compiled = kept
    codes = operand_tests._load_codes()
    every = len(operand_tests.SHAPES) * 2
    assert len(compiled) == every and path.exists()
    assert operand_tests._load_codes().keys() == codes.keys() and len(compiled) == every
    # the module changed (another size or time): its template may differ
    stamp = operand_tests._stamp()
    monkeypatch.setattr(operand_tests, "_stamp", lambda: (stamp[0], stamp[1] + 1, stamp[2]))
    operand_tests._load_codes()
    assert len(compiled) == 2 * every
    operand_tests._load_codes()
    assert len(compiled) == 2 * every        # kept again, with the new stamp
    for junk in (b"", b"not marshal", b"\x00" * 40):
        path.write_bytes(junk)
        assert operand_tests._load_codes().keys() == codes.keys()
    assert len(compiled) == 5 * every


def test_a_traceback_through_a_closure_shows_its_lines():
    def fails(x):
        return x + "a string"
    with pytest.raises(PhylanxError) as err:
        Phylanx(fails)(np.ones(2))
    text = "".join(traceback.format_exception(err.value.__cause__ or err.value))
    frames = [line for line in text.splitlines() if "phylanx.runtime.operand_tests[" in line]
    assert frames                            # the closure's frame, named by its shape
    name = frames[0].split('"')[1]
    assert any("return impl(" in line for line in linecache.getlines(name))
