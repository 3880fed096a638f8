"""relu(x, alpha, max_value, threshold) positionally and by keyword, against Keras's
rule: x >= threshold keeps x (clipped to max_value), else alpha * (x - threshold)."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def relu_pos(x):
    return relu(x, 0.1, 4.0, 1.5)  # noqa: F821


@Phylanx
def relu_kw(x):
    return relu(x, alpha=0.1, max_value=4.0, threshold=1.5)  # noqa: F821


@Phylanx
def relu_plain(x):
    return relu(x)  # noqa: F821


def keras_relu(x, alpha=0.0, max_value=None, threshold=0.0):
    kept = x if max_value is None else np.minimum(x, max_value)
    return np.where(x >= threshold, kept, alpha * (x - threshold))


x = np.array([-2.0, 0.0, 1.0, 2.0, 6.0])
assert np.allclose(relu_pos(x), keras_relu(x, 0.1, 4.0, 1.5))
assert np.allclose(relu_kw(x), keras_relu(x, 0.1, 4.0, 1.5))
assert np.array_equal(relu_plain(x), np.maximum(x, 0))
