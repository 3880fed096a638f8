"""``phylanx primitives`` and the ``phylanx`` dispatcher (phylanx/cli/main.py)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from phylanx.cli import main as cli_main
from phylanx.cli import primitives as cli
from phylanx.primitives.registry import all_specs


def test_listing_shows_every_primitive_by_category(capsys):
    assert cli_main.main(["primitives"]) == 0
    out = capsys.readouterr().out
    for spec in all_specs():
        assert f"  {spec.name}" in out
        assert f"\n{spec.category} (" in "\n" + out
    assert cli_main.main(["primitives", "--category", "core"]) == 0
    core_only = capsys.readouterr().out
    assert "cout" in core_only and "\narithmetics (" not in core_only


def test_details_of_named_primitives(capsys):
    assert cli.main(["cout"]) == 0
    out = capsys.readouterr().out
    assert "cout(__1)" in out and "example:" in out
    assert cli.main(["no_such_primitive"]) == 1
    assert "no primitive named 'no_such_primitive'" in capsys.readouterr().err


def test_markdown_has_a_row_per_primitive_and_escapes_pipes():
    text = cli.markdown()
    for spec in all_specs():
        assert f"| {cli._code(spec.name)} " in text
        assert f"## {spec.category}" in text
    assert "_1 \\|\\| __2" in text  # the infix pattern of __or inside a table cell


def test_markdown_check(tmp_path, capsys):
    doc = tmp_path / "primitives.md"
    doc.write_text(cli.markdown(), encoding="utf-8")
    assert cli.main(["--markdown", "--check", str(doc)]) == 0
    doc.write_text(cli.markdown().replace("## core", "## kernel"), encoding="utf-8")
    assert cli.main(["--markdown", "--check", str(doc)]) == 1
    err = capsys.readouterr().err
    assert "out of date" in err and "--markdown > docs/primitives.md" in err and "-## kernel" in err
    assert cli.main(["--markdown", "--check", str(tmp_path / "missing.md")]) == 1
    assert cli.main(["--check", str(doc)]) == 2


def test_dispatcher_usage_and_missing_subcommand(monkeypatch, capsys):
    assert cli_main.main([]) == 2
    assert "primitives" in capsys.readouterr().err
    monkeypatch.setitem(cli_main.SUBCOMMANDS, "translate", ("no_such_module", "help"))
    assert cli_main.main(["translate", "x.py"]) == 2
    assert "not available" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_main.main(["bogus"])


def test_python_dash_m_phylanx():
    done = subprocess.run([sys.executable, "-m", "phylanx", "primitives", "--coverage"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "user-visible, non-distributed names:" in done.stdout
