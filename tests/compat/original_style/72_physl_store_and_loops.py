"""PhySL define/store, while and for_each over range in one block."""
from phylanx import execution_tree

cs = execution_tree.compiler_state("72_loops")
program = """
block(
    define(total, 0),
    define(i, 0),
    while(i < 5, block(store(total, total + i), store(i, i + 1))),
    for_each(lambda(k, store(total, total + 10 * k)), range(3)),
    total
)
"""
assert execution_tree.eval(cs, program) == sum(range(5)) + 10 * sum(range(3))
