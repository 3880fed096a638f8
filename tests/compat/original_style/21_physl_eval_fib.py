"""execution_tree.eval of a PhySL block that defines and returns a function,
called with an argument (the original's README example)."""
from phylanx import execution_tree

cs = execution_tree.compiler_state("21_physl_eval_fib")
fib = """
block(
    define(fib, n, if(n < 2, n, fib(n - 1) + fib(n - 2))),
    fib
)
"""
assert execution_tree.eval(cs, fib, 10) == 55
assert execution_tree.eval(cs, "fib", 12) == 144
