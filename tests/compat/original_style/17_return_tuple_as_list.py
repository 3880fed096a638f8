"""return a, b comes back as a Python list (the original had no tuples)."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def min_max(x):
    return np.amin(x), np.amax(x)


result = min_max(np.array([3.0, -1.0, 7.0]))
assert list(result) == [-1.0, 7.0]
