"""``phylanx physl``: files, -c, sys_argv, --print, --dump-ast, --dry-run, errors."""
from __future__ import annotations

import subprocess
import sys

from phylanx.cli.physl import main


def test_issue_example_prints_6765(capsys):
    code = "block(define(f, n, if(n < 2, n, f(n-1) + f(n-2))), f(20))"
    assert main(["-c", code, "--print"]) == 0
    assert capsys.readouterr().out == "6765\n"


def test_file_with_sys_argv_and_dump_ast(tmp_path, capsys):
    script = tmp_path / "mul.physl"
    script.write_text("#!/usr/bin/env phylanx\n// multiply the arguments\n"
                      "define(main, a, b, a * b)\napply(main, sys_argv)\n")
    assert main([str(script), "6", "7", "--print", "--dump-ast"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["define(main, a, b, a * b)", "apply(main, sys_argv)", "42"]


def test_dry_run_and_time(capsys):
    assert main(["-c", "cout(1)", "--dry-run", "--time"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "compile:" in captured.err


def test_errors_are_located_with_exit_status_1(capsys):
    assert main(["-c", "block(\n  undefined_fn(1))"]) == 1
    err = capsys.readouterr().err
    assert "<command line>:2:3: couldn't find function 'undefined_fn'" in err
    assert "Traceback" not in err


def test_missing_file(capsys, tmp_path):
    assert main([str(tmp_path / "nope.physl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_docs_lists_primitives(capsys):
    assert main(["--docs"]) == 0
    out = capsys.readouterr().out
    assert "parallel_block: parallel_block(__1)" in out


def test_python_dash_m_phylanx_physl():
    code = "block(define(f, n, if(n < 2, n, f(n-1) + f(n-2))), f(20))"
    proc = subprocess.run([sys.executable, "-m", "phylanx", "physl", "-c", code, "--print"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "6765"
