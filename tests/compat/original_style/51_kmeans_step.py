"""One k-means assignment step with argmin over a distance matrix."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def assign(points, centroids):
    result = make_list()  # noqa: F821
    for p in points:
        d = np.sum((centroids - p) * (centroids - p), 1)
        result = append(result, np.argmin(d))  # noqa: F821
    return result


points = np.array([[0.0, 0.0], [5.0, 5.0], [0.2, -0.1], [4.8, 5.3]])
centroids = np.array([[0.0, 0.0], [5.0, 5.0]])
expected = np.argmin(((points[:, None, :] - centroids[None]) ** 2).sum(-1), 1)
assert list(assign(points, centroids)) == list(expected)
