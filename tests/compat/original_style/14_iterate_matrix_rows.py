"""Iterating a matrix yields its rows (1-d vectors)."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def row_norms(m):
    result = make_list()  # noqa: F821
    for row in m:
        result = append(result, np.sqrt(np.dot(row, row)))  # noqa: F821
    return result


m = np.array([[3.0, 4.0], [6.0, 8.0], [0.0, 1.0]])
assert np.allclose(row_norms(m), np.linalg.norm(m, axis=1))
