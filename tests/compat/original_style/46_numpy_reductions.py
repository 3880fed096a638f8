"""NumPy reductions with axes map to primitives of the same name."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def stats(m):
    return np.sum(m, 0), np.mean(m, 1), np.amax(m), np.argmax(m), np.amin(m, 0)


m = np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
got = stats(m)
expected = [np.sum(m, 0), np.mean(m, 1), np.amax(m), np.argmax(m), np.amin(m, 0)]
for g, e in zip(got, expected):
    assert np.array_equal(g, e)
