"""A recursive decorated function."""
from phylanx import Phylanx


@Phylanx
def fact(n):
    if n <= 1:
        return 1
    else:
        return n * fact(n - 1)


assert fact(10) == 3628800
