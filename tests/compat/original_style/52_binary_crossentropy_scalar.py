"""binary_crossentropy of scalars (Keras's formula with clipping)."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def bce(target, output):
    return binary_crossentropy(target, output)  # noqa: F821


def keras_bce(t, o, eps=1e-7):
    o = np.clip(o, eps, 1 - eps)
    return -(t * np.log(o) + (1 - t) * np.log(1 - o))


for t, o in ((1.0, 0.3), (0.0, 0.9), (0.5, 0.5)):
    assert np.isclose(bce(t, o), keras_bce(t, o))
v = np.array([0.2, 0.7])
assert np.allclose(bce(np.array([0.0, 1.0]), v), keras_bce(np.array([0.0, 1.0]), v))
