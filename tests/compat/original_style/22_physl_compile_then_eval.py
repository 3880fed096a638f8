"""execution_tree.compile registers definitions; eval then calls them by name."""
import numpy as np

from phylanx import execution_tree

cs = execution_tree.compiler_state("22_physl_compile_then_eval")
execution_tree.compile(cs, "22.physl", "norm2", "define(norm2, v, sqrt(sum(v * v)))")
v = np.array([3.0, 4.0])
assert execution_tree.eval(cs, "norm2", v) == np.linalg.norm(v)
