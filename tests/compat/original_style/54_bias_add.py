"""bias_add adds a bias along the trailing axes of a 2-d to 4-d input."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def with_bias(x, b):
    return bias_add(x, b)  # noqa: F821


x = np.arange(24.0).reshape(2, 3, 4)
b = np.array([1.0, 2.0, 3.0, 4.0])
assert np.array_equal(with_bias(x, b), x + b)
b2 = np.arange(12.0).reshape(3, 4)
assert np.array_equal(with_bias(x, b2), x + b2)
assert np.array_equal(with_bias(x[0], b), x[0] + b)
