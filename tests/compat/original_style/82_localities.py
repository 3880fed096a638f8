"""find_here(), num_localities() and hostname() in PhySL on one locality."""
import socket

from phylanx import execution_tree

cs = execution_tree.compiler_state("82_localities")
assert execution_tree.eval(cs, "find_here()") == 0
assert execution_tree.eval(cs, "num_localities()") == 1
assert execution_tree.eval(cs, "hostname()") == socket.gethostname()
