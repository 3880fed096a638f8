"""``phylanx physl`` instrumentation options: counters (exact counts), tree dumps, pictures."""
from __future__ import annotations

import csv
import io

import pytest

from .helpers import FIB_PHYSL, cli


@pytest.fixture
def fib(tmp_path):
    path = tmp_path / "fib.physl"
    path.write_text(FIB_PHYSL)
    return path


def _rows(text: str) -> dict[str, list[str]]:
    return {row[1]: row for row in csv.reader(io.StringIO(text))}


def test_dump_counters_gives_exact_call_counts_for_fib(fib, tmp_path):
    out = tmp_path / "counters.csv"
    done = cli("physl", str(fib), f"--dump-counters={out}")
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert text.splitlines()[0] == "primitive_instance,display_name,count,time,eval_direct"
    rows = _rows(text)
    # fib(10) evaluates its body 177 times: 88 calls of each recursive call site
    assert rows["if(1, 16)"][2] == "177"
    assert rows["call-function/fib(1, 29)"][2] == "88"
    assert rows["call-function/fib(1, 42)"][2] == "88"
    assert rows["lt(1, 21)"][2] == "177"
    assert rows["call-function/fib(2, 1)"][2] == "1"
    assert all(int(r[3]) >= 0 for name, r in rows.items() if name != "display_name")


def test_performance_prints_trees_and_counters(fib):
    done = cli("physl", str(fib), "--performance")
    assert done.returncode == 0, done.stderr
    newick, rest = done.stdout.split("\n", 1)
    assert newick.startswith("(((") and newick.endswith(f") {fib};")
    assert rest.startswith(f'graph "{fib}" {{')
    assert "primitive_instance,display_name,count,time,eval_direct" in rest


def test_dump_tree_options_write_files_or_stdout(fib, tmp_path):
    done = cli("physl", str(fib), f"--dump-dot={tmp_path / 't.dot'}",
               f"--dump-newick-tree={tmp_path / 't.nwk'}", "--print-counters")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "t.dot").read_text().startswith('graph "')
    assert (tmp_path / "t.nwk").read_text().rstrip().endswith(";")
    table = done.stdout.splitlines()
    assert table[0].split()[:3] == ["primitive", "count", "time"]
    assert table[1].split()[0] in ("if(1,", "block(1,", "call-function/fib(2,", "add(1,")
    done = cli("physl", str(fib), "--dump-dot")          # no FILE: stdout
    assert done.stdout.startswith('graph "')


def test_dump_svg_draws_the_tree(fib, tmp_path):
    out = tmp_path / "tree.svg"
    done = cli("physl", str(fib), f"--dump-svg={out}", "--color-by=self")
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert "<svg" in text and "if" in text and "count 177" in text
    assert "tree picture written" in done.stderr
