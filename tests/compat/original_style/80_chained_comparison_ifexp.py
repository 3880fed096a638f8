"""Chained comparisons and conditional expressions."""
from phylanx import Phylanx


@Phylanx
def band(x):
    return 1 if 0 <= x < 10 else -1


assert [band(-1), band(0), band(9.5), band(10)] == [-1, 1, 1, -1]
