"""Phylanx.lazy(f): calling it gives f.lazy(...), an unevaluated variable."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def mean_of(x):
    return np.mean(x)


lazy_mean = Phylanx.lazy(mean_of)
pending = lazy_mean(np.array([1.0, 2.0, 6.0]))
assert pending.eval() == 3.0
