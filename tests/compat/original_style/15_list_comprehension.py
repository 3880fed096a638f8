"""A list comprehension over a list, and over zip."""
from phylanx import Phylanx


@Phylanx
def squares(xs):
    return [x * x for x in xs]


@Phylanx
def pair_sums(a, b):
    return [x + y for x, y in zip(a, b)]


assert squares([1, 2, 3]) == [1, 4, 9]
assert pair_sums([1, 2], [10, 20]) == [11, 22]
