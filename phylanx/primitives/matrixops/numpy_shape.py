"""matrixops, NumPy rearrangements the original lacks (extensions): ``roll column_stack
__npblock tril triu``.

Each follows the NumPy function of the same name on arrays of any rank, with NumPy's argument
names as keyword slots; numbers count as 0-d arrays.
"""
from __future__ import annotations

import numpy as np

from ...errors import PhylanxAxisError, PhylanxValueError
from ...values import scalarize
from ..array_args import array_sequence, as_array, as_int_list, numpy_call
from ..dtypes import to_int
from ..registry import primitive


def _axis_list(axis, ndim: int, what: str = "axis"):
    """An axis or a list of axes, each checked against ``ndim`` (None stays None)."""
    if axis is None:
        return None
    axes = as_int_list(axis, what)
    for a in axes if isinstance(axes, list) else [axes]:
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise PhylanxAxisError(f"{what} {a} is out of bounds for a {ndim}-d array "
                                    f"(valid: {-max(ndim, 1)} to {max(ndim, 1) - 1})")
    return tuple(axes) if isinstance(axes, list) else axes


@primitive(
    "roll", "roll(_1_a, _2_shift, __arg(_3_axis, nil))", extension=True,
    differentiable=True,
    oracle=np.roll,
    example="roll([1, 2, 3, 4, 5], 2)", result="[4, 5, 1, 2, 3]",
)
def roll(a, shift, axis=None):
    """Shift elements cyclically by ``shift`` along ``axis`` (the flattened array if nil).

    ``shift`` and ``axis`` may be lists of equal length (one shift per axis), or one shift
    applied to several axes; negative shifts roll backwards, like numpy.roll.
    """
    arr = as_array(a, "a")
    shifts = as_int_list(shift, "shift")
    return scalarize(numpy_call(np.roll, arr, shifts, _axis_list(axis, arr.ndim)))


@primitive(
    "column_stack", "column_stack(_1_tup)", extension=True,
    oracle=np.column_stack,
    example="column_stack(list([1, 2], [3, 4]))", result="[[1, 3], [2, 4]]",
    differentiable=True,
)
def column_stack(tup):
    """Stack 1-d arrays as columns (and 2-d arrays as they are) into a 2-d array.

    Like numpy.column_stack: the arrays must have the same number of rows.
    """
    arrays = array_sequence(tup, "tup")
    if not arrays:
        raise PhylanxValueError("column_stack needs at least one array")
    return numpy_call(np.column_stack, arrays)


@primitive(
    "__npblock", "__npblock(_1_arrays)", extension=True, internal=True,
    oracle=np.block,
    example="__npblock(list(list([1, 2], [3]), list([4, 5, 6])))",
    result="[[1, 2, 3], [4, 5, 6]]",
)
def npblock(arrays):
    """numpy.block: assemble an array from nested lists of blocks.

    ``np.block`` compiles to this; PhySL's own ``block`` is a sequence of expressions."""
    return numpy_call(np.block, arrays)


def _triangle(fn, m, k):
    arr = as_array(m, "m")
    if arr.ndim == 0:
        raise PhylanxValueError("m must be an array of at least 1 dimension, got a 0-d value")
    return fn(arr, to_int(k, "k"))


@primitive(
    "tril", "tril(_1_m, __arg(_2_k, 0))", extension=True,
    differentiable=True,
    oracle=np.tril,
    example="tril([[1, 2], [3, 4]])", result="[[1, 0], [3, 4]]",
)
def tril(m, k=0):
    """Lower triangle of a matrix (zeros above the k-th diagonal), like numpy.tril.

    n-d arrays apply it to the last two axes; a 1-d array is taken as its repeated rows.
    """
    return _triangle(np.tril, m, k)


@primitive(
    "triu", "triu(_1_m, __arg(_2_k, 0))", extension=True,
    differentiable=True,
    oracle=np.triu,
    example="triu([[1, 2], [3, 4]], 1)", result="[[0, 2], [0, 0]]",
)
def triu(m, k=0):
    """Upper triangle of a matrix (zeros below the k-th diagonal), like numpy.triu.

    n-d arrays apply it to the last two axes; a 1-d array is taken as its repeated rows.
    """
    return _triangle(np.triu, m, k)
