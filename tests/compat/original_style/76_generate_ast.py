"""generate_ast() of a decorated function: its PhySL as a list of AST expressions,
each printing as its PhySL text."""
from phylanx import Phylanx


@Phylanx
def halve(x):
    return x / 2


assert halve(8) == 4.0
expressions = halve.generate_ast()
assert isinstance(expressions, list) and len(expressions) == 1
assert [str(e) for e in expressions] == [halve.__src__]
