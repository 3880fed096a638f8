"""Reductions the original lacks (extensions): ``nansum nanmean nanmax nanmin nanargmax
nanargmin ptp average``.

Each follows the NumPy function of the same name, with NumPy's argument names and order as
keyword slots (``out`` left out: PhySL values are not written into), so that decorated
Python's positional calls line up.  ``axis`` is nil (everything), an int (negative counts
from the end) or a list of ints.  The ``nan`` reductions skip NaN: an all-NaN slice gives
NaN for ``nanmax``/``nanmin``/``nanmean`` (with NumPy's warning) and 0 for ``nansum``.
0-d results are NumPy scalars.
"""
from __future__ import annotations

import numpy as np

from ...errors import PhylanxValueError
from ...values import scalarize
from ..arithmetics.elementwise_math import as_numeric
from ..array_args import as_array, numpy_call
from ..dtypes import to_axis, to_bool, to_dtype
from ..registry import primitive
from .reductions import reduction_axes


def _axes(a, axis):
    if np.ndim(a) == 0 and axis is not None:
        # NumPy decides per function whether a 0-d value has an axis 0 (nansum yes,
        # nanmean no); reduction_axes would drop it
        return _tuple_axis(axis.tolist() if isinstance(axis, np.ndarray) else axis)
    return reduction_axes(axis, np.ndim(a))


def _reduce(fn, a, axis, keepdims, **options):
    arr = as_numeric(a, "a")
    return scalarize(np.asarray(numpy_call(fn, arr, axis=_axes(arr, axis),
                                           keepdims=to_bool(keepdims), **options)))


def _tuple_axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


@primitive(
    "nansum", "nansum(_1_a, __arg(_2_axis, nil), __arg(_3_dtype, nil), __arg(_4_keepdims, false))",
    extension=True,
    oracle=lambda a, axis=None, dtype=None, keepdims=False: np.nansum(
        a, _tuple_axis(axis), dtype, keepdims=bool(keepdims)),
    example="nansum(list(1.0, nan, 3.0))", result="4.0",
    differentiable=True,
)
def nansum(a, axis=None, dtype=None, keepdims=False):
    """Sum treating NaN as zero (along ``axis``), like numpy.nansum.

    Bool and int inputs sum as int64; ``dtype`` sets the accumulator and result type.
    """
    return _reduce(np.nansum, a, axis, keepdims, dtype=to_dtype(dtype))


@primitive(
    "nanmean",
    "nanmean(_1_a, __arg(_2_axis, nil), __arg(_3_dtype, nil), __arg(_4_keepdims, false))",
    extension=True,
    oracle=lambda a, axis=None, dtype=None, keepdims=False: np.nanmean(
        a, _tuple_axis(axis), dtype, keepdims=bool(keepdims)),
    example="nanmean(list(list(1.0, nan), list(3.0, 4.0)), 1)", result="[1.0, 3.5]",
    differentiable=True,
)
def nanmean(a, axis=None, dtype=None, keepdims=False):
    """Mean of the non-NaN elements (along ``axis``), like numpy.nanmean.

    Integers give float64, float32 stays float32; an all-NaN slice gives NaN with NumPy's
    warning.
    """
    return _reduce(np.nanmean, a, axis, keepdims, dtype=to_dtype(dtype))


def _extreme_oracle(fn):
    def oracle(a, axis=None, keepdims=False):
        return fn(a, _tuple_axis(axis), keepdims=bool(keepdims))
    return oracle


@primitive(
    "nanmax", "nanmax(_1_a, __arg(_2_axis, nil), __arg(_3_keepdims, false))",
    extension=True, samples="reduction", oracle=_extreme_oracle(np.nanmax),
    example="nanmax(list(1.0, nan, 3.0))", result="3.0",
    differentiable=True,
)
def nanmax(a, axis=None, keepdims=False):
    """Largest element ignoring NaN (along ``axis``), like numpy.nanmax.

    An all-NaN slice gives NaN with NumPy's warning; an empty reduction is an error.
    """
    return _reduce(np.nanmax, a, axis, keepdims)


