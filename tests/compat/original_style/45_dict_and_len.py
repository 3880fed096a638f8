"""Dict literals, subscripting and len()."""
from phylanx import Phylanx


@Phylanx
def lookup(key):
    table = {"a": 1, "b": 2, "c": 3}
    return table[key] * len(table)


assert lookup("b") == 6
