"""np.eye(n, k=1): a keyword matching the primitive's parameter name."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def shifted(n):
    return np.eye(n, k=1)


assert np.array_equal(shifted(4), np.eye(4, k=1))
