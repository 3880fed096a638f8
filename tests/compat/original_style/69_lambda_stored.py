"""A lambda stored in a variable and called, and passed to fmap."""
from phylanx import Phylanx


@Phylanx
def use_lambda(xs):
    square = lambda x: x * x  # noqa: E731
    return fmap(square, xs), square(5)  # noqa: F821


mapped, single = use_lambda([1, 2, 3])
assert list(mapped) == [1, 4, 9] and single == 25
