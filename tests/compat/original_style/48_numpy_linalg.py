"""np.linalg.inv, np.linalg.det (determinant), np.dot and np.transpose."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def solve_by_inverse(a, b):
    return np.dot(np.linalg.inv(a), b), np.linalg.det(a), np.transpose(a)


a = np.array([[4.0, 1.0], [2.0, 3.0]])
b = np.array([1.0, 2.0])
x, det, at = solve_by_inverse(a, b)
assert np.allclose(x, np.linalg.solve(a, b))
assert np.isclose(det, np.linalg.det(a))
assert np.array_equal(at, a.T)
