"""Passing Phylanx.lazy(f) or f itself to fmap / fold_left inside another function."""
from phylanx import Phylanx


@Phylanx
def plus(a, b):
    return a + b


@Phylanx
def square(x):
    return x * x


@Phylanx
def sum_of_squares(f, g, xs):
    return fold_left(g, 0, fmap(f, xs))  # noqa: F821


assert sum_of_squares(square, plus, [1, 2, 3]) == 14
assert sum_of_squares(Phylanx.lazy(square), plus, [1, 2, 3]) == 14
