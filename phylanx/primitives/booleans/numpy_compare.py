"""Comparisons the original lacks (extensions): ``isclose allclose array_equal isin``.

Each is the NumPy function of the same name with NumPy's argument names as keyword slots.
``isclose`` is element-wise with broadcasting (``|a - b| <= atol + rtol * |b|``, not
symmetric, as in NumPy); ``allclose`` and ``array_equal`` answer one bool; ``isin`` has the
shape of its first argument.  Operands are numbers, arrays or lists of numbers.
"""
from __future__ import annotations

import numpy as np

from ...errors import PhylanxTypeError
from ...values import scalarize, type_name
from ..arithmetics.elementwise_math import as_numeric, as_operand
from ..array_args import numpy_call
from ..dtypes import to_bool
from ..registry import primitive


def _tolerance(value, what: str):
    """``rtol``/``atol``: a number (or an array broadcasting with the operands)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    tol = as_numeric(value, what)
    if tol.dtype.kind not in "biuf":
        raise PhylanxTypeError(f"{what} must be a real number, got a {type_name(value)}")
    return tol


def _close_args(a, b, rtol, atol):
    return (as_operand(a, "a"), as_operand(b, "b"), _tolerance(rtol, "rtol"),
            _tolerance(atol, "atol"))


@primitive(
    "isclose",
    "isclose(_1_a, _2_b, __arg(_3_rtol, 1e-05), __arg(_4_atol, 1e-08), "
    "__arg(_5_equal_nan, false))",
    extension=True, elementwise=True, oracle=np.isclose,
    example="isclose(list(1.0, 1.0, nan), list(1.0000001, 1.1, nan))",
    result="[true, false, false]",
)
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Element-wise ``|a - b| <= atol + rtol * |b|`` with broadcasting, like numpy.isclose.

    Infinities are close only to the same infinity; NaN is close to NaN only if
    ``equal_nan``.  A 0-d result is a NumPy bool.
    """
    return scalarize(np.asarray(numpy_call(np.isclose, *_close_args(a, b, rtol, atol),
                                           equal_nan=to_bool(equal_nan))))


@primitive(
    "allclose",
    "allclose(_1_a, _2_b, __arg(_3_rtol, 1e-05), __arg(_4_atol, 1e-08), "
    "__arg(_5_equal_nan, false))",
    extension=True, oracle=np.allclose,
    example="allclose([1.0, 2.0], [1.0, 2.0000001])", result="true",
)
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True if every element pair is close (numpy.isclose), like numpy.allclose.

    The operands broadcast; shapes that do not broadcast are an error, as in NumPy.
    """
    return np.bool_(numpy_call(np.allclose, *_close_args(a, b, rtol, atol),
                               equal_nan=to_bool(equal_nan)))


@primitive(
    "array_equal", "array_equal(_1_a1, _2_a2, __arg(_3_equal_nan, false))",
    extension=True, oracle=np.array_equal,
    example="array_equal([1, 2], [1.0, 2.0])", result="true",
)
def array_equal(a1, a2, equal_nan=False):
    """True if both have the same shape and elements, like numpy.array_equal.

    No broadcasting: different shapes are simply unequal.  NaN equals NaN only if
    ``equal_nan``.
    """
    x, y = as_numeric(a1, "a1"), as_numeric(a2, "a2")
    return np.bool_(numpy_call(np.array_equal, x, y, equal_nan=to_bool(equal_nan)))


@primitive(
    "isin",
    "isin(_1_element, _2_test_elements, __arg(_3_assume_unique, false), "
    "__arg(_4_invert, false))",
    extension=True, oracle=np.isin,
    example="isin([[1, 5], [3, 7]], [3, 5])", result="[[false, true], [true, false]]",
)
def isin(element, test_elements, assume_unique=False, invert=False):
    """Element-wise test whether each of ``element`` occurs in ``test_elements``, like numpy.isin.

    The result has the shape of ``element``; ``test_elements`` is flattened.  ``invert``
    negates the answer (faster than negating it afterwards).
    """
    values, tests = as_numeric(element, "element"), as_numeric(test_elements, "test_elements")
    return scalarize(np.asarray(numpy_call(np.isin, values, tests, to_bool(assume_unique),
                                           to_bool(invert))))
