"""matrixops, NumPy grids the original lacks (extensions): ``logspace meshgrid``.

``logspace`` is numpy.logspace with NumPy's argument names as keyword slots.
``meshgrid`` takes its coordinate vectors as one list (PhySL primitives with variadic
arguments take no keywords, and meshgrid needs ``indexing``); decorated Python's
``np.meshgrid(x, y, indexing="ij")`` is translated to ``meshgrid(list(x, y), "ij")``.
"""
from __future__ import annotations

import numpy as np

from ...errors import PhylanxValueError
from ..arithmetics.elementwise_math import as_numeric, as_operand
from ..array_args import array_sequence, numpy_call
from ..dtypes import to_axis, to_bool, to_count, to_dtype
from ..registry import primitive


@primitive(
    "logspace",
    "logspace(_1_start, _2_stop, __arg(_3_num, 50), __arg(_4_endpoint, true), "
    "__arg(_5_base, 10.0), __arg(_6_dtype, nil), __arg(_7_axis, 0))",
    extension=True,
    oracle=lambda start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0:
        np.logspace(start, stop, num, endpoint, base, dtype, axis),
    example="logspace(0, 3, 4)", result="[1.0, 10.0, 100.0, 1000.0]",
)
def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``num`` numbers spaced evenly on a log scale, ``base ** linspace(start, stop)``.

    Like numpy.logspace: ``endpoint`` false leaves ``base ** stop`` out; array ``start``/
    ``stop`` give one sequence per element, laid out along ``axis`` of the result.
    """
    lo, hi = as_operand(start, "start"), as_operand(stop, "stop")
    count = to_count(num, "num")
    b = as_operand(base, "base")
    ndim = np.broadcast(np.asarray(lo), np.asarray(hi), np.asarray(b)).ndim + 1
    return numpy_call(np.logspace, lo, hi, count, to_bool(endpoint, True), b,
                      to_dtype(dtype), to_axis(axis, ndim))


_INDEXING = ("xy", "ij")


def _meshgrid(xi, indexing="xy", sparse=False, copy=True):
    return list(np.meshgrid(*xi, indexing=indexing, sparse=sparse, copy=copy))


@primitive(
    "meshgrid",
    "meshgrid(_1_xi, __arg(_2_indexing, \"xy\"), __arg(_3_sparse, false), "
    "__arg(_4_copy, true))",
    extension=True, oracle=_meshgrid,
    example="meshgrid(list([1, 2, 3], [4, 5]))",
    result="list([[1, 2, 3], [1, 2, 3]], [[4, 4, 4], [5, 5, 5]])",
)
def meshgrid(xi, indexing="xy", sparse=False, copy=True):
    """Coordinate matrices from the coordinate vectors in the list ``xi``, like numpy.meshgrid.

    Returns a list with one array per vector.  ``indexing`` "xy" (Cartesian, the default)
    swaps the first two output axes, "ij" (matrix indexing) does not; ``sparse`` gives
    arrays of length 1 on the other axes instead of full grids.  Vectors of higher rank are
    flattened, as in NumPy.  The grids are always copies (``copy`` false is accepted and
    ignored: NumPy's views would share memory with each other).
    """
    if indexing not in _INDEXING:
        raise PhylanxValueError(f"indexing must be \"xy\" or \"ij\", got {indexing!r}")
    vectors = [as_numeric(v, f"element {i} of xi") for i, v in enumerate(array_sequence(xi, "xi"))]
    return numpy_call(_meshgrid, vectors, indexing, to_bool(sparse), True)
