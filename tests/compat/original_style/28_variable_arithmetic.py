"""execution_tree.variable: lazy + - * and unary minus, evaluated by eval()."""
import numpy as np

from phylanx import execution_tree

a = execution_tree.variable(np.array([1.0, 2.0, 3.0]))
b = execution_tree.variable(np.array([4.0, 5.0, 6.0]))
expr = a * b - a + 2.0
assert np.array_equal(expr.eval(), a.eval() * b.eval() - a.eval() + 2.0)
assert np.array_equal((-a).eval(), -np.array([1.0, 2.0, 3.0]))
assert np.array_equal((10.0 - a).eval(), 10.0 - np.array([1.0, 2.0, 3.0]))
