"""The compiled plan is immutable: no layer assigns a node's closure after compilation.

Adaptive choices (inline or task, a closure variant, in-place reuse, a fused region
given back, counting, recording) live in the scheduler's side table
(``phylanx/runtime/choices.py``): a static scan forbids assigning ``run``/``inline``
anywhere but while the node is built, and a dynamic test runs a program with every
layer active and checks that no node's closures changed.
"""
from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import phylanx
from phylanx import config
from phylanx import execution_tree as et
from phylanx.instrumentation.timeline import Recorder
from phylanx.runtime import choices, measure

PACKAGE = Path(phylanx.__file__).parent
#: the node's closure attributes, set only while the compiler builds the node
PLAN_ATTRIBUTES = {"run", "inline"}
ALLOWED = {("runtime/nodes.py", "__init__"), ("runtime/nodes.py", "set_run")}
#: the side table's composed closure, set only by the side table
TABLE_ATTRIBUTES = {"call"}


def _assignments(tree: ast.AST, own: bool = False):
    """(attribute, enclosing function name, line) of every assignment to an attribute,
    including ``setattr(x, "name", ...)``, but ``self.<name> = ...``: an object setting
    its own attribute (a rewriter's ``self.inline``) is not a layer changing a node,
    unless ``own`` (the files of the classes owning these attributes: the node's and
    the side table's)."""
    found = []

    def visit(node: ast.AST, func: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            func = node.name
        targets: list = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        stack = list(targets)
        while stack:
            t = stack.pop()
            if isinstance(t, (ast.Tuple, ast.List)):
                stack.extend(t.elts)
            elif isinstance(t, ast.Attribute) and (own or not (
                    isinstance(t.value, ast.Name) and t.value.id == "self")):
                found.append((t.attr, func, t.lineno))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "setattr" and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)):
            found.append((node.args[1].value, func, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, func)

    visit(tree, "<module>")
    return found


def test_no_layer_assigns_a_nodes_closure_after_compilation():
    offending = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        own = rel in ("runtime/nodes.py", "runtime/choices.py")
        for attr, func, line in _assignments(ast.parse(path.read_text(), rel), own):
            if attr in PLAN_ATTRIBUTES and (rel, func) not in ALLOWED:
                offending.append(f"{rel}:{line} assigns .{attr} in {func}")
            if attr in TABLE_ATTRIBUTES and rel != "runtime/choices.py":
                offending.append(f"{rel}:{line} assigns .{attr} outside the side table")
    assert offending == []


def test_the_scan_sees_assignments():
    """Guard: the scan finds each form it forbids (so the test above can fail)."""
    code = ("def f(n):\n    n.run = g\n    a.b.inline, c = 1, 2\n"
            "    setattr(n, 'run', g)\n    self.run = g\n")
    assert [(a, f) for a, f, _ in _assignments(ast.parse(code))] == [
        ("run", "f"), ("inline", "f"), ("run", "f")]


PROGRAM = """
define(work, n, block(define(s, 0), define(i, 0),
                      while(i < n, block(store(s, s + i), store(i, i + 1))), s))
define(step, w, g, k, block(
    for_each(lambda(j, store(w, w - 0.5 * g * w)), range(k)),
    w))
define(small, x, x * 2.0 + 1.0)
define(fib, n, if(n < 2, n, fib(n - 1) + fib(n - 2)))
define(main, w, g, block(
    define(a, work(30) + work(40)),
    define(b, step(w, g, 3)),
    define(c, small(1.5)),
    define(d, fib(8)),
    list(a, sum(b), c, d)))
"""


@pytest.fixture
def layers(tmp_path):
    """Every adaptive layer active: quick policy decisions, fusion on (numba's cache in
    a temporary folder), regions that give their node back after few evaluations."""
    pytest.importorskip("numba")
    names = {"eval_count_threshold": 2, "exec_time_upper_threshold": 1_000,
             "exec_time_lower_threshold": 500, "fusion": True,
             "fusion_min_time_us": 1e9, "fusion_background": False,
             "fusion_cache_dir": str(tmp_path)}
    for name, value in names.items():
        config.set(name, value)
    yield
    for name in names:
        config.reset(name)


def _expected(w, g):
    for _ in range(3):
        w = w - 0.5 * g * w
    fib = [0, 1]
    while len(fib) < 9:
        fib.append(fib[-1] + fib[-2])
    return [sum(range(30)) + sum(range(40)), w.sum(), 4.0, fib[8]]


def test_evaluating_with_every_layer_active_leaves_the_plan_unchanged(layers):
    from phylanx import fusion
    state = et.compiler_state("immutable", "<immutable>")
    root = state.compile_text(PROGRAM)
    state.run(root)
    main = state.compile_text("main")
    nodes = [n for r in state.snippets for n in r.walk()]
    plan = {id(n): (n.run, n.inline) for n in nodes}
    regions = [r for s in state.snippets for r in fusion.regions_of(s)]
    assert regions, "the program has a fused region"
    rng = np.random.default_rng(1)
    w, g = rng.normal(size=4096), rng.normal(size=4096)   # in-place reuse: >= 2048
    fn = state.run(main)
    for i in range(80):
        if i == 10:
            for r in state.snippets:
                measure.enable(r)
        if i == 30:
            recorder = Recorder(threshold_us=0).start()
        if i == 50:
            recorder.stop()
            for r in state.snippets:
                measure.disable(r)
        result = et.invoke(fn, (w, g), {})
        expected = _expected(w, g)
        assert result[0] == expected[0] and result[2] == expected[2]
        assert result[3] == expected[3]
        np.testing.assert_allclose(result[1], expected[1], rtol=1e-12)
    # the layers did act (so the test could see a swap) ...
    assert any(n.choice.eval_direct == 0 for n in nodes)           # policy: a task
    assert any(n.choice.variant is not n.inline for n in nodes)    # in-place / fusion
    # a region given back (and, later, looked at again: its revisit period grew)
    assert any(r.revisit_after > choices.REVISIT_FIRST for r in regions)
    # ... and no node's closures changed
    changed = [n for n in nodes if (n.run, n.inline) != plan[id(n)]]
    assert changed == []
    assert all(n.choice.call is n.choice.inner for n in nodes)      # recording lifted


def test_a_node_evaluates_through_its_entry():
    """Guard: parents read the side table's composed closure, so a layer there is seen
    without touching the plan."""
    state = et.compiler_state("entry", "<entry>")
    node = state.compile_text("block(define(f, x, x * 2 + 1), f(3) + f(4))")
    seen = []
    calls = [n for n in node.walk() if n.primitive == "call-function"]

    def spy(entry):
        inner = entry.inner
        return lambda frame: seen.append(entry.node) or inner(frame)
    for c in calls:
        choices.set_recording(c, spy(c.choice))
    assert state.run(node) == 7 + 9
    assert seen == calls
    for c in calls:
        choices.set_recording(c, None)
