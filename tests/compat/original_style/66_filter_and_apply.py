"""filter and apply by their bare PhySL names."""
from phylanx import Phylanx


@Phylanx
def evens(xs):
    return filter(lambda x: x % 2 == 0, xs)


@Phylanx
def apply_sum(f, args):
    return apply(f, args)  # noqa: F821


@Phylanx
def add3(a, b, c):
    return a + b + c


assert list(evens([1, 2, 3, 4, 6])) == [2, 4, 6]
assert apply_sum(add3, [1, 2, 3]) == 6
