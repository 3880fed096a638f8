"""with parallel: the statements run concurrently (parallel_block)."""
import numpy as np

from phylanx import Phylanx, parallel


@Phylanx
def both(x):
    with parallel:
        a = np.sum(x)
        b = np.amax(x)
    return a + b


assert both(np.array([1.0, 2.0, 3.0])) == 9.0
