"""The import direction between the packages of phylanx/ (architecture layering).

Every ``import`` in every module (also those inside functions) is parsed with
``ast`` and resolved to a top-level unit of the package (``errors``,
``language``, ``primitives`` ...); so is a string constant that names a phylanx
module (``importlib.import_module(name)`` imports it all the same).  The rules
(docs/layout.md, "Import direction"):

* the base modules ``source errors config values exceptions atomic`` import only each
  other;
* ``language`` imports only the base modules;
* ``runtime`` imports only the base modules and ``language``;
* ``ir`` (the normalized IR, issue 27) imports only the base modules and ``language``:
  it sits below both ``compiler`` and ``runtime``;
* ``kernels`` (compiled numba kernels and their build machinery) imports only the base
  modules and ``runtime``: it sits below both ``primitives`` and ``fusion``;
* ``primitives`` does not import the layers above it: ``compiler``, ``execution_tree``,
  ``frontend``, ``cli``, ``fusion``, ``autodiff``, ``nn``, ``distributed``,
  ``instrumentation``, ``plugins`` (the special forms' builders live in the compiler;
  the registry holds only their declarations; the layers above fill the rule tables,
  and ``phylanx/_wiring.py`` tells each table which layer that is);
* ``compiler`` does not import ``frontend``, ``cli``, ``autodiff`` or ``nn``;
* ``fusion`` does not import ``frontend``, ``cli``, ``autodiff``, ``nn``,
  ``distributed`` or ``instrumentation``;
* ``autodiff`` does not import ``nn``, ``distributed`` or ``cli`` (both sit on it);
* ``distributed`` (MPI localities) sits above ``runtime``, ``compiler`` and
  ``autodiff``: it does not import ``frontend``, ``cli`` or ``nn``, and
  ``runtime``/``compiler`` do not import it (the runtime gets the MPI locality through
  ``set_locality_factory``; ``phylanx/__init__`` loads its PhySL primitives, declared in
  ``distributed/primitives/<category>/``);
* ``instrumentation`` is reached from the runtime only through ``runtime/hooks.py``
  (the runtime's allow-list) and does not import ``frontend``, ``cli``, ``autodiff``,
  ``nn`` or ``fusion``;
* nothing but ``phylanx/__main__.py`` imports ``cli``;
* the modules of ``frontend`` import each other without a cycle (imports inside
  functions count: a lazy import only hides a cycle).
"""
from __future__ import annotations

import ast
import functools
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "phylanx"
BASE = {"source", "errors", "config", "values", "exceptions", "atomic"}