@primitive(
    "nanmin", "nanmin(_1_a, __arg(_2_axis, nil), __arg(_3_keepdims, false))",
    extension=True, samples="reduction", oracle=_extreme_oracle(np.nanmin),
    example="nanmin(list(1.0, nan, 3.0))", result="1.0",
    differentiable=True,
)
def nanmin(a, axis=None, keepdims=False):
    """Smallest element ignoring NaN (along ``axis``), like numpy.nanmin.

    An all-NaN slice gives NaN with NumPy's warning; an empty reduction is an error.
    """
    return _reduce(np.nanmin, a, axis, keepdims)


def _nanarg(fn, a, axis, keepdims):
    arr = as_array(a, "a")
    if axis is not None:
        axis = to_axis(axis, arr.ndim)
    return scalarize(numpy_call(fn, arr, axis, keepdims=to_bool(keepdims)))


@primitive(
    "nanargmax", "nanargmax(_1_a, __arg(_2_axis, nil), __arg(_3_keepdims, false))",
    extension=True, samples="reduction",
    oracle=lambda a, axis=None, keepdims=False: np.nanargmax(a, axis, keepdims=bool(keepdims)),
    example="nanargmax(list(1.0, nan, 3.0))", result="2",
)
def nanargmax(a, axis=None, keepdims=False):
    """Index of the largest element ignoring NaN (along ``axis``), like numpy.nanargmax.

    An all-NaN slice is an error, as in NumPy.
    """
    return _nanarg(np.nanargmax, a, axis, keepdims)


@primitive(
    "nanargmin", "nanargmin(_1_a, __arg(_2_axis, nil), __arg(_3_keepdims, false))",
    extension=True, samples="reduction",
    oracle=lambda a, axis=None, keepdims=False: np.nanargmin(a, axis, keepdims=bool(keepdims)),
    example="nanargmin(list(1.0, nan, 3.0))", result="0",
)
def nanargmin(a, axis=None, keepdims=False):
    """Index of the smallest element ignoring NaN (along ``axis``), like numpy.nanargmin.

    An all-NaN slice is an error, as in NumPy.
    """
    return _nanarg(np.nanargmin, a, axis, keepdims)


@primitive(
    "ptp", "ptp(_1_a, __arg(_2_axis, nil), __arg(_3_keepdims, false))",
    extension=True, samples="reduction", oracle=_extreme_oracle(np.ptp),
    example="ptp([[4, 9], [1, 2]], 1)", result="[5, 1]",
)
def ptp(a, axis=None, keepdims=False):
    """Range (maximum - minimum) of the elements (along ``axis``), like numpy.ptp.

    Keeps the dtype (integers can wrap around, as in NumPy); bool input is an error and
    NaN propagates.
    """
    return _reduce(np.ptp, a, axis, keepdims)


def _average(a, axis=None, weights=None, returned=False, keepdims=False):
    result = np.average(a, _tuple_axis(axis), weights, returned, keepdims=keepdims)
    return list(result) if isinstance(result, tuple) else result


@primitive(
    "average",
    "average(_1_a, __arg(_2_axis, nil), __arg(_3_weights, nil), __arg(_4_returned, false), "
    "__arg(_5_keepdims, false))",
    extension=True, oracle=_average, differentiable=True,
    example="average([1.0, 2.0, 4.0], nil, [1, 1, 2])", result="2.75",
)
def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """Weighted average (along ``axis``), like numpy.average.

    ``weights`` has the shape of ``a`` or, with an integer ``axis``, the length of that
    axis; no weights is the mean.  ``returned`` true gives ``list(average, sum of
    weights)``.  Weights summing to zero are an error, as in NumPy.
    """
    arr = as_numeric(a, "a")
    w = None if weights is None else as_numeric(weights, "weights")
    axes = _axes(arr, axis)
    try:
        result = numpy_call(_average, arr, axes, w, to_bool(returned), to_bool(keepdims))
    except ZeroDivisionError as e:
        raise PhylanxValueError(f"{e} (the weights sum to zero)") from None
    if isinstance(result, list):
        return [scalarize(np.asarray(r)) for r in result]
    return scalarize(np.asarray(result))
