"""PhySL lists compare element-wise as values: list(1) == list(1)."""
from phylanx import execution_tree

cs = execution_tree.compiler_state("24_physl_lists")
assert execution_tree.eval(cs, "list(1) == list(1)")
assert not execution_tree.eval(cs, "list(1, 2) == list(1, 3)")
assert execution_tree.eval(cs, "list(1, 2) != list(2, 1)")
assert execution_tree.eval(cs, "make_list(1, 2)") == [1, 2]
