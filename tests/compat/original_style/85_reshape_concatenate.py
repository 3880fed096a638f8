"""np.reshape, np.concatenate, np.vstack of a tuple, np.expand_dims, np.squeeze."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def shapes(a, b):
    return (np.reshape(a, (2, 3)), np.concatenate((a, b)), np.vstack((a, b)),
            np.expand_dims(a, 0), np.squeeze(np.reshape(a, (1, 6))))


a = np.arange(6.0)
b = np.arange(6.0, 12.0)
got = shapes(a, b)
expected = [a.reshape(2, 3), np.concatenate((a, b)), np.vstack((a, b)),
            np.expand_dims(a, 0), a]
for g, e in zip(got, expected):
    assert g.shape == e.shape and np.array_equal(g, e)
