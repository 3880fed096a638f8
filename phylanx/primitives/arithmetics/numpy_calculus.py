"""Differences, integrals, interpolation and polynomials the original lacks (extensions):
``diff trapezoid interp polyval polyfit convolve``.

Each is the NumPy function of the same name with NumPy's argument names as keyword slots
(``diff``'s ``prepend``/``append`` nil mean "not given", NumPy's ``_NoValue``).  Where
NumPy returns a tuple (``polyfit`` with ``full`` or ``cov``) the result is a PhySL list.
NumPy's ValueError/TypeError (too few points, mismatched lengths) become Phylanx errors
naming the primitive; NumPy's RankWarning of ``polyfit`` is left as a warning.
"""
from __future__ import annotations

import numpy as np

from ...errors import PhylanxTypeError, PhylanxValueError
from ...values import scalarize, type_name
from ..array_args import numpy_call
from ..dtypes import to_axis, to_bool, to_int
from ..registry import primitive
from .elementwise_math import as_numeric, as_operand


def _real(value, what: str):
    """A real numeric argument (complex is refused: the PhySL value model has no complex
    input path for these)."""
    a = as_numeric(value, what)
    if a.dtype.kind == "c":
        raise PhylanxTypeError(f"{what} must be real, got a complex {type_name(value)}")
    return a


def _diff(a, n=1, axis=-1, prepend=None, append=None):
    extra = {}
    if prepend is not None:
        extra["prepend"] = prepend
    if append is not None:
        extra["append"] = append
    return np.diff(a, n, axis, **extra)


@primitive(
    "diff", "diff(_1_a, __arg(_2_n, 1), __arg(_3_axis, -1), __arg(_4_prepend, nil), "
    "__arg(_5_append, nil))", extension=True, oracle=_diff, differentiable=True,
    example="diff([1, 4, 9, 16])", result="[3, 5, 7]",
)
def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The n-th discrete difference along ``axis`` (the last by default), like numpy.diff.

    ``out[i] = a[i + 1] - a[i]``, applied ``n`` times; ``prepend``/``append`` values (or
    arrays) are joined to ``a`` along ``axis`` first.  Bool arrays give ``!=`` of
    neighbours, as in NumPy.
    """
    arr = _real(a, "a")
    if arr.ndim == 0:
        raise PhylanxValueError("diff needs an array of at least 1 dimension, got a 0-d value")
    count = to_int(n, "n")
    if count < 0:
        raise PhylanxValueError(f"order n must be non-negative, got {count}")
    ax = to_axis(axis, arr.ndim)
    pre = None if prepend is None else _real(prepend, "prepend")
    post = None if append is None else _real(append, "append")
    return numpy_call(_diff, arr, count, ax, pre, post)


def _trapezoid(y, x=None, dx=1.0, axis=-1):
    return np.trapezoid(y, x, dx, axis)


@primitive(
    "trapezoid", "trapezoid(_1_y, __arg(_2_x, nil), __arg(_3_dx, 1.0), __arg(_4_axis, -1))",
    extension=True, oracle=_trapezoid,
    example="trapezoid([1.0, 2.0, 3.0], nil, 0.5)", result="2.0",
)
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integral of ``y`` along ``axis`` by the trapezoidal rule, like numpy.trapezoid.

    The sample points are ``x`` (same length as ``y`` along ``axis``, or broadcastable)
    or evenly spaced ``dx`` apart.  A 0-d result is a NumPy scalar.
    """
    values = _real(y, "y")
    if values.ndim == 0:
        raise PhylanxValueError("y must be an array of at least 1 dimension, got a 0-d value")
    points = None if x is None else _real(x, "x")
    step = as_operand(dx, "dx")   # a Python number stays weak: float32 y stays float32
    return scalarize(np.asarray(numpy_call(_trapezoid, values, points, step,
                                           to_axis(axis, values.ndim))))


