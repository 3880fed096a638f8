"""The distributed examples under ``mpiexec -n 1, 2, 3`` give the single-process
NumPy result: the plain NumPy originals of the single-locality examples (``.python``)
run here on all the data, which the examples generate block by block per rank.  The
``mpiexec`` jobs are those of ``test_tiled_arrays_mpi.py`` (``programs/examples.py``
runs first in its 1-3 rank jobs; its test is there, with :func:`expected_results`);
this file checks the examples' data and options in this process."""
from __future__ import annotations

import importlib
import re
import sys

import numpy as np
import pytest

from .test_mpi import ROOT

pytestmark = pytest.mark.mpi
EXAMPLES = ROOT / "examples"


def example_modules() -> dict:
    """The example modules (importable by name, as the examples import each other)."""
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    return {name: importlib.import_module(name) for name in
            ("_tiles", "_data", "lra", "kmeans", "als", "distributed_lra",
             "distributed_kmeans", "distributed_als")}


@pytest.fixture(scope="module")
def ex():
    return example_modules()


def expected_results(ex):
    """Single-process NumPy results of the runs of ``programs/examples.py``."""
    tiles = ex["_tiles"]
    x, y = tiles.classification(0, 12, 0, 2500)
    lra_rows = ex["lra"].lra.python(x, y, 1e-4, 30, False)
    xb, yb, _ = ex["_data"].breast_cancer()
    lra_columns = ex["lra"].lra.python(xb, yb, 1e-3, 40, False)
    points = tiles.blobs(2, 3, 3, 0, 2500)
    centroids, labels = ex["kmeans"].kmeans.python(points, points[:3], 6)
    ratings, x0 = tiles.low_rank(3, 20, 3, 0, 300)
    y0 = np.random.default_rng([3, 2**32]).uniform(size=(20, 3))
    users, items = ex["als"].als.python(ratings, x0, y0, 0.1, 5)
    return {"lra_rows": {"weights": lra_rows}, "lra_columns": {"weights": lra_columns},
            "kmeans": {"centroids": centroids, "labels": labels},
            "als": {"x": users, "y": items}}


def test_the_examples_generate_the_same_rows_whatever_the_split(ex):
    tiles = ex["_tiles"]
    whole = tiles.classification(5, 4, 0, 3000)
    for parts in (1, 2, 3, 7):
        pieces = [tiles.classification(5, 4, *tiles.block(3000, parts, i)) for i in range(parts)]
        for got, want in zip(zip(*pieces), whole):
            np.testing.assert_array_equal(np.concatenate(got), want)
    assert [tiles.block(10, 3, i) for i in range(3)] == [(0, 4), (4, 7), (7, 10)]
    assert tiles.block(2, 3, 2) == (2, 2) and tiles.blobs(0, 2, 2, 5, 5).shape == (0, 2)


@pytest.mark.parametrize("name", ["distributed_lra", "distributed_kmeans", "distributed_als"])
def test_distributed_examples_have_help(name, ex, capsys):
    with pytest.raises(SystemExit) as info:
        ex[name].main(["--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    assert "usage" in text and "phylanx run -n" in ex[name].__doc__
    entries = re.split(r"\n  (?=--)", text.split("options:")[1])[1:]
    assert entries and all("(default:" in " ".join(e.split()) for e in entries), text
