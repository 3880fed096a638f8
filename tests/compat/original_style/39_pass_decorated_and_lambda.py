"""A decorated function and a Python lambda passed as arguments are function
objects inside (regression 905)."""
from phylanx import Phylanx


@Phylanx
def inc(x):
    return x + 1


@Phylanx
def apply2(f, a, b):
    return f(a) + f(b)


@Phylanx
def combine(f, a, b):
    return f(a, b)


assert apply2(inc, 1, 2) == 5
assert combine(lambda a, b: a * b, 6, 7) == 42
