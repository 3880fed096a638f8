"""Element-wise NumPy functions: exp, log, sqrt, power, absolute, where, clip."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def transform(x):
    return (np.exp(x) + np.log(x + 1) - np.sqrt(x) * np.power(x, 2),
            np.where(x > 1, x, -x), np.absolute(-x))


x = np.array([0.5, 1.0, 2.5])
got = transform(x)
assert np.allclose(got[0], np.exp(x) + np.log(x + 1) - np.sqrt(x) * np.power(x, 2))
assert np.array_equal(got[1], np.where(x > 1, x, -x))
assert np.array_equal(got[2], np.absolute(-x))
