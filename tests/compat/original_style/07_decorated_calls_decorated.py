"""Decorated functions of one module call each other by name."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def mul2(x):
    return 2 * x


@Phylanx
def twice_plus(x, y):
    return mul2(x) + mul2(y)


x = np.arange(4.0)
assert np.array_equal(twice_plus(x, 1.0), 2 * x + 2)
