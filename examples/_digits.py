"""scikit-learn's bundled 8x8 digits, split into training and test sets, for the nn
examples (pixel values scaled to [0, 1])."""
from __future__ import annotations

import numpy as np


def digits(test_fraction: float = 0.2, seed: int = 0):
    """``(x_train, y_train, x_test, y_test)`` with x of shape (n, 64), labels 0..9."""
    from sklearn.datasets import load_digits
    bunch = load_digits()
    x = (bunch.data / 16.0).astype(np.float32)
    y = bunch.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    cut = int(len(x) * (1 - test_fraction))
    train, test = order[:cut], order[cut:]
    return x[train], y[train], x[test], y[test]
