"""for i in prange(...): iterations run in parallel; prange is a range in Python."""
import numpy as np

from phylanx import Phylanx
from phylanx.util import prange


@Phylanx
def fill(n):
    out = np.zeros(n)
    for i in prange(n):
        out[i] = i * i
    return out


assert np.array_equal(fill(6), np.arange(6.0) ** 2)
assert list(prange(3)) == [0, 1, 2]
