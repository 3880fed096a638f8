"""Decorated functions compiled with an explicit compiler state call each other."""
import numpy as np

from phylanx import Phylanx, execution_tree

cs = execution_tree.compiler_state("08_explicit_compiler_state")


@Phylanx(compiler_state=cs)
def square(x):
    return x * x


@Phylanx(compiler_state=cs)
def sum_of_squares(x):
    return np.sum(square(x))


assert sum_of_squares(np.array([1.0, 2.0, 3.0])) == 14.0
