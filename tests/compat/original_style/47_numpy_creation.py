"""np.zeros / np.ones / np.array literals / np.linspace / np.arange inside @Phylanx."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def made():
    return (np.zeros((2, 3)), np.ones(4), np.array([[1, 2], [3, 4]]),
            np.linspace(0, 1, 5), np.arange(1, 7, 2))


z, o, a, ls, ar = made()
assert np.array_equal(z, np.zeros((2, 3))) and z.dtype == np.float64
assert np.array_equal(o, np.ones(4))
assert np.array_equal(a, np.array([[1, 2], [3, 4]]))
assert np.allclose(ls, np.linspace(0, 1, 5))
assert np.array_equal(ar, np.arange(1, 7, 2))
