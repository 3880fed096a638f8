"""The gram written ``f @ x`` (``np.dot(err, x)``, ``err.dot(x)``) keeps its fused row
pass however ``f`` is named, as ``x.T @ f`` does (compiler/rewrite/gram_rows.py):
``err = np.tanh(x @ w) - y`` then ``err @ x`` is raised into one expression, which
fusion/rowpass.py finds (it already finds ``(np.tanh(x @ w) - y) @ x`` written inline).
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx.compiler.through_ir import optimize_through_ir
from phylanx.language import parser, to_physl

from .test_rewrite_engine import compiled, configured

SPELLINGS = {
    "@": "    err = np.tanh(x @ w) - y\n    return err @ x\n",
    "np.dot": "    z = np.dot(x, w)\n    err = 1.0 / (1.0 + np.exp(-z)) - y\n"
              "    return np.dot(err, x)\n",
    ".dot": "    err = x.dot(w) - y\n    return err.dot(x) / x.shape[0]\n",
}


def raised(source: str) -> str:
    on, _ = compiled(source)
    with configured((("blocking_gram", False), ("fusion_rows", True))):
        return to_physl(optimize_through_ir(parser.parse(on.get_physl_source())))


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_a_named_f_at_the_left_of_x_is_raised_into_the_product(spelling, monkeypatch):
    from phylanx import fusion
    monkeypatch.setattr(fusion, "backend_available", lambda: True)
    source = "def sample(x, y, w):\n" + SPELLINGS[spelling]
    text = raised(source)
    assert "define(err" not in text and "define(z" not in text, text
    on, python = compiled(source)
    rng = np.random.default_rng(4)
    x, y, w = rng.normal(size=(20, 3)), rng.normal(size=20), rng.normal(size=3)
    np.testing.assert_allclose(on(x, y, w), python(x, y, w), rtol=1e-12)


def test_a_rebinding_between_keeps_the_name(monkeypatch):
    """Guard: ``w`` rebound between ``err`` and the product: raising would read the new
    ``w``, so ``err`` stays a variable (and the value is Python's)."""
    from phylanx import fusion
    monkeypatch.setattr(fusion, "backend_available", lambda: True)
    source = ("def sample(x, y, w):\n    err = np.tanh(x @ w) - y\n    w = w * 3.0\n"
              "    return err @ x + w\n")
    assert "define(err" in raised(source)
    on, python = compiled(source)
    rng = np.random.default_rng(5)
    x, y, w = rng.normal(size=(20, 3)), rng.normal(size=20), rng.normal(size=3)
    np.testing.assert_allclose(on(x, y, w), python(x, y, w), rtol=1e-12)
