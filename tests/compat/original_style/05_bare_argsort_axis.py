"""argsort(a, axis) by its bare name, checked against np.argsort."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def order(a, axis):
    return argsort(a, axis)  # noqa: F821


m = np.array([[3.0, 1.0, 2.0], [0.5, 9.0, -1.0]])
for axis in (0, 1, -1):
    assert np.array_equal(order(m, axis), np.argsort(m, axis=axis, kind="stable"))
