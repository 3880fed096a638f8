"""Searching and sorting (``argmax argmin argsort sort unique``) and element-wise ``power``.

All follow NumPy (``numpy.argmax``, ``numpy.sort`` ...): nil axis means the flattened
array, negative axes count from the end, sort kinds are NumPy's, and 0-d results are
NumPy scalars.  ``power`` lives here because the matrixops catalogue lists it with
these array primitives; it is NumPy's ``**`` including its errors (an integer to a
negative integer power is a PhylanxValueError, as NumPy raises).
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ...errors import (
    PhylanxAxisError,
    PhylanxTypeError,
    PhylanxValueError,
    PhylanxZeroDivisionError,
)
from ...values import scalarize, type_name
from ..dtypes import to_axis, to_bool
from ..registry import primitive
from .linalg import numeric

_SORT_KINDS = ("quicksort", "mergesort", "heapsort", "stable")


def _search(name: str, finder, a: Any, axis: Any) -> Any:
    arr = numeric(a, "the argument")
    axis = to_axis(axis, arr.ndim)
    if arr.size == 0 and (axis is None or arr.shape[axis] == 0):
        raise PhylanxValueError(f"an empty array (shape {arr.shape}) has no {name[3:]}imum")
    return scalarize(finder(arr, axis=axis))


@primitive("argmax", "argmax(_1, _2)", "argmax(_1)", distributable=True,
           oracle=lambda a, axis=None: np.argmax(a, axis=axis),
           example="argmax([[1, 9], [8, 2]], 0)", result="[1, 0]")
def argmax(a, axis=None):
    """Index of the first maximum in the flattened array, or per-axis indices along ``axis``.

    NaN counts as the maximum (first NaN wins), like numpy.argmax.
    """
    return _search("argmax", np.argmax, a, axis)


@primitive("argmin", "argmin(_1, _2)", "argmin(_1)", distributable=True,
           oracle=lambda a, axis=None: np.argmin(a, axis=axis),
           example="argmin([[1, 9], [8, 2]], 1)", result="[0, 1]")
def argmin(a, axis=None):
    """Index of the first minimum in the flattened array, or per-axis indices along ``axis``.

    NaN counts as the minimum (first NaN wins), like numpy.argmin.
    """
    return _search("argmin", np.argmin, a, axis)


def _sort_args(name: str, a: Any, axis: Any, kind: Any, order: Any):
    arr = numeric(a, "the argument")
    if axis is not None:
        if arr.ndim == 0 and name == "sort":
            raise PhylanxAxisError(f"axis {axis} is out of bounds for a 0-d array (sort "
                                   f"it with axis nil)")
        # (argsort runs on a 0-d value as on a 1-d one, as NumPy's: to_axis checks the
        # axis is 0 or -1 there, and the flattened value's argsort is [0])
        axis = to_axis(axis, arr.ndim)
        if arr.ndim == 0:
            axis = None
    if kind is not None and kind not in _SORT_KINDS:
        raise PhylanxValueError(
            f"sort kind must be one of {', '.join(_SORT_KINDS)}, got {kind!r}")
    if order is not None:
        # arrays here never have named fields, as NumPy says for plain arrays
        raise PhylanxValueError("cannot specify an order: the array has no fields")
    return arr, axis, kind


@primitive("argsort",
           "argsort(_1, __arg(_2_axis, -1), __arg(_3_kind, \"quicksort\"), __arg(_4_order, nil))",
           oracle=lambda a, axis=-1, kind="quicksort", order=None: np.argsort(
               a, axis=axis, kind=kind, order=order),
           example="argsort([3, 1, 2])", result="[1, 2, 0]", distributable=True)
def argsort(a, axis=-1, kind="quicksort", order=None):
    """Indices that sort ``a`` along ``axis`` (nil: the flattened array), numpy.argsort.

    ``kind`` is quicksort, mergesort, heapsort or stable (stable keeps ties in order);
    NaN sorts last.
    """
    arr, axis, kind = _sort_args("argsort", a, axis, kind, order)
    return np.argsort(arr, axis=axis, kind=kind)


@primitive("sort",
           "sort(_1, __arg(_2_axis, -1), __arg(_3_kind, \"quicksort\"), __arg(_4_order, nil))",
           oracle=lambda a, axis=-1, kind="quicksort", order=None: np.sort(
               a, axis=axis, kind=kind, order=order),
           example="sort([[3, 1], [0, 2]], 0)", result="[[0, 1], [3, 2]]",
           differentiable=True, distributable=True)
def sort(a, axis=-1, kind="quicksort", order=None):
    """Sorted copy of ``a`` along ``axis`` (nil: flattened first), numpy.sort.

    ``kind`` is quicksort, mergesort, heapsort or stable; NaN sorts last.
    """
    arr, axis, kind = _sort_args("sort", a, axis, kind, order)
    return np.sort(arr, axis=axis, kind=kind)


def _unique_oracle(a, axis=None, return_index=False, return_inverse=False,
                   return_counts=False, equal_nan=True):
    result = np.unique(a, return_index, return_inverse, return_counts, axis,
                       equal_nan=equal_nan)
    return list(result) if isinstance(result, tuple) else result


# The original's second positional argument is ``axis`` (NumPy's is return_index), so the
# NumPy flags are trailing keyword slots; decorated Python binds np.unique's arguments by
# name (frontend/numpy_calls.py np_unique).
@primitive("unique", "unique(_1, __arg(_2_axis, nil), __arg(_3_return_index, false), "
           "__arg(_4_return_inverse, false), __arg(_5_return_counts, false), "
           "__arg(_6_equal_nan, true))",
           oracle=_unique_oracle,
           example="unique([3, 1, 3, 2])", result="[1, 2, 3]")
def unique(a, axis=None, return_index=False, return_inverse=False, return_counts=False,
           equal_nan=True):
    """Sorted unique elements (flattened), or the unique sub-arrays along ``axis``.

    Like numpy.unique.  With any of ``return_index`` (first occurrence of each unique
    value), ``return_inverse`` (indices rebuilding the input from the unique values) and
    ``return_counts`` (occurrences) the result is ``list(unique, <those asked for, in that
    order>)``.  ``equal_nan`` false keeps every NaN apart.
    """
    arr = numeric(a, "the argument")
    flags = [to_bool(f) for f in (return_index, return_inverse, return_counts)]
    result = np.unique(arr, *flags, axis=to_axis(axis, arr.ndim),
                       equal_nan=to_bool(equal_nan, True))
    return list(result) if isinstance(result, tuple) else result


#: Python's own number types: ``**`` of two of them is Python's (``2 ** 1j`` complex)
_PYTHON_NUMBERS = frozenset((int, float, bool, complex))
#: NumPy's float and complex scalar types
_FLOAT_SCALARS = frozenset(np.dtype(c).type for c in np.typecodes["AllFloat"])


def _power_operand(value: Any, what: str) -> Any:
    if isinstance(value, (np.ndarray, np.generic)):
        return value
    if isinstance(value, (int, float, complex)) and not isinstance(value, bool):
        return value  # a weak Python scalar: x ** 2 keeps float32 as in NumPy
    if isinstance(value, (list, tuple, range, bool)):
        return numeric(value, what)
    raise PhylanxTypeError(f"{what} of power must be a number or an array, got a "
                           f"{type_name(value)}")



def _pow_oracle(base, exponent):
    """Python's ``**``: NumPy's for arrays (np.power, but ``b ** 2`` of a bool array squares),
    Python's for Python numbers."""
    if isinstance(base, (list, tuple)):
        base = np.asarray(base)
    return operator.pow(base, exponent)


