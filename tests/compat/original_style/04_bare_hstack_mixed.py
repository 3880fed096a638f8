"""hstack by its bare name over scalars mixed with vectors (the original's rule:
scalars and vectors concatenate into one vector)."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def stacked(a):
    return hstack((1, a, 2.5))  # noqa: F821


a = np.array([3.0, 4.0])
assert np.array_equal(stacked(a), np.hstack([1, a, 2.5]))
