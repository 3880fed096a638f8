"""Binary element-wise NumPy math the original lacks (extensions): ``arctan2 hypot fmax fmin
fmod copysign logaddexp logaddexp2 float_power ldexp nextafter heaviside gcd lcm``.

Each is the NumPy ufunc of the same name with broadcasting and NumPy's result types
(``arctan2`` of bools is float16, as in NumPy).
``fmax``/``fmin`` ignore NaN where the other operand is a number (``maximum`` propagates it).
"""
from __future__ import annotations

import numpy as np

from ...values import scalarize
from ..array_args import numpy_call
from ..numeric_args import as_operand
from ..registry import primitive


def _binary(name: str, ufunc: np.ufunc, example: str, result: str, doc: str,
            differentiable: bool = True):
    def impl(x1, x2):
        a, b = as_operand(x1, "x1"), as_operand(x2, "x2")
        return scalarize(numpy_call(ufunc, a, b))

    impl.__name__ = name
    impl.__doc__ = doc
    primitive(
        name, f"{name}(_1_x1, _2_x2)", extension=True,
        oracle=ufunc, samples="binary",
        elementwise=True, differentiable=differentiable, example=example, result=result,
    )(impl)
    return impl


arctan2 = _binary(
    "arctan2", np.arctan2, "arctan2([1.0, -1.0], [-1.0, -1.0])",
    "[2.356194490192345, -2.356194490192345]",
    "Element-wise arc tangent of x1/x2 in the right quadrant (radians), like numpy.arctan2.\n\n"
    "Broadcasts; integers give float64, float32 stays float32.")
hypot = _binary(
    "hypot", np.hypot, "hypot([3, 5], [4, 12])", "[5.0, 13.0]",
    "Element-wise sqrt(x1**2 + x2**2) without overflow, like numpy.hypot.\n\n"
    "Broadcasts; integers give float64, float32 stays float32.")
fmax = _binary(
    "fmax", np.fmax, "fmax(list(1.0, nan, 3.0), list(2.0, 0.0, nan))", "[2.0, 0.0, 3.0]",
    "Element-wise maximum that ignores NaN (NaN only where both are NaN), like numpy.fmax.\n\n"
    "Broadcasts and keeps NumPy's result type (bool with bool stays bool).")
fmin = _binary(
    "fmin", np.fmin, "fmin(list(1.0, nan, 3.0), list(2.0, 0.0, nan))", "[1.0, 0.0, 3.0]",
    "Element-wise minimum that ignores NaN (NaN only where both are NaN), like numpy.fmin.\n\n"
    "Broadcasts and keeps NumPy's result type (bool with bool stays bool).")
fmod = _binary(
    "fmod", np.fmod, "fmod([5, -5], [3, 3])", "[2, -2]",
    "Element-wise C remainder (the sign of x1), like numpy.fmod.\n\n"
    "Unlike ``%`` (numpy.mod, the sign of x2); 0 as divisor gives NumPy's 0 or NaN and warning.")
copysign = _binary(
    "copysign", np.copysign, "copysign([1.0, 2.0], [-1.0, 1.0])", "[-1.0, 2.0]",
    "Element-wise magnitude of x1 with the sign of x2, like numpy.copysign.")
logaddexp = _binary(
    "logaddexp", np.logaddexp, "logaddexp([0.0], [0.0])", "[0.6931471805599453]",
    "Element-wise log(exp(x1) + exp(x2)) without overflow, like numpy.logaddexp.")
logaddexp2 = _binary(
    "logaddexp2", np.logaddexp2, "logaddexp2([1.0], [1.0])", "[2.0]",
    "Element-wise log2(2**x1 + 2**x2) without overflow, like numpy.logaddexp2.")
float_power = _binary(
    "float_power", np.float_power, "float_power([2, 3], 2)", "[4.0, 9.0]",
    "Element-wise x1 ** x2 computed in float64 (or complex128), like numpy.float_power.")
ldexp = _binary(
    "ldexp", np.ldexp, "ldexp([1.0, 3.0], [2, 1])", "[4.0, 6.0]",
    "Element-wise x1 * 2**x2 (x2 integers), like numpy.ldexp.")
nextafter = _binary(
    "nextafter", np.nextafter, "nextafter([1.0], [2.0])", "[1.0000000000000002]",
    "Element-wise next float after x1 towards x2, like numpy.nextafter.",
    differentiable=False)
heaviside = _binary(
    "heaviside", np.heaviside, "heaviside([-1.0, 0.0, 2.0], 0.5)", "[0.0, 0.5, 1.0]",
    "Element-wise Heaviside step: 0 below 0, x2 at 0, 1 above, like numpy.heaviside.",
    differentiable=False)
gcd = _binary(
    "gcd", np.gcd, "gcd([12, 20], [8, 15])", "[4, 5]",
    "Element-wise greatest common divisor of integers, like numpy.gcd.", differentiable=False)
lcm = _binary(
    "lcm", np.lcm, "lcm([4, 6], [6, 4])", "[12, 12]",
    "Element-wise least common multiple of integers, like numpy.lcm.", differentiable=False)
