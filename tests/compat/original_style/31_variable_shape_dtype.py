"""A variable's dtype and _keras_shape, and a shape-tuple placeholder."""
import numpy as np

from phylanx import execution_tree

v = execution_tree.variable(np.ones((2, 3), dtype=np.float64), name="weights")
assert v.name == "weights" and str(v) == "weights"
assert v.dtype == np.float64
assert v._keras_shape == (2, 3)
placeholder = execution_tree.variable((4, 5))
assert placeholder._keras_shape == (4, 5)
i = execution_tree.variable(np.array([1, 2]))
assert i.dtype == np.int64
