"""noqa comments in user code change nothing (with and without codes)."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def normalised(v):  # noqa
    total = np.sum(v)  # noqa: E501
    return v / total  # noqa: F821,E226


v = np.array([1.0, 3.0])
assert np.array_equal(normalised(v), v / 4.0)
