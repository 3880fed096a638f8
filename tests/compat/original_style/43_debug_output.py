"""debug(...) writes to the in-memory stream read by util.debug_output()."""
from phylanx import execution_tree, util

cs = execution_tree.compiler_state("43_debug")
before = util.debug_output()
execution_tree.eval(cs, 'debug("value=", 42)')
assert util.debug_output()[len(before):] == "value=42\n"
