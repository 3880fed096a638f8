"""Every ```python (and ```physl) block of README.md and docs/*.md runs (issue 30 item 3).

The conventions for writers (README.md's "Documentation" section points here):

* a block fenced ```python runs, in a fresh namespace, as a test of its own; a block
  that should fail the reader's way (a ``PhylanxError`` shown in the text) catches it
  and asserts on it, so a block that raises is a failing doc;
* a ``<!-- continue -->`` comment on the line before the fence runs the block in the
  namespace of the previous ```python block of the same file (a tour in steps);
* ```python mpi (a word after the language) runs the block, with the blocks it
  continues, as a script under ``mpiexec -n 2`` (the launcher beside ``sys.executable``,
  as ``phylanx run`` finds it);
* a ``<!-- checked-by: tests/some_test.py -->`` comment leaves the block to that test,
  which must exist and name the doc (e.g. a rule example run against an empty table);
* a block fenced ```physl is a PhySL program, run with ``phylanx.evaluate``; if its last
  line ends in a comment holding a Python literal (``factorial(10)  # 3628800``) the
  program's value must equal it;
* what is not meant to run (output, shell sessions, excerpts of a module, pseudo-code)
  is fenced with another language: ```text, ```console, ```sh.

A block is compiled under the doc's own name with the doc's line numbers (the other
lines blank), registered in ``linecache`` so that ``@Phylanx`` finds its source and a
traceback points at the doc's line.  Blocks run with the working directory set to a
temporary one, so files they write do not land in the repository.
"""
from __future__ import annotations

import ast
import linecache
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

import phylanx
from phylanx.cli.run import find_mpiexec

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^([ \t]*)```(\S*)[ \t]*(.*)$")     # indented inside a list item too
MARK = re.compile(r"^<!--\s*(continue|checked-by:\s*(\S+))\s*-->\s*$")
MPI_TIMEOUT = 240.0


@dataclass
class Block:
    doc: str                 # path relative to the repository
    line: int                # 1-based line of the block's first code line
    code: list[str]
    words: list[str]         # the info string's words after the language
    continues: bool = False
    checked_by: str | None = None
    language: str = "python"


@dataclass
class Chain:
    """Blocks that share one namespace: a block and those that continue it."""
    blocks: list[Block] = field(default_factory=list)

    @property
    def mpi(self) -> bool:
        return any("mpi" in b.words for b in self.blocks)

    @property
    def id(self) -> str:
        first = self.blocks[0]
        return f"{first.doc}:{first.line}"


def python_blocks(text: str, doc: str) -> list[Block]:
    """The ```python blocks of a markdown text, with the marks on the lines before them."""
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        start, indent = i, len(fence.group(1))
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            i += 1
        if fence.group(2) in ("python", "physl"):
            code = [text[indent:] for text in lines[start + 1:i]]
            block = Block(doc, start + 2, code, fence.group(3).split(),
                          language=fence.group(2))
            before = start - 1
            while before >= 0 and not lines[before].strip():
                before -= 1
            mark = MARK.match(lines[before].strip()) if before >= 0 else None
            if mark and mark.group(1) == "continue":
                block.continues = True
            elif mark:
                block.checked_by = mark.group(2)
            blocks.append(block)
        i += 1
    return blocks


def chains(blocks: list[Block]) -> list[Chain]:
    out: list[Chain] = []
    for block in blocks:
        if block.checked_by or block.language != "python":
            continue
        if block.continues:
            assert out and out[-1].blocks[0].doc == block.doc, \
                f"{block.doc}:{block.line}: '<!-- continue -->' with no block before it"
            out[-1].blocks.append(block)
        else:
            out.append(Chain([block]))
    return out


def padded_source(chain: Chain, total_lines: int) -> str:
    """The chain's code at its doc lines, every other line blank."""
    lines = [""] * (total_lines + 1)
    for block in chain.blocks:
        for offset, text in enumerate(block.code):
            lines[block.line - 1 + offset] = text
    return "\n".join(lines) + "\n"


def _all_blocks() -> list[Block]:
    return [b for doc in DOCS
            for b in python_blocks(doc.read_text(encoding="utf-8"),
                                   doc.relative_to(ROOT).as_posix())]


CHAINS = chains(_all_blocks())
PHYSL = [b for b in _all_blocks() if b.language == "physl"]


def run_in_process(chain: Chain, source: str) -> None:
    name = chain.blocks[0].doc
    lines = source.splitlines(keepends=True)
    # mtime None: linecache.checkcache leaves the entry alone (as for IPython cells)
    linecache.cache[name] = (len(source), None, lines, name)
    try:
        exec(compile(source, name, "exec"), {"__name__": "__doc_block__"})
    finally:
        linecache.cache.pop(name, None)


