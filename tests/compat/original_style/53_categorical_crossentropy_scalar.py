"""categorical_crossentropy of scalars: one class, so the normalised output is 1
(clipped to 1 - 1e-7) and the loss -target * log(1 - 1e-7); vectors give
[loss, clipped output]."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def cce(target, output):
    return categorical_crossentropy(target, output)  # noqa: F821


assert np.isclose(cce(1.0, 0.3), -np.log(1 - 1e-7))
assert np.isclose(cce(0.5, 2.0), -0.5 * np.log(1 - 1e-7))
loss, clipped = cce(np.array([0.0, 1.0]), np.array([0.25, 0.75]))
assert np.isclose(loss, -np.log(0.75)) and np.allclose(clipped, [0.25, 0.75])