@primitive("power", "power(_1, _2)", oracle=_pow_oracle,
           supports_dtype=True, elementwise=True, differentiable=True,
           example="power([1, 2, 3], 2)", result="[1, 4, 9]")
def power(base, exponent):
    """Element-wise ``base ** exponent`` with broadcasting (Python's/NumPy's ``**``).

    An integer base to a negative integer exponent raises, as in NumPy; Python numbers
    are raised as in Python.  ``np.power`` differs from ``**`` only for a bool array
    squared (int64, not int8): the frontend gives it NumPy's operands (``__npoperand``).
    """
    tb, te = type(base), type(exponent)
    if tb in _PYTHON_NUMBERS and te in _PYTHON_NUMBERS:
        # Python numbers: Python's ** (unbounded ints; 2 ** -1 is 0.5; complex ones
        # too), as the same expression gives in plain Python
        try:
            return base ** exponent
        except ZeroDivisionError as e:   # Python's class and message
            raise PhylanxZeroDivisionError(str(e)) from None
    if (te is int or te is float) and (tb in _FLOAT_SCALARS or (
            tb is np.ndarray and base.dtype.kind in "fc")):
        # a float base (an element read in a loop, an array) to a Python number: what
        # the checks below come to (no bool, no negative int power; a ufunc gives a
        # scalar, never a 0-d array), without their calls
        return np.power(base, exponent)
    b = _power_operand(base, "the base")
    e = _power_operand(exponent, "the exponent")
    if te is int and exponent == 2 and isinstance(b, np.ndarray) and b.dtype == np.bool_:
        # NumPy's ``**`` squares for a Python 2 (np.square: int8 for bools) where np.power
        # gives int64, the one case they differ; np.power in decorated code passes NumPy's
        # int (``__npoperand``), so this is ``b ** 2`` and ``pow(b, 2)``
        return np.square(b)
    try:
        return scalarize(np.power(b, e))
    except ValueError as err:
        if "negative integer powers" in str(err):
            raise PhylanxValueError(
                "an integer base cannot be raised to a negative integer exponent "
                "(as in NumPy); make the base a float") from None
        raise