#: unit -> units it may import (besides itself); None: no allow-list
ALLOWED: dict[str, set[str] | None] = {
    **{unit: BASE for unit in BASE},
    "language": BASE,
    "runtime": BASE | {"language"},
    "kernels": BASE | {"runtime"},
    "ir": BASE | {"language"},
}
#: unit -> units it must not import
FORBIDDEN: dict[str, set[str]] = {
    "primitives": {"compiler", "execution_tree", "frontend", "cli", "fusion", "autodiff", "nn",
                   "distributed", "instrumentation", "plugins"},
    "compiler": {"frontend", "cli", "distributed", "autodiff", "nn"},
    "fusion": {"frontend", "cli", "autodiff", "nn", "distributed", "instrumentation"},
    "autodiff": {"nn", "distributed", "cli"},
    "distributed": {"frontend", "cli", "nn"},
    "instrumentation": {"frontend", "cli", "autodiff", "nn", "fusion"},
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _unit(module: str) -> str | None:
    """The top-level unit of a ``phylanx.*`` module name (None outside phylanx)."""
    parts = module.split(".")
    if parts[0] != "phylanx":
        return None
    return parts[1] if len(parts) > 1 else "phylanx"


def _is_submodule(module: str) -> bool:
    path = ROOT.parent.joinpath(*module.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


_MODULE_NAME = re.compile(r"phylanx(\.\w+)+")


class _Imports(ast.NodeVisitor):
    """Collects (imported module, line) for one file."""

    def __init__(self, module: str, is_package: bool):
        self.package = module if is_package else module.rpartition(".")[0]
        self.found: list[tuple[str, int]] = []

    def visit_Import(self, node):  # noqa: N802
        for alias in node.names:
            self.found.append((alias.name, node.lineno))

    def visit_Constant(self, node):  # noqa: N802
        # a module imported by name (importlib, a table's loader) is imported all the same
        if isinstance(node.value, str) and _MODULE_NAME.fullmatch(node.value) \
                and _is_submodule(node.value):
            self.found.append((node.value, node.lineno))

    def visit_ImportFrom(self, node):  # noqa: N802
        if node.level:
            base = self.package.split(".")
            base = base[: len(base) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        for alias in node.names:
            # `from .. import compiler` imports the submodule phylanx.compiler
            candidate = f"{target}.{alias.name}"
            self.found.append((candidate if _is_submodule(candidate) else target,
                               node.lineno))


@functools.cache
def _parsed_imports() -> tuple[tuple[str, Path, str, int], ...]:
    """Every (module, path, imported, line) of phylanx/, parsed once per test session:
    the tree does not change while the tests run, and three tests read it (parsing it
    all was most of this file's time)."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        module = _module_name(path)
        visitor = _Imports(module, path.name == "__init__.py")
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        found += [(module, path, imported, line) for imported, line in visitor.found]
    return tuple(found)


def _all_imports():
    return iter(_parsed_imports())


def _violations() -> list[str]:
    out = []
    for module, path, imported, line in _all_imports():
        src, dst = _unit(module), _unit(imported)
        if dst is None or dst == src:
            continue
        where = f"{path.relative_to(ROOT.parent)}:{line}: {module} imports {imported}"
        if dst == "cli" and src != "__main__":
            out.append(f"{where} (only phylanx/__main__.py may import phylanx.cli)")
        allowed = ALLOWED.get(src)
        if allowed is not None and dst not in allowed:
            out.append(f"{where} ({src} may import only {sorted(allowed)})")
        if dst in FORBIDDEN.get(src, ()):
            out.append(f"{where} ({src} must not import {dst})")
    return out


def test_import_direction():
    violations = _violations()
    assert not violations, "layering violations:\n" + "\n".join(violations)


def test_the_checker_sees_imports():
    # the parser must resolve relative imports, or the test above could never fail
    found = {(m, i) for m, _, i, _ in _all_imports()}
    assert ("phylanx.primitives.indexing", "phylanx.errors") in found
    assert ("phylanx.compiler.special_forms", "phylanx.primitives.indexing") in found
    assert ("phylanx.primitives.matrixops.slicing", "phylanx.primitives.indexing") in found
    assert ("phylanx.__main__", "phylanx.cli.main") in found
    assert ("phylanx.fusion.rowpass", "phylanx.kernels.compiling") in found
    # a module named by a string (imported by importlib) counts
    assert ("phylanx._wiring", "phylanx.autodiff") in found


@pytest.mark.parametrize("module, imported, expected", [
    ("phylanx.language.parser", "phylanx.runtime.futures", "language may import only"),
    ("phylanx.values", "phylanx.language", "values may import only"),
    ("phylanx.primitives.core.general", "phylanx.frontend.tables", "primitives must not import"),
    ("phylanx.compiler.binding", "phylanx.cli.main", "only phylanx/__main__.py"),
    # the primitives' compiled kernels come from the kernels layer, not from fusion
    ("phylanx.primitives.solvers.direct", "phylanx.fusion.fixed", "primitives must not import"),
    ("phylanx.primitives.rules", "phylanx.autodiff", "primitives must not import"),
    ("phylanx.primitives.core.general", "phylanx.nn.layers", "primitives must not import"),
    ("phylanx.primitives.core.general", "phylanx.distributed.darray",
     "primitives must not import"),
    ("phylanx.kernels.fixed", "phylanx.fusion.hot", "kernels may import only"),
    ("phylanx.kernels.fixed", "phylanx.primitives.registry", "kernels may import only"),
    ("phylanx.fusion.hot", "phylanx.autodiff.tape", "fusion must not import"),
    ("phylanx.autodiff.tape", "phylanx.nn.graph", "autodiff must not import"),
    ("phylanx.distributed.darray", "phylanx.nn.layers", "distributed must not import"),
    ("phylanx.instrumentation.counters", "phylanx.fusion.hot",
     "instrumentation must not import"),
])
def test_rules_reject(monkeypatch, module, imported, expected):
    fake = [(module, ROOT / "x.py", imported, 1)]
    monkeypatch.setattr(sys.modules[__name__], "_all_imports", lambda: iter(fake))
    assert any(expected in v for v in _violations())


def _frontend_graph(imports) -> dict[str, set[str]]:
    """frontend module -> the frontend modules it imports (the package is its __init__)."""
    graph: dict[str, set[str]] = {}
    for module, _, imported, _ in imports:
        if module.startswith("phylanx.frontend") and imported.startswith("phylanx.frontend") \
                and imported != module:
            graph.setdefault(module, set()).add(imported)
    return graph


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle ``[a, b, ..., a]`` of ``graph``, or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        if node in path:
            return path[path.index(node):] + [node]
        if node in done:
            return None
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            cycle = visit(nxt)
            if cycle:
                return cycle
        path.pop()
        done.add(node)
        return None

    for start in sorted(graph):
        cycle = visit(start)
        if cycle:
            return cycle
    return None


def test_frontend_has_no_import_cycle():
    graph = _frontend_graph(_all_imports())
    assert "phylanx.frontend.translator" in graph["phylanx.frontend.decorator"]  # sees edges
    cycle = _find_cycle(graph)
    assert cycle is None, "import cycle in the frontend: " + " -> ".join(cycle)
    assert not graph.get("phylanx.frontend.markers"), "markers must import no frontend module"


def test_the_cycle_check_finds_a_lazy_import_cycle():
    # (module, path, imported, line); the last import sits inside a function
    fake = [("phylanx.frontend.resolve", None, "phylanx.frontend.markers", 1),
            ("phylanx.frontend.decorator", None, "phylanx.frontend.resolve", 1),
            ("phylanx.frontend.resolve", None, "phylanx.frontend.decorator", 9)]
    assert _find_cycle(_frontend_graph(fake)) == [
        "phylanx.frontend.decorator", "phylanx.frontend.resolve", "phylanx.frontend.decorator"]
    assert _find_cycle(_frontend_graph(fake[:2])) is None


# -- docs/layout.md describes every package and top-level module -----------------------

LAYOUT = ROOT.parent / "docs" / "layout.md"


def _undocumented(doc: str) -> list[str]:
    """Package folders (any depth) and top-level modules of phylanx/ that ``doc`` does
    not name: a top-level folder as ``name/`` opening a line of the tree, a nested one
    as ``name/`` anywhere, a module by its file name."""
    missing = []
    for init in sorted(ROOT.rglob("__init__.py")):
        folder = init.parent.relative_to(ROOT)
        if folder == Path("."):
            continue
        if len(folder.parts) == 1:
            found = re.search(rf"^\s*{re.escape(folder.name)}/", doc, re.MULTILINE)
        else:
            found = re.search(rf"(?<![\w.]){re.escape(folder.name)}/", doc)
        if not found:
            missing.append(f"{folder.as_posix()}/")
    for module in sorted(ROOT.glob("*.py")):
        if module.name != "__init__.py" and not re.search(
                rf"(?<![\w/]){re.escape(module.name)}", doc):
            missing.append(module.name)
    return missing


def test_layout_doc_names_every_package_and_module():
    missing = _undocumented(LAYOUT.read_text(encoding="utf-8"))
    assert not missing, "docs/layout.md does not describe: " + ", ".join(missing)


def test_the_layout_check_sees_a_missing_folder():
    doc = LAYOUT.read_text(encoding="utf-8")
    assert _undocumented(doc.replace("fusion/", "fusion-")) == ["fusion/"]
