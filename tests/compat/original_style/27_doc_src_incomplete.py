"""doc_src=True compiles the docstring as PhySL; an invalid docstring is the
parser's "Incomplete parse" RuntimeError."""
from phylanx import Phylanx


@Phylanx(doc_src=True)
def twice(x):
    """define(twice, x, 2 * x)"""


assert twice(21) == 42


@Phylanx(doc_src=True)
def broken(x):
    """define(broken, x, block(x"""


try:
    broken(1)
except RuntimeError as e:
    assert "Incomplete parse" in str(e)
else:
    raise AssertionError("an invalid docstring compiled")
