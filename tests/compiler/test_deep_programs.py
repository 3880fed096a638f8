"""Issue 26 item 11: programs nested just under the parser's limit compile (the rewrite
passes run under the evaluation's recursion guard), a pass that still runs out of stack
gives a located PhylanxCompileError, and error messages cap a long PhySL stack."""
from __future__ import annotations

import subprocess
import sys

import pytest

import phylanx
from phylanx.compiler import rewrite
from phylanx.errors import PhylanxCompileError, PhylanxRuntimeError
from phylanx.execution_tree import compiler_state
from phylanx.language.parser import MAX_DEPTH

DEPTH = MAX_DEPTH - 1   # just under the parser's limit
DEEP_LIST = "list(" * DEPTH + "7" + ")" * DEPTH


def nesting_depth(value) -> tuple[int, object]:
    """How many lists wrap the innermost value, and that value (iteratively)."""
    depth = 0
    while isinstance(value, list):
        assert len(value) == 1
        value, depth = value[0], depth + 1
    return depth, value


def _compile_and_run_below(frames: int):
    # the caller's own Python frames count against the limit too
    if frames:
        return _compile_and_run_below(frames - 1)
    state = compiler_state()
    return state.run(state.compile_text(DEEP_LIST))


def test_program_nested_just_under_the_parser_limit_compiles_through_the_api():
    result = _compile_and_run_below(100)
    assert nesting_depth(result) == (DEPTH, 7)


def test_program_nested_just_under_the_parser_limit_runs_through_physl_cli(tmp_path):
    script = tmp_path / "deep.physl"
    script.write_text(DEEP_LIST + "\n")
    proc = subprocess.run([sys.executable, "-m", "phylanx", "physl", str(script), "--print",
                           "--dump-ast"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert proc.stdout.splitlines() == [DEEP_LIST, "[" * DEPTH + "7" + "]" * DEPTH]


def test_a_pass_out_of_stack_is_a_located_compile_error(monkeypatch):
    def exhausted(program):
        raise RecursionError("maximum recursion depth exceeded")
    monkeypatch.setattr(rewrite, "PASSES", [rewrite.engine.Pass("exhausted", exhausted)])
    with pytest.raises(PhylanxCompileError, match="nested too deep to compile") as info:
        phylanx.evaluate("\n  list(1)")
    assert info.value.loc is not None and info.value.primitive == "compiler"


def test_a_deep_recursion_message_caps_the_stack():
    with pytest.raises(PhylanxRuntimeError, match="recursion too deep") as info:
        phylanx.evaluate("block(define(f, n, f(n + 1)), f(0))")
    error = info.value
    text = str(error)
    frame_lines = [ln for ln in text.splitlines() if ln.startswith("  [")]
    assert len(error.frames) > 100
    assert len(frame_lines) == 20
    assert f"... {len(error.frames) - 20} more frames ..." in text
    # first and last ten, numbered as in the whole stack
    assert frame_lines[0].startswith("  [1]: ") and frame_lines[9].startswith("  [10]: ")
    assert frame_lines[-1].startswith(f"  [{len(error.frames)}]: ")
    assert len(text) < 5000


def test_a_short_stack_is_shown_whole():
    with pytest.raises(PhylanxRuntimeError) as info:
        phylanx.evaluate("block(define(g, n, slice(list(1), n)), define(f, n, g(n)), f(5))")
    text = str(info.value)
    assert "more frames" not in text
    assert len([ln for ln in text.splitlines() if ln.startswith("  [")]) == \
        len(info.value.frames) >= 2
