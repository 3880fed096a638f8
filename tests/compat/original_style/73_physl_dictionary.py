"""PhySL dictionaries: dict(list(list(k, v), ...)) and lookup by key."""
from phylanx import execution_tree

cs = execution_tree.compiler_state("73_dict")
d = execution_tree.eval(cs, 'dict(list(list("a", 1), list("b", 2)))')
assert d == {"a": 1, "b": 2}
assert execution_tree.eval(cs, 'slice(dict(list(list("a", 1), list("b", 2))), "b")') == 2
