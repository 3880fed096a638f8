"""sort, argsort, unique, argmax along axes (NumPy spellings)."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def ordered(v):
    return np.sort(v), np.argsort(v), np.unique(v)


v = np.array([3.0, 1.0, 2.0, 3.0])
s, a, u = ordered(v)
assert np.array_equal(s, np.sort(v))
assert np.array_equal(a, np.argsort(v, kind="stable"))
assert np.array_equal(u, np.unique(v))
