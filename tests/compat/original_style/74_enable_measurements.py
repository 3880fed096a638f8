"""enable_measurements then retrieve_counter_data gives the counters CSV."""
import numpy as np

from phylanx import execution_tree

cs = execution_tree.compiler_state("74_counters")
execution_tree.compile(cs, "74.physl", "f", "define(f, x, sum(x * x))")
execution_tree.enable_measurements(cs, True)
assert execution_tree.eval(cs, "f", np.arange(3.0)) == 5.0
csv = execution_tree.retrieve_counter_data(cs)
assert csv.splitlines()[0].startswith("primitive_instance,display_name,count,time")
newick, dot = execution_tree.retrieve_tree_topology(cs, "74.physl", "f")
assert newick.endswith(";") and "graph" in dot
