"""constant(value, shape, dtype): dtype by keyword or positionally; float64 by default."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def filled():
    return (constant(1, [2, 3], dtype="int"), constant(1, [2, 3], "int"),  # noqa: F821
            constant(7, 3))  # noqa: F821


by_keyword, positional, default = filled()
assert by_keyword.dtype == np.int64 and np.array_equal(by_keyword, np.ones((2, 3), int))
assert positional.dtype == np.int64 and np.array_equal(positional, by_keyword)
assert default.dtype == np.float64 and np.array_equal(default, np.full(3, 7.0))
