"""Element-wise NumPy math the original lacks (extensions): ``expm1 log1p deg2rad rad2deg
reciprocal fabs positive spacing signbit nan_to_num``.

Each is the NumPy ufunc of the same name, with the dtype rules of ``elementwise_math``
(an optional ``dtype`` to compute in or cast to; otherwise NumPy's result type).  ``reciprocal`` of
an integer is NumPy's integer reciprocal (``1 // x`` truncated, with NumPy's warning and
garbage value at 0), not a float.  None of them is flagged distributable (the table does
not cover them yet); those with a VJP rule are flagged differentiable.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...errors import PhylanxTypeError
from ...values import scalarize, type_name
from ..array_args import numpy_call
from ..registry import primitive
from .elementwise_math import apply_elementwise, as_numeric


def _unary(name: str, ufunc: np.ufunc, doc: str, example: str, result: str,
           differentiable: bool = False) -> Callable:
    """Declare ``name(x, dtype=nil)``: the ufunc element-wise (see the module docstring)."""
    def impl(x, dtype=None):
        return apply_elementwise(ufunc, x, dtype, ufunc)

    impl.__name__ = name
    impl.__doc__ = doc
    primitive(
        name, f"{name}(_1_x, __arg(_2_dtype, nil))", extension=True,
        oracle=ufunc, samples="unary", elementwise=True,
        example=example, result=result, differentiable=differentiable,
    )(impl)
    return impl


expm1 = _unary(
    "expm1", np.expm1,
    "Element-wise exp(x) - 1, accurate for small x, like numpy.expm1.\n\n"
    "Integers give float64, float32 stays float32.",
    "expm1([0.0, 1e-10])", "[0.0, 1.00000000005e-10]", differentiable=True)
log1p = _unary(
    "log1p", np.log1p,
    "Element-wise log(1 + x), accurate for small x, like numpy.log1p.\n\n"
    "-1 gives -inf and below -1 NaN, with NumPy's warning.",
    "log1p([0.0, 1e-10])", "[0.0, 9.9999999995e-11]", differentiable=True)
deg2rad = _unary(
    "deg2rad", np.deg2rad,
    "Element-wise conversion of angles from degrees to radians, like numpy.deg2rad.\n\n"
    "Also known as numpy.radians; integers give float64.",
    "deg2rad([180, 90])", "[3.141592653589793, 1.5707963267948966]", differentiable=True)
rad2deg = _unary(
    "rad2deg", np.rad2deg,
    "Element-wise conversion of angles from radians to degrees, like numpy.rad2deg.\n\n"
    "Also known as numpy.degrees; integers give float64.",
    "rad2deg([3.141592653589793, 0.0])", "[180.0, 0.0]", differentiable=True)
reciprocal = _unary(
    "reciprocal", np.reciprocal,
    "Element-wise 1/x, like numpy.reciprocal.\n\n"
    "Keeps the input's type: the reciprocal of an integer is an integer (0 for |x| > 1, as "
    "in NumPy); 0.0 gives inf with NumPy's warning.",
    "reciprocal([2.0, 0.5, -4.0])", "[0.5, 2.0, -0.25]", differentiable=True)

fabs = _unary(
    "fabs", np.fabs,
    "Element-wise absolute value as a float, like numpy.fabs.\n\n"
    "Integers give NumPy's float type (int8 float16, int64 float64); not for complex.",
    "fabs([-2, 3])", "[2.0, 3.0]", differentiable=True)
positive = _unary(
    "positive", np.positive,
    "Element-wise +x (a copy), like numpy.positive; not for bool, as in NumPy.",
    "positive([-2, 3])", "[-2, 3]", differentiable=True)
spacing = _unary(
    "spacing", np.spacing,
    "Element-wise distance to the next larger float, like numpy.spacing.",
    "spacing([1.0])", "[2.220446049250313e-16]")
signbit = _unary(
    "signbit", np.signbit,
    "Element-wise true where the sign bit is set (also -0.0), like numpy.signbit.",
    "signbit([-1.0, -0.0, 2.0])", "[true, true, false]")


def _replacement(value, what: str):
    """``nan``/``posinf``/``neginf``: nil or a real number (a Python number, weak as in NumPy)."""
    if value is None:
        return None
    if isinstance(value, (np.ndarray, np.generic)) and np.ndim(value) == 0 \
            and value.dtype.kind in "biuf":
        return value.item()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    raise PhylanxTypeError(f"{what} must be a number or nil, got a {type_name(value)}")


@primitive(
    "nan_to_num",
    "nan_to_num(_1_x, __arg(_2_copy, true), __arg(_3_nan, 0.0), __arg(_4_posinf, nil), "
    "__arg(_5_neginf, nil))",
    extension=True, elementwise=True, differentiable=True,
    oracle=lambda x, copy=True, nan=0.0, posinf=None, neginf=None: np.nan_to_num(
        x, copy=copy, nan=nan, posinf=posinf, neginf=neginf),
    example="nan_to_num(list(nan, inf, -inf, 1.5), true, -1.0, 9.0)",
    result="[-1.0, 9.0, -1.7976931348623157e308, 1.5]",
)
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """Replace NaN by ``nan`` and +-inf by ``posinf``/``neginf``, like numpy.nan_to_num.

    nil ``posinf``/``neginf`` are the largest/smallest finite value of the dtype.  Integer
    and bool arrays are returned unchanged.  ``copy`` false replaces in place in a float
    array given as a variable, as NumPy does (other names of the array see the change).
    """
    arr = as_numeric(x, "x")
    out = numpy_call(np.nan_to_num, arr, copy=bool(copy), nan=_replacement(nan, "nan"),
                     posinf=_replacement(posinf, "posinf"),
                     neginf=_replacement(neginf, "neginf"))
    return scalarize(np.asarray(out)) if np.ndim(out) == 0 else out
