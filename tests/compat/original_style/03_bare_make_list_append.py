"""make_list and append by their bare PhySL names: append takes the list first."""
from phylanx import Phylanx


@Phylanx
def grow(n):
    result = make_list()  # noqa: F821
    for i in range(n):
        result = append(result, i * i)  # noqa: F821
    return result


assert grow(4) == [0, 1, 4, 9]
assert grow(0) == []
