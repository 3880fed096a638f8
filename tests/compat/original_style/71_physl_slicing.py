"""PhySL slice() of vectors and matrices (compat addendum A.1)."""
import numpy as np

from phylanx import execution_tree

cs = execution_tree.compiler_state("71_slicing")
execution_tree.compile(cs, "71.physl", "parts", """
define(parts, m, list(slice(m, 1), slice(m, list(0, 2), 1), slice(m, nil, list(1, 3))))
""")
m = np.arange(12.0).reshape(3, 4)
row, column_part, block = execution_tree.eval(cs, "parts", m)
assert np.array_equal(row, m[1])
assert np.array_equal(column_part, m[0:2, 1])
assert np.array_equal(block, m[:, 1:3])
