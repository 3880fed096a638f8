"""Data for the examples: the breast-cancer set (scikit-learn or a CSV) or synthetic data.

The examples never need /work/shared: without scikit-learn and without
``--csv`` they fall back to a synthetic, linearly separable problem.
"""
from __future__ import annotations

import numpy as np


def breast_cancer(csv: str | None = None) -> tuple[np.ndarray, np.ndarray, str]:
    """``(features standardised, labels 0/1, description)``."""
    if csv:
        # first line is a header ("569,30,malignant,benign"); the last column is the label
        data = np.loadtxt(csv, delimiter=",", skiprows=1)
        x, y, what = data[:, :-1], data[:, -1], f"breast cancer ({csv})"
    else:
        try:
            from sklearn.datasets import load_breast_cancer
        except ImportError:
            x, y = synthetic_classification()
            what = "synthetic (install scikit-learn for the breast-cancer data)"
        else:
            bunch = load_breast_cancer()
            x, y, what = bunch.data, bunch.target.astype(float), "breast cancer (scikit-learn)"
    x = (x - x.mean(axis=0)) / x.std(axis=0)
    return x, y, what


def synthetic_classification(n: int = 569, d: int = 30, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    y = (x @ w + 0.3 * rng.normal(size=n) > 0).astype(float)
    return x, y
