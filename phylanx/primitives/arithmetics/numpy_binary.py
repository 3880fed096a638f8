"""Binary element-wise NumPy math the original lacks (extensions): ``arctan2 hypot fmax fmin``.

Each is the NumPy ufunc of the same name with broadcasting and NumPy's result types, with the
one widening of ``elementwise_math``: bool operands of ``arctan2``/``hypot`` are computed as
int64 (NumPy would answer in float16, a type the PhySL value model does not have).
``fmax``/``fmin`` ignore NaN where the other operand is a number (``maximum`` propagates it).
"""
from __future__ import annotations

import numpy as np

from ...values import scalarize
from ..array_args import numpy_call
from ..numeric_args import as_operand
from ..registry import primitive


def widen_pair(ufunc: np.ufunc, a, b):
    """Both operands as int64 when both are bool and ``ufunc`` has no bool loop (float16)."""
    kinds = {getattr(x, "dtype", np.dtype(type(x))).kind for x in (a, b)}
    if kinds == {"b"} and "??->?" not in ufunc.types:
        return np.asarray(a, np.int64), np.asarray(b, np.int64)
    return a, b


def _binary(name: str, ufunc: np.ufunc, example: str, result: str, doc: str):
    def impl(x1, x2):
        a, b = as_operand(x1, "x1"), as_operand(x2, "x2")
        return scalarize(numpy_call(ufunc, *widen_pair(ufunc, a, b)))

    def widened_oracle(x1, x2):
        return ufunc(*widen_pair(ufunc, x1, x2))

    impl.__name__ = name
    impl.__doc__ = doc
    primitive(
        name, f"{name}(_1_x1, _2_x2)", extension=True,
        oracle=ufunc if "??->?" in ufunc.types else widened_oracle, samples="binary",
        elementwise=True, differentiable=True, example=example, result=result,
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
