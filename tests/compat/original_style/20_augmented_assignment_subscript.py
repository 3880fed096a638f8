"""Augmented assignment on subscripted targets (regression 530 in the original)."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def bump(v):
    for i in range(3):
        v[i] += i * 10
    return v


v = np.array([1.0, 2.0, 3.0])
assert np.array_equal(bump(v.copy()), v + np.array([0.0, 10.0, 20.0]))
