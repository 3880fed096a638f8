"""batch_dot: 2-d x 2-d gives (batch, 1); 3-d with axes [2, 1] is a batched matmul."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def bdot(x, y):
    return batch_dot(x, y)  # noqa: F821


@Phylanx
def bdot_axes(x, y):
    return batch_dot(x, y, [2, 1])  # noqa: F821


x = np.arange(6.0).reshape(2, 3)
y = np.arange(6.0, 12.0).reshape(2, 3)
assert np.array_equal(bdot(x, y), np.sum(x * y, axis=1, keepdims=True))
a = np.arange(24.0).reshape(2, 3, 4)
b = np.arange(40.0).reshape(2, 4, 5)
assert np.allclose(bdot_axes(a, b), np.matmul(a, b))
