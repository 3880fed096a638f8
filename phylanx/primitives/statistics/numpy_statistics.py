"""Order statistics and covariances the original lacks (extensions): ``median percentile
quantile cov corrcoef``.

Each follows the NumPy function of the same name, with NumPy's argument names as keyword
slots (``out``/``overwrite_input`` are left out: PhySL values are not written into).
Integers give float64, float32 stays float32, NaN propagates as in NumPy, and 0-d results
are NumPy scalars.
"""
from __future__ import annotations

import numpy as np

from ...errors import PhylanxAxisError, PhylanxTypeError
from ...values import scalarize, type_name
from ..array_args import numpy_call
from ..dtypes import to_bool, to_dtype
from ..numeric_args import as_numeric
from ..registry import primitive
from .reductions import reduction_axes


def _data(a, what: str = "a"):
    a = as_numeric(a, what)
    if a.dtype.kind == "c":
        raise PhylanxTypeError(f"{what} must be real, got a complex {type_name(a)}")
    return a


def _method(method) -> str:
    if not isinstance(method, str):
        raise PhylanxTypeError(f"method must be a string such as \"linear\", got a "
                               f"{type_name(method)}")
    return method


@primitive(
    "median", "median(_1_a, __arg(_2_axis, nil), __arg(_3_keepdims, false))",
    extension=True,
    oracle=lambda a, axis=None, keepdims=False: np.median(a, axis=axis, keepdims=keepdims),
    example="median([[1, 7, 3], [4, 2, 9]], 1)", result="[3.0, 4.0]",
)
def median(a, axis=None, keepdims=False):
    """Median along ``axis`` (of everything if nil), like numpy.median.

    ``axis`` may be a list of axes; an even count averages the two middle values; a NaN
    makes the median NaN.  The median of an empty array is NaN with NumPy's warning.
    """
    a = _data(a)
    axes = _order_axes(axis, a)
    return scalarize(numpy_call(np.median, a, axis=axes, keepdims=to_bool(keepdims)))


def _order_axes(axis, a):
    """The checked axes of a median or percentile: NumPy refuses any axis for a 0-d value
    (one of 0 or -1 was taken for the whole, a result where NumPy raises, user49)."""
    if axis is not None and np.ndim(a) == 0:
        raise PhylanxAxisError(f"axis {axis} is out of bounds for a 0-d array (give nil)")
    return reduction_axes(axis, np.ndim(a))


def _order_statistic(fn, a, q, axis, method, keepdims):
    a = _data(a)
    q = as_numeric(q, "q")
    if isinstance(q, np.generic):
        # a number q is weak in NumPy (float32 data stays float32); PhySL literals arrive as
        # int64/float64 scalars, so they are turned back into Python numbers
        q = q.item()
    axes = _order_axes(axis, a)
    return scalarize(numpy_call(fn, a, q, axis=axes, method=_method(method),
                                keepdims=to_bool(keepdims)))


def _order_oracle(fn):
    def oracle(a, q, axis=None, method="linear", keepdims=False):
        return fn(a, q, axis=axis, method=method, keepdims=keepdims)
    return oracle


@primitive(
    "percentile",
    "percentile(_1_a, _2_q, __arg(_3_axis, nil), __arg(_4_method, \"linear\"), "
    "__arg(_5_keepdims, false))",
    extension=True, oracle=_order_oracle(np.percentile),
    example="percentile([1, 2, 3, 4, 5], list(25, 50))",
    result="[2.0, 3.0]",
)
def percentile(a, q, axis=None, method="linear", keepdims=False):
    """The q-th percentiles (q in [0, 100], a number or an array), like numpy.percentile.

    ``method`` is one of NumPy's ("linear", "lower", "higher", "nearest", "midpoint", ...).
    An array ``q`` adds its shape in front of the result's.
    """
    return _order_statistic(np.percentile, a, q, axis, method, keepdims)


@primitive(
    "quantile",
    "quantile(_1_a, _2_q, __arg(_3_axis, nil), __arg(_4_method, \"linear\"), "
    "__arg(_5_keepdims, false))",
    extension=True, oracle=_order_oracle(np.quantile),
    example="quantile([1, 2, 3, 4, 5], 0.25)", result="2.0",
)
def quantile(a, q, axis=None, method="linear", keepdims=False):
    """The q-th quantiles (q in [0, 1], a number or an array), like numpy.quantile.

    ``method`` is one of NumPy's ("linear", "lower", "higher", "nearest", "midpoint", ...).
    """
    return _order_statistic(np.quantile, a, q, axis, method, keepdims)


def _optional(value, what):
    return None if value is None else _data(value, what)


def _ddof(ddof):
    if ddof is None:
        return None
    if isinstance(ddof, (bool, np.bool_)) or not isinstance(ddof, (int, np.integer, float,
                                                                   np.floating)):
        raise PhylanxTypeError(f"ddof must be an integer, got a {type_name(ddof)}")
    return ddof


@primitive(
    "cov",
    "cov(_1_m, __arg(_2_y, nil), __arg(_3_rowvar, true), __arg(_4_bias, false), "
    "__arg(_5_ddof, nil), __arg(_6_fweights, nil), __arg(_7_aweights, nil), "
    "__arg(_8_dtype, nil))",
    extension=True, oracle=np.cov,
    example="cov([[0, 1, 2], [2, 1, 0]])", result="[[1.0, -1.0], [-1.0, 1.0]]",
)
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    """Covariance matrix of the variables in the rows of ``m``, like numpy.cov.

    Variables are the columns if ``rowvar`` is false.
    ``y`` adds variables; ``bias`` normalises by N instead of N - 1, ``ddof`` overrides
    both; ``fweights`` (integer counts) and ``aweights`` weight the observations.  A single
    variable gives a 0-d result.
    """
    m = _data(m, "m")
    out = numpy_call(np.cov, m, _optional(y, "y"), to_bool(rowvar), to_bool(bias),
                     _ddof(ddof), _optional(fweights, "fweights"),
                     _optional(aweights, "aweights"), dtype=to_dtype(dtype))
    return scalarize(out)


@primitive(
    "corrcoef", "corrcoef(_1_x, __arg(_2_y, nil), __arg(_3_rowvar, true), __arg(_4_dtype, nil))",
    extension=True, oracle=np.corrcoef,
    example="corrcoef([1, 2, 3], [3, 2, 1])", result="[[1.0, -1.0], [-1.0, 1.0]]",
)
def corrcoef(x, y=None, rowvar=True, dtype=None):
    """Pearson correlation coefficients of the variables in the rows of ``x`` (numpy.corrcoef).

    Variables are the columns if ``rowvar`` is false.  A constant variable gives NaN with
    NumPy's warning; one variable gives a 0-d result.
    """
    x = _data(x, "x")
    out = numpy_call(np.corrcoef, x, _optional(y, "y"), to_bool(rowvar), dtype=to_dtype(dtype))
    return scalarize(out)

