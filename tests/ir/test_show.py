"""What users see: ``f.ir(*args)`` and ``phylanx ir FILE`` print the specialised IR, and the
example of docs/ir.md is what they print."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from phylanx.cli import main as cli
from phylanx.ir.text import parse

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "ir.md"


def example() -> tuple[str, str]:
    text = DOC.read_text(encoding="utf-8")
    code = re.search(r"<!-- example: code -->\n```python\n(.*?)```", text, re.S).group(1)
    output = re.search(r"<!-- example: output -->\n```text\n(.*?)```", text, re.S).group(1)
    return code, output


def run_python(path: Path) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_documented_example_prints_what_the_doc_shows(tmp_path):
    code, output = example()
    script = tmp_path / "example.py"
    script.write_text(code)
    assert run_python(script) == output
    fn = parse(output)
    assert [p.facts.shape for p in fn.params] == [(5, 3), (3, 2), ()]


def test_cli_prints_the_ir_of_a_python_file(tmp_path):
    # in its own process, as users run it: in this one an earlier test's function of the
    # same name would make this one's PhySL name predict_2
    code, output = example()
    script = tmp_path / "example.py"
    script.write_text(code.replace("print(predict.ir(", "if 0: print(predict.ir("))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "phylanx", "ir", str(script), "-s",
                           "f64[5,3] f32[3,2] i64[]!scalar"], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "# predict\n" + output


def test_cli_prints_the_ir_of_a_physl_file(tmp_path, capsys):
    src = tmp_path / "prog.physl"
    src.write_text("define(f, a, b, block(define(c, matmul(a, b)), transpose(c)))\nf")
    assert cli.main(["ir", str(src), "-f", "f", "-s", "f32[4,3] f32[3,?]", "--locs"]) == 0
    out = capsys.readouterr().out
    assert "c.3:f32[4,?] = dot_general" in out and "%4:f32[?,4] = transpose(c.3)" in out
    assert f'@ "{src}:1:' in out
    assert cli.main(["ir", str(src)]) == 0
    assert "fn() {" in capsys.readouterr().out


def test_cli_refuses_a_bad_signature(tmp_path, capsys):
    src = tmp_path / "prog.physl"
    src.write_text("define(f, a, a)")
    assert cli.main(["ir", str(src), "-f", "f", "-s", "f64[3"]) == 1
    assert "error" in capsys.readouterr().err
