"""fold_left with a decorated function as the folding function."""
import functools

from phylanx import Phylanx


@Phylanx
def mul2(x, y):
    return x * y


@Phylanx
def product(xs):
    return fold_left(mul2, 1, xs)  # noqa: F821


values = [1, 2, 3, 4, 5]
assert product(values) == functools.reduce(lambda a, b: a * b, values, 1)
