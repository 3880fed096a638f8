"""var / std with a boolean keepdims given positionally after the axis."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def spread(x):
    return var(x, 0, True), std(x, 1, True), var(x)  # noqa: F821


x = np.array([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]])
v0, s1, v = spread(x)
assert np.allclose(v0, np.var(x, axis=0, keepdims=True)) and v0.shape == (1, 3)
assert np.allclose(s1, np.std(x, axis=1, keepdims=True)) and s1.shape == (2, 1)
assert np.isclose(v, np.var(x))
