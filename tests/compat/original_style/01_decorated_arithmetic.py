"""A decorated function of NumPy arithmetic, checked against the undecorated body."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def affine(x, a, b):
    return a * x + b - x / 2


x = np.array([1.0, 2.0, 4.0])
assert np.allclose(affine(x, 3.0, 1.0), 3.0 * x + 1.0 - x / 2)
assert affine(2, 3, 1) == 6.0
