"""hstack of mixed scalars, nested lists and vectors in PhySL (compat addendum A.3.1)."""
import numpy as np

from phylanx import execution_tree

cs = execution_tree.compiler_state("25_hstack")
value = execution_tree.eval(cs, "hstack(list(1, list(2, 3), hstack(list(4.5))))")
assert value.dtype == np.float64
assert np.array_equal(value, [1.0, 2.0, 3.0, 4.5])
assert np.array_equal(execution_tree.eval(cs, "vstack(list(1, 2))"), [[1], [2]])
