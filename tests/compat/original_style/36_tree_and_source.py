"""tree() gives [newick, dot]; get_physl_source() the generated PhySL define."""
from phylanx import Phylanx


@Phylanx
def axpy(a, x, y):
    return a * x + y


assert axpy(2, 3, 4) == 10
newick, dot = axpy.tree()
assert isinstance(newick, str) and newick.endswith(";")
assert "graph" in dot
source = axpy.get_physl_source()
assert source.startswith("define(axpy")
