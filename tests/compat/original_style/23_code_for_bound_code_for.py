"""code_for gives a compiled function object, bound_code_for binds its arguments."""
from phylanx import execution_tree

cs = execution_tree.compiler_state("23_code_for")
execution_tree.compile(cs, "23.physl", "add3", "define(add3, a, b, c, a + b + c)")
add3 = execution_tree.code_for(cs, "23.physl", "add3")
assert add3(1, 2, 3) == 6
bound = execution_tree.bound_code_for(cs, "23.physl", "add3", 10, 20)
assert bound.eval(5) == 35
