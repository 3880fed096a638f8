"""A nested def inside a decorated function becomes a nested define and works."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def outer(x):
    def inner(y):
        return y * y + 1
    return inner(x) + inner(2 * x)


assert np.array_equal(outer(np.array([1.0, 2.0])), np.array([7.0, 22.0]))
