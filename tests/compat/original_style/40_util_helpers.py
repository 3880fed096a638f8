"""phylanx.util: phyhelpex, phylist, serialize/unserialize of a PhySL AST."""
from phylanx import execution_tree, util

assert "argsort" in util.phyhelpex("argsort")
patterns = [p for ps in util.phylist().values() for p in ps]
assert any(p.startswith("hstack(") for p in patterns)
tree = execution_tree.parse("define(f, x, x * 2)")
again = util.unserialize(util.serialize(tree))
assert again == list(tree.body)
assert isinstance(util.hostname(), str)
