"""A decorated function calling one decorated later in the module (names resolve at
the first call)."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def energy(v):
    return half(np.dot(v, v))


@Phylanx
def half(x):
    return x / 2


assert energy(np.array([3.0, 4.0])) == 12.5
