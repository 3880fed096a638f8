"""fmap called by its bare PhySL name with a lambda of two arguments: zipped lists
give a list; arrays of one shape give the original's float64 array."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def products(a, b):
    return fmap(lambda x, y: x * y, a, b)  # noqa: F821


assert products([1, 2, 3], [4, 5, 6]) == [4, 10, 18]
a, b = np.array([1, 2, 3]), np.array([4, 5, 6])
got = products(a, b)
assert got.dtype == np.float64 and np.array_equal(got, (a * b).astype(np.float64))
