"""Subscripts, slices and slice assignment (store(slice(...), v))."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def edit(m):
    m[0, 1] = 10.0
    m[1, :] = m[1, :] * 2
    return m[:, 1:], m[1][2]


m = np.arange(6.0).reshape(2, 3)
expected = m.copy()
expected[0, 1] = 10.0
expected[1, :] = expected[1, :] * 2
cols, item = edit(m.copy())
assert np.array_equal(cols, expected[:, 1:])
assert item == expected[1][2]
