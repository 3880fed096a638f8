"""``metrics=["mae"]`` / ``["mse"]`` with ``sparse_categorical_crossentropy`` (integer
labels, one per sample, against a probability per class): Keras compares each label
with every class's output (``mean(|label - p|)`` over samples and classes, as it
computes for labels of shape ``(n, 1)``).  phylanx raised a shape error located in its
generated program for labels of shape ``(n,)`` or ``(n, 1)`` and, for a batch of as
many rows as classes, broadcast the labels along the class axis: a silent wrong value.
The oracle is NumPy on ``predict``'s outputs."""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import nn


def classifier():
    nn.set_seed(4)
    nn.clear_session()
    m = nn.Sequential([nn.Input((5,)), nn.Dense(3, activation="softmax")])
    m.compile(optimizer=nn.SGD(0.0), loss="sparse_categorical_crossentropy",
              metrics=["mae", "mse"])
    return m


@pytest.mark.parametrize("batch_size", [4, 3])       # 3: as many rows as classes
@pytest.mark.parametrize("column", [False, True])    # labels (n,) or (n, 1)
def test_regression_metrics_compare_each_label_with_every_class(batch_size, column):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((12, 5)).astype(np.float32)
    labels = rng.integers(0, 3, 12)
    m = classifier()
    p = m.predict(x, verbose=0).astype(np.float64)
    error = labels[:, None] - p
    y = labels[:, None] if column else labels
    loss, mae, mse = m.evaluate(x, y, batch_size=batch_size, verbose=0)
    np.testing.assert_allclose([mae, mse], [np.abs(error).mean(), (error ** 2).mean()],
                               rtol=1e-5)
    # in training too (a learning rate of 0: the epoch's metrics are evaluate's)
    history = m.fit(x, y, batch_size=batch_size, epochs=1, verbose=0).history
    np.testing.assert_allclose([history["mae"][0], history["mse"][0]], [mae, mse], rtol=1e-5)
