"""for i, j in zip(a, b) (the original's zip loop)."""
from phylanx import Phylanx


@Phylanx
def dot(a, b):
    total = 0.0
    for x, y in zip(a, b):
        total += x * y
    return total


assert dot([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]) == 32.0
