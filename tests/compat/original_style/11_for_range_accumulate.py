"""A for loop over range with an accumulator initialised before the loop."""
from phylanx import Phylanx


@Phylanx
def triangular(n):
    total = 0
    for i in range(n + 1):
        total += i
    return total


assert triangular(10) == 55
