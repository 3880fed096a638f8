"""The classic examples, written as plain decorated Python, match a pure NumPy run."""
from __future__ import annotations

import importlib.util
import pathlib
import re
import sys

import numpy as np
import pytest

from ..shared_data import shared_file

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def load(name: str):
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    spec = importlib.util.spec_from_file_location(f"phylanx_example_{name}",
                                                  EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def breast_cancer_csv() -> pathlib.Path:
    return shared_file("breast_cancer.csv")


def test_lra_on_breast_cancer_csv_matches_numpy():
    lra = load("lra")
    x, y, _ = lra.breast_cancer(str(breast_cancer_csv()))
    weights = lra.lra(x, y, 1e-3, 200, False)
    expected = lra.lra.python(x, y, 1e-3, 200, False)
    np.testing.assert_allclose(weights, expected, rtol=1e-10)
    assert lra.accuracy(x, y, weights) > 0.95


def test_linear_regression_matches_numpy():
    mod = load("linear_regression")
    x, y, true_w = mod.synthetic()
    w, b = mod.linear_regression(x, y, 0.05, 200)
    w_np, b_np = mod.linear_regression.python(x, y, 0.05, 200)
    np.testing.assert_allclose(w, w_np)
    assert np.isclose(b, b_np)
    np.testing.assert_allclose(w, true_w, atol=0.05)


def test_kmeans_matches_numpy():
    mod = load("kmeans")
    points, _ = mod.blobs()
    initial = points[::50][:3].copy()
    centroids, labels = mod.kmeans(points, initial, 5)
    c_np, l_np = mod.kmeans.python(points, initial, 5)
    np.testing.assert_allclose(centroids, c_np)
    np.testing.assert_array_equal(labels, l_np)


def test_neural_network_matches_numpy():
    mod = load("nn")
    x, y = mod.breast_cancer.__globals__["synthetic_classification"](n=120, d=8)
    rng = np.random.default_rng(0)
    w1, w2 = rng.normal(scale=0.1, size=(8, 6)), rng.normal(scale=0.1, size=(6, 1))
    got = mod.train(x, y, w1, w2, 0.5, 50)
    expected = mod.train.python(x, y, w1, w2, 0.5, 50)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b)


def test_als_matches_numpy():
    mod = load("als")
    ratings = mod.synthetic()
    rng = np.random.default_rng(0)
    x0, y0 = rng.uniform(size=(20, 3)), rng.uniform(size=(15, 3))
    got = mod.als(ratings, x0, y0, 0.1, 5)
    expected = mod.als.python(ratings, x0, y0, 0.1, 5)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b)


@pytest.mark.parametrize("name", ["lra", "linear_regression", "kmeans", "nn", "als"])
def test_examples_have_help(name, capsys):
    with pytest.raises(SystemExit) as info:
        load(name).main(["--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    assert "usage" in text
    # a first-time user learns what each option does and its default
    entries = re.split(r"\n  (?=--)", text.split("options:")[1])[1:]
    assert entries
    for entry in entries:
        assert "(default:" in " ".join(entry.split()), entry
