"""A Python binding of a primitive's name wins over the primitive (Python scoping):
a module global, a parameter and a closure variable."""
import numpy as np

from phylanx import Phylanx


def cumsum(x):   # the user's function, not the primitive
    return x + 100


@Phylanx
def uses_global(x):
    return cumsum(x)


assert np.array_equal(uses_global(np.ones(2)), np.ones(2) + 100)


@Phylanx
def uses_parameter(hstack):
    return hstack + 1


assert uses_parameter(41) == 42


def make():
    argsort = 7

    @Phylanx
    def uses_closure(x):
        return x + argsort
    return uses_closure


assert make()(1) == 8
