"""Guards of tests/kmeans_programs.py, the one body of W2 that tests and
benchmarks/phrasing.py render their k-means variants from: its ``w2`` variant is the
benchmark's program (benchmarks/workloads/w2_kmeans.py) statement for statement, and
every variant is a function whose source ``inspect`` reads (so ``@Phylanx`` can)."""
from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

import numpy as np
import pytest

from .. import kmeans_programs as w2

ROOT = Path(__file__).resolve().parents[2]


def _body(fn) -> str:
    node = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    if isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
        node.body = node.body[1:]                  # the docstring
    return ast.dump(node)


def test_the_w2_variant_is_the_benchmarks_program(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks.workloads import w2_kmeans
    assert _body(w2.kmeans("w2")) == _body(w2_kmeans.kmeans)


@pytest.mark.parametrize("variant", sorted(w2.VARIANTS))
def test_every_variant_is_a_function_with_its_source(variant):
    fn = w2.kmeans(variant)
    assert fn is w2.kmeans(variant)
    assert inspect.getsource(fn) == w2.kmeans_source(**w2.VARIANTS[variant])
    points, centres = w2.blobs(np.random.default_rng(0), 50, 2, 3)
    assert fn(points, centres, 2).shape == centres.shape
    with pytest.raises(KeyError):
        w2.kmeans_source(no_such_slot="")