@primitive(
    "interp",
    "interp(_1_x, _2_xp, _3_fp, __arg(_4_left, nil), __arg(_5_right, nil), "
    "__arg(_6_period, nil))",
    extension=True, oracle=np.interp, differentiable=True,
    example="interp([0.5, 2.5, 9.0], [0.0, 1.0, 3.0], [0.0, 10.0, 30.0])",
    result="[5.0, 25.0, 30.0]",
)
def interp(x, xp, fp, left=None, right=None, period=None):
    """One-dimensional piecewise-linear interpolation, like numpy.interp.

    ``xp`` must be increasing (not checked, as in NumPy) unless ``period`` is given; values
    of ``x`` below/above the range take ``left``/``right`` (default: ``fp[0]``/``fp[-1]``).
    The result has the shape of ``x`` (float64, a scalar for a scalar ``x``).
    """
    points = _real(x, "x")
    known_x, known_f = _real(xp, "xp"), _real(fp, "fp")
    if known_x.ndim != 1 or known_f.ndim != 1:
        raise PhylanxValueError(f"xp and fp must be 1-d, got shapes {known_x.shape} and "
                                f"{known_f.shape}")
    edges = [None if v is None else as_operand(v, name) for v, name in
             ((left, "left"), (right, "right"), (period, "period"))]
    return scalarize(np.asarray(numpy_call(np.interp, points, known_x, known_f, *edges)))


@primitive(
    "polyval", "polyval(_1_p, _2_x)", extension=True, oracle=np.polyval,
    example="polyval([3, 0, 1], [1, 2])", result="[4, 13]",
)
def polyval(p, x):
    """The polynomial with coefficients ``p`` (highest power first) at ``x``, like numpy.polyval.

    Horner's scheme; integer coefficients and points stay integers, as in NumPy.
    """
    coefficients = _real(p, "p")
    if coefficients.ndim > 1:
        raise PhylanxValueError(f"p must be a 1-d array of coefficients, got shape "
                                f"{coefficients.shape}")
    return scalarize(np.asarray(numpy_call(np.polyval, coefficients, _real(x, "x"))))


_CONVOLVE_MODES = ("full", "same", "valid")


@primitive(
    "convolve", "convolve(_1_a, _2_v, __arg(_3_mode, \"full\"))", extension=True,
    differentiable=True,
    oracle=lambda a, v, mode="full": np.convolve(a, v, mode),
    example="convolve([1, 2, 3], [0, 1, 0.5])", result="[0.0, 1.0, 2.5, 4.0, 1.5]",
)
def convolve(a, v, mode="full"):
    """Discrete linear convolution of two 1-d sequences, like numpy.convolve.

    ``mode`` "full" (length N + M - 1), "same" (length max(N, M)) or "valid" (where the
    sequences overlap completely).  (Keras' ``conv1d`` is the cross-correlation of
    batches of channels; this is NumPy's signal-processing convolution.)
    """
    if mode not in _CONVOLVE_MODES:
        raise PhylanxValueError(f"mode must be one of {', '.join(_CONVOLVE_MODES)}, got "
                                f"{mode!r}")
    first, second = as_numeric(a, "a"), as_numeric(v, "v")   # complex too, as NumPy
    for arr, what in ((first, "a"), (second, "v")):
        if arr.ndim > 1:
            raise PhylanxValueError(f"{what} must be 1-d, got shape {arr.shape}")
        if arr.size == 0:
            raise PhylanxValueError(f"{what} cannot be empty")
    return numpy_call(np.convolve, first, second, mode)


def _polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    result = np.polyfit(x, y, deg, rcond, full, w, cov)
    return list(result) if isinstance(result, tuple) else result


@primitive(
    "polyfit",
    "polyfit(_1_x, _2_y, _3_deg, __arg(_4_rcond, nil), __arg(_5_full, false), "
    "__arg(_6_w, nil), __arg(_7_cov, false))",
    extension=True, oracle=_polyfit,
    example="polyfit([0.0, 1.0, 2.0], [1.0, 3.0, 5.0], 1)", result="[2.0, 1.0]",
)
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares polynomial fit of degree ``deg``, like numpy.polyfit.

    The coefficients come highest power first; ``y`` may be 2-d (one fit per column).
    ``full`` gives ``list(p, residuals, rank, singular_values, rcond)``, ``cov`` true
    ``list(p, covariance)`` (``cov`` "unscaled" is NumPy's unscaled covariance).
    """
    xs, ys = _real(x, "x"), _real(y, "y")
    degree = to_int(deg, "deg")
    weights = None if w is None else _real(w, "w")
    scale = cov if isinstance(cov, str) else to_bool(cov)
    result = numpy_call(_polyfit, xs, ys, degree, rcond, to_bool(full), weights, scale)
    if isinstance(result, list):
        return [scalarize(np.asarray(r)) if np.ndim(r) == 0 else r for r in result]
    return result