def run_under_mpiexec(chain: Chain, source: str, folder: Path) -> None:
    mpiexec = find_mpiexec()
    assert mpiexec, "no mpiexec beside this Python: pip install -e '.[mpi]'"
    script = folder / (chain.id.replace("/", "_").replace(":", "_L") + ".py")
    script.write_text(source, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PHYLANX_MPI", None)          # the launcher decides, as for a user's script
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    done = subprocess.run([mpiexec, "-n", "2", sys.executable, str(script)], cwd=folder,
                          env=env, capture_output=True, text=True, timeout=MPI_TIMEOUT)
    assert done.returncode == 0, (f"{chain.id} under mpiexec -n 2 failed:\n"
                                  f"{done.stdout}\n{done.stderr}")


CASES = [pytest.param(c, id=c.id, marks=[pytest.mark.mpi] if c.mpi else []) for c in CHAINS]


@pytest.mark.parametrize("chain", CASES)
def test_the_docs_python_blocks_run(chain, tmp_path, monkeypatch):
    doc = ROOT / chain.blocks[0].doc
    source = padded_source(chain, len(doc.read_text(encoding="utf-8").splitlines()))
    monkeypatch.chdir(tmp_path)
    if chain.mpi:
        run_under_mpiexec(chain, source, tmp_path)
    else:
        run_in_process(chain, source)


def expected_value(block: Block):
    """The Python literal in the last line's ``# ...`` comment, or None if there is none."""
    comment = block.code[-1].partition("#")[2].strip() if block.code else ""
    try:
        return ast.literal_eval(comment) if comment else None
    except (ValueError, SyntaxError):
        return None                    # a comment in words


def run_physl(block: Block) -> None:
    value = phylanx.evaluate("\n".join(block.code))
    expected = expected_value(block)
    if expected is not None:
        np.testing.assert_equal(value, expected, err_msg=f"{block.doc}:{block.line}")


@pytest.mark.parametrize("block", PHYSL, ids=[f"{b.doc}:{b.line}" for b in PHYSL])
def test_the_docs_physl_blocks_run(block):
    run_physl(block)


def test_blocks_left_to_another_test_are_checked_there():
    for block in _all_blocks():
        if block.checked_by:
            test = ROOT / block.checked_by
            assert test.is_file(), f"{block.doc}:{block.line}: {block.checked_by} is missing"
            assert block.doc in test.read_text(encoding="utf-8"), \
                f"{block.doc}:{block.line}: {block.checked_by} does not name {block.doc}"


# --- the runner itself (guards: they check that a broken doc would be caught) ---

SAMPLE = """\
# title

```python
x = 1
```

* a list item

  <!-- continue -->
  ```python
  assert x == 1
  ```

<!-- continue -->
```python
assert x == 1
y = x + 1
```

```text
not run
```

```python mpi
z = 3
```

<!-- checked-by: tests/test_docs_writing_primitives.py -->
```python
left to that test
```
"""


def test_the_parser_finds_blocks_marks_and_lines():
    blocks = python_blocks(SAMPLE, "sample.md")
    assert [b.line for b in blocks] == [4, 11, 16, 25, 30]
    assert [b.continues for b in blocks] == [False, True, True, False, False]
    assert blocks[1].code == ["assert x == 1"]          # the list item's indent removed
    assert blocks[3].words == ["mpi"]
    assert blocks[4].checked_by == "tests/test_docs_writing_primitives.py"
    found = chains(blocks)
    assert [len(c.blocks) for c in found] == [3, 1]
    assert [c.mpi for c in found] == [False, True]


def test_a_failing_block_fails_at_its_doc_line(tmp_path):
    text = SAMPLE.replace("assert x == 1\ny", "assert x == 2\ny")
    chain = chains(python_blocks(text, "sample.md"))[0]
    source = padded_source(chain, len(text.splitlines()))
    with pytest.raises(AssertionError) as caught:
        run_in_process(chain, source)
    assert caught.traceback[-1].lineno + 1 == 16     # pytest's line numbers are 0-based


def test_a_continued_block_sees_the_previous_names_and_a_fresh_one_does_not(tmp_path):
    text = re.sub(r"[ ]*<!-- continue -->\n", "", SAMPLE)
    first, second = chains(python_blocks(text, "sample.md"))[:2]
    assert second.blocks[0].code[0] == "assert x == 1"
    run_in_process(first, padded_source(first, len(text.splitlines())))
    with pytest.raises(NameError):
        run_in_process(second, padded_source(second, len(text.splitlines())))


def test_a_physl_block_is_checked_against_its_last_comment():
    text = "```physl\ndefine(f, n, n * 2)\nf(21)   # 42\n```\n"
    block = python_blocks(text, "sample.md")[0]
    assert block.language == "physl" and chains([block]) == []
    run_physl(block)
    with pytest.raises(AssertionError):
        run_physl(python_blocks(text.replace("# 42", "# 41"), "sample.md")[0])
    run_physl(python_blocks(text.replace("# 42", "# the answer"), "sample.md")[0])


def test_the_decorator_finds_a_blocks_source():
    text = ("```python\nfrom phylanx import Phylanx\n\n@Phylanx\ndef f(x):\n"
            "    return x + 1\n\nassert f(1) == 2\n```\n")
    chain = chains(python_blocks(text, "sample.md"))[0]
    run_in_process(chain, padded_source(chain, len(text.splitlines())))
