"""random(shape, list("uniform", min, max)) draws from the given interval."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def draw(rows, cols):
    return random([rows, cols], ["uniform", 2.0, 3.0])  # noqa: F821


sample = draw(300, 4)
assert sample.shape == (300, 4) and sample.dtype == np.float64
assert 2.0 <= sample.min() and sample.max() < 3.0
assert 2.4 < sample.mean() < 2.6
