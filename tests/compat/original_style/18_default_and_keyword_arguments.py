"""Defaults and keyword arguments of a decorated function."""
from phylanx import Phylanx


@Phylanx
def scaled(x, factor=2, offset=0):
    return x * factor + offset


assert scaled(3) == 6
assert scaled(3, 3) == 9
assert scaled(3, offset=1) == 7
assert scaled(3, factor=10, offset=1) == 31
