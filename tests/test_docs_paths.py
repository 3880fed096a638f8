"""Every file path README.md and docs/*.md name exists (issue 30 item 3).

A path is a word starting with ``phylanx/``, ``benchmarks/``, ``examples/``, ``tests/``,
``tools/`` or ``docs/`` (not inside a longer path or a URL); ``{a,b}`` is expanded as the
shell does, ``*`` must match at least one file, and templates (``<category>``, ``...``)
are left out.
A bare result file name (``2026-12-04-final-ecc6c4e.md``) must be in
``benchmarks/results/``, where only the files the docs cite are kept.  A shorter module
path (``fusion/rowpass.py``, ``workloads/common.py``) must be the end of some file's path
in the repository.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOPS = ("phylanx", "benchmarks", "examples", "tests", "tools")
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

PATH = re.compile(r"(?<![\w./-])((?:phylanx|benchmarks|examples|tests|tools|docs)/[\w./{},*<>-]*)")
SHORT = re.compile(r"(?<![\w./-])(\w+(?:/\w+)+\.py)\b")
RESULT = re.compile(r"(?<![\w./-])(\d{4}-\d\d-\d\d-[\w.{},-]*\.(?:md|txt|json|png|\{[\w,]+\}))")


def expand(path: str) -> list[str]:
    """Shell brace expansion: ``a.{json,md}`` -> ``a.json``, ``a.md`` (nested braces too)."""
    brace = re.search(r"\{([^{}]*)\}", path)
    if not brace:
        return [path]
    return [p for choice in brace.group(1).split(",")
            for p in expand(path[:brace.start()] + choice + path[brace.end():])]


def named_paths(text: str) -> set[str]:
    names = set()
    for match in PATH.finditer(text):
        name = match.group(1).rstrip(".,:;")
        if "<" in name or "..." in name:
            continue
        names.update(expand(name))
    for match in RESULT.finditer(text):
        names.update("benchmarks/results/" + n for n in expand(match.group(1)))
    return names


def short_module_paths(text: str) -> set[str]:
    """``dir/module.py`` paths not starting at the repository's root."""
    return {n for n in SHORT.findall(text) if not PATH.fullmatch(n)}


def somewhere(name: str) -> bool:
    # the project's own folders only (make run puts a whole .venv beside them)
    return any(any((ROOT / top).glob("**/" + name)) for top in TOPS)


def exists(name: str) -> bool:
    if "*" in name:
        return any(ROOT.glob(name))
    return (ROOT / name).exists()


@pytest.mark.parametrize("doc", DOCS, ids=[d.relative_to(ROOT).as_posix() for d in DOCS])
def test_every_path_the_doc_names_exists(doc):
    missing = sorted(n for n in named_paths(doc.read_text(encoding="utf-8")) if not exists(n))
    assert not missing, f"{doc.relative_to(ROOT)} names missing files: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=[d.relative_to(ROOT).as_posix() for d in DOCS])
def test_every_module_path_the_doc_names_exists_somewhere(doc):
    text = doc.read_text(encoding="utf-8")
    missing = sorted(n for n in short_module_paths(text) if not somewhere(n))
    assert not missing, f"{doc.relative_to(ROOT)} names missing modules: {missing}"


def test_every_result_file_the_code_cites_is_kept():
    # module docstrings justify a setting by a measurement in benchmarks/results/
    cited = re.compile(r"\b(\d{4}-\d\d-\d\d-[\w.-]*\.(?:md|txt|json|png))\b")
    missing = set()
    for top in ("phylanx", "benchmarks", "examples"):
        for module in (ROOT / top).rglob("*.py"):
            for name in cited.findall(module.read_text(encoding="utf-8")):
                if not (ROOT / "benchmarks" / "results" / name).is_file():
                    missing.add(f"{module.relative_to(ROOT)}: {name}")
    assert not missing, sorted(missing)


def test_the_path_finder_sees_what_a_reader_sees():
    # guard: a missing file would be reported, templates and URLs would not
    text = ("see `phylanx/runtime/nodes.py`, docs/nn.md. and benchmarks/run.py:\n"
            "`benchmarks/results/2026-12-03-distributed-quiet.{json,md}`, "
            "`2026-12-04-loops.txt`, `phylanx/primitives/<category>/x.py`, "
            "https://example.org/docs/x.md, ../shared/docs/y.md, phylanx/nope.py")
    assert named_paths(text) == {
        "phylanx/runtime/nodes.py", "docs/nn.md", "benchmarks/run.py",
        "benchmarks/results/2026-12-03-distributed-quiet.json",
        "benchmarks/results/2026-12-03-distributed-quiet.md",
        "benchmarks/results/2026-12-04-loops.txt", "phylanx/nope.py"}
    assert exists("phylanx/runtime/nodes.py") and not exists("phylanx/nope.py")
    assert exists("phylanx/autodiff/rules_*.py") and not exists("phylanx/autodiff/nope_*.py")
    short = short_module_paths("`fusion/rowpass.py`, phylanx/fusion/rowpass.py, x/nope.py")
    assert short == {"fusion/rowpass.py", "x/nope.py"}
    assert somewhere("fusion/rowpass.py") and not somewhere("x/nope.py")
