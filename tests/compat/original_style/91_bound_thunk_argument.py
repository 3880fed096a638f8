"""Passing f.lazy(args) passes a thunk: using the parameter evaluates f(args)."""
import numpy as np

from phylanx import Phylanx


@Phylanx
def ones_like_of(n):
    return np.ones(n)


@Phylanx
def total(values):
    return np.sum(values)


assert total(ones_like_of.lazy(5)) == 5.0
