"""fmap over a 1-d array gives an array of the input's dtype; over a matrix the
function gets rows."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def halves(v):
    return fmap(lambda x: x / 2, v)  # noqa: F821


@Phylanx
def row_sums(m):
    return fmap(lambda r: np.sum(r), m)  # noqa: F821


assert np.array_equal(halves(np.array([2.0, 5.0])), np.array([1.0, 2.5]))
m = np.arange(6.0).reshape(2, 3)
assert np.array_equal(row_sums(m), m.sum(axis=1))
