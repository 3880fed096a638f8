"""np.dot of vector/vector, matrix/vector and matrix/matrix; np.outer; the @ operator."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def products(m, v):
    return np.dot(v, v), np.dot(m, v), np.dot(m, np.transpose(m)), np.outer(v, v), m @ v


m = np.arange(6.0).reshape(2, 3)
v = np.array([1.0, -1.0, 2.0])
got = products(m, v)
expected = [v @ v, m @ v, m @ m.T, np.outer(v, v), m @ v]
for g, e in zip(got, expected):
    assert np.allclose(g, e)
