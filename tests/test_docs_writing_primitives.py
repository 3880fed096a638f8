"""The VJP rule examples of docs/writing-primitives.md and docs/autodiff.md run and
agree with the real rules, and every file docs/writing-primitives.md names exists.

An example is run as the doc shows it, against an empty ``VJP`` table standing in for
the real one (whose ``sin``/``cos``/``sinh``/``outer`` rules exist already), then each rule
it registered is compared with the registered rule of the same primitive on random
operands.  The docs mark these blocks ``<!-- checked-by: ... -->`` so that
tests/test_docs_code.py, which runs every other ```python block, leaves them here.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import phylanx.autodiff
from phylanx.primitives import rules
from phylanx.primitives.rules import RuleTable, apply_vjp

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "writing-primitives.md"
AUTODIFF_DOC = ROOT / "docs" / "autodiff.md"


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, re.DOTALL)


def _vjp_example() -> str:
    blocks = [b for b in _python_blocks(DOC.read_text(encoding="utf-8")) if "VJP." in b]
    assert len(blocks) == 1, "the doc should show one VJP example"
    return blocks[0]


def test_the_vjp_example_runs_and_agrees_with_the_registered_rules(monkeypatch):
    real = rules.VJP
    real.names()                       # filled (phylanx/_wiring.py) before it is replaced
    empty = RuleTable("vjp", lambda spec: spec.differentiable, "differentiable")
    monkeypatch.setattr(rules, "VJP", empty)
    exec(compile(_vjp_example(), str(DOC), "exec"), {})
    assert empty.names(), "the example registered no rule"
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 4))
    ct = rng.normal(size=(3, 4))
    for name in empty.names():
        out = getattr(np, name)(x)
        shown = apply_vjp(empty.get(name), ct, out, (x,), None)
        registered = apply_vjp(real.get(name), ct, out, (x,), None)
        assert len(shown) == len(registered) == 1
        np.testing.assert_allclose(shown[0], registered[0], rtol=1e-12, err_msg=name)


def _with_empty_table(monkeypatch) -> RuleTable:
    rules.VJP.names()                  # filled (phylanx/_wiring.py) before it is replaced
    empty = RuleTable("vjp", lambda spec: spec.differentiable, "differentiable")
    monkeypatch.setattr(rules, "VJP", empty)
    monkeypatch.setattr(phylanx.autodiff, "VJP", empty)     # ``from phylanx.autodiff import VJP``
    return empty


def _autodiff_examples() -> list[str]:
    blocks = [b for b in _python_blocks(AUTODIFF_DOC.read_text(encoding="utf-8"))
              if "VJP.register" in b]
    assert len(blocks) == 2, "docs/autodiff.md should show two VJP rule examples"
    return blocks


def test_autodiffs_rule_examples_run_and_agree_with_the_registered_rules(monkeypatch):
    real = rules.VJP
    empty = _with_empty_table(monkeypatch)
    for example in _autodiff_examples():
        exec(compile(example, str(AUTODIFF_DOC), "exec"), {})
    assert set(empty.names()) == {"sinh", "outer"}
    rng = np.random.default_rng(1)
    x, ct = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    shown = apply_vjp(empty.get("sinh"), ct, np.sinh(x), (x,), None)
    registered = apply_vjp(real.get("sinh"), ct, np.sinh(x), (x,), None)
    np.testing.assert_allclose(shown[0], registered[0], rtol=1e-12)
    a, b = rng.normal(size=3), rng.normal(size=4)
    shown = apply_vjp(empty.get("outer"), ct, np.outer(a, b), (a, b), None)
    registered = apply_vjp(real.get("outer"), ct, np.outer(a, b), (a, b), None)
    for mine, theirs in zip(shown, registered, strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)


def test_the_example_check_can_fail(monkeypatch):
    # a wrong derivative in the doc's example would be caught
    wrong = _vjp_example().replace("np.cos(x)", "np.sin(x)")
    empty = RuleTable("vjp", lambda spec: spec.differentiable, "differentiable")
    monkeypatch.setattr(rules, "VJP", empty)
    exec(compile(wrong, str(DOC), "exec"), {})
    x, ct = np.linspace(0.1, 1.0, 5), np.ones(5)
    shown = apply_vjp(empty.get("sin"), ct, np.sin(x), (x,), None)
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(shown[0], np.cos(x))


def _named_files(text: str) -> set[str]:
    """File names and paths the text names (templates such as ``<category>/x.py`` left out)."""
    return {n for n in re.findall(r"[\w/<>]+\.py\b", text) if "<" not in n}


def test_every_file_the_doc_names_exists():
    known = {p.relative_to(ROOT).as_posix() for p in ROOT.glob("phylanx/**/*.py")}
    known |= {p.relative_to(ROOT).as_posix() for p in ROOT.glob("tests/**/*.py")}
    missing = []
    for name in sorted(_named_files(DOC.read_text(encoding="utf-8"))):
        # a path relative to the repository, to phylanx/, or a bare file name
        if not any(k == name or k.endswith("/" + name) for k in known):
            missing.append(name)
    assert not missing, f"docs/writing-primitives.md names missing files: {missing}"
