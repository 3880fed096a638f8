"""update_add / update_sub / += rebind a variable's expression lazily; the moving
average update is v - (1 - momentum) * (v - value)."""
import numpy as np

from phylanx import execution_tree

v = execution_tree.variable(np.array([1.0, 1.0]))
v += np.array([2.0, 3.0])
assert np.array_equal(v.eval(), [3.0, 4.0])
v.update_sub(np.array([1.0, 1.0]))
assert np.array_equal(v.eval(), [2.0, 3.0])

m = execution_tree.variable(np.array([10.0]))
m.update_moving_average(np.array([0.0]), 0.9)
assert np.allclose(m.eval(), 10.0 - (1 - 0.9) * (10.0 - 0.0))
