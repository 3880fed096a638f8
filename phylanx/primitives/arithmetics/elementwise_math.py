"""Element-wise math of the arithmetics category (§3.3.3): ``sqrt exp log sin ... erf sign``.

Every function here has the pattern ``name(_1, __arg(_2_dtype, nil))``.  Result types are
NumPy's for every input dtype (int64 -> float64, int16 -> float32, int8 and bool -> float16,
float32 stays float32, ``floor`` of an int stays int).

``dtype`` given: a float or complex dtype is computed in (the input is cast first, as with
NumPy's ``dtype=``); any other dtype (``"int"``, ``"bool"``) casts the result.

The operand helpers (:func:`as_numeric`, :func:`as_operand`, :func:`finish` ...) live in
``primitives/numeric_args.py``, shared with the booleans, matrixops and statistics modules.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...errors import PhylanxTypeError
from ..lazy_modules import lazy_attribute
from ..numeric_args import (  # noqa: F401 - some are re-exported for code written against the old place
    apply_elementwise,
    as_numeric,
    as_operand,
    finish,
    float_of,
)
from ..registry import primitive


def _declare(name: str, fn: Callable, doc: str, example: str, result: str, *,
             oracle: Callable, ufunc: np.ufunc | None = None, samples: Any = "unary",
             differentiable: bool = True, prepare: Callable | None = None,
             zero_gradient: str | None = None) -> Callable:
    """Declare ``name(x, dtype=nil)`` computing ``fn`` element-wise."""
    if ufunc is None and isinstance(fn, np.ufunc):
        ufunc = fn

    def impl(x, dtype=None):
        if prepare is not None:
            x = prepare(as_numeric(x))
        return apply_elementwise(fn, x, dtype, ufunc)

    impl.__name__ = name
    impl.__doc__ = doc
    primitive(
        name, f"{name}(_1, __arg(_2_dtype, nil))",
        oracle=oracle, samples=samples, example=example, result=result,
        elementwise=True, distributable=True,
        differentiable=differentiable and zero_gradient is None, zero_gradient=zero_gradient,
    )(impl)
    return impl


def _no_bool(a: Any) -> Any:
    if a.dtype == np.bool_:
        raise PhylanxTypeError("the argument must be an int or float array, not bool "
                               "(as in NumPy)")
    return a


# SciPy loads on the first call, not at import time
_ERF = lazy_attribute("scipy.special", "erf")
_ERFC = lazy_attribute("scipy.special", "erfc")


def _recip(fn: Callable) -> Callable:
    def recip(a):
        return np.reciprocal(fn(a))   # fn's float type for the input's dtype, as 1 / fn(x)
    return recip


def _real(a):
    return np.array(np.real(a), copy=True) if np.ndim(a) else np.real(a)


#: the reason rounding functions have zero gradients (registry ``zero_gradient``)
_STEPS = "piecewise constant (integer steps)"

absolute = _declare("absolute", np.absolute,
                    "Element-wise absolute value |x| (magnitude for complex).",
                    "absolute([-1.5, 2])", "[1.5, 2.0]", oracle=np.absolute)
floor = _declare("floor", np.floor, "Element-wise floor (ints stay ints, as NumPy 2).",
                 "floor([-1.5, 2.7])", "[-2.0, 2.0]", oracle=np.floor,
                 zero_gradient=_STEPS)
ceil = _declare("ceil", np.ceil, "Element-wise ceiling (ints stay ints, as NumPy 2).",
                "ceil([-1.5, 2.2])", "[-1.0, 3.0]", oracle=np.ceil,
                 zero_gradient=_STEPS)
trunc = _declare("trunc", np.trunc, "Element-wise truncation toward zero.",
                 "trunc([-1.5, 2.7])", "[-1.0, 2.0]", oracle=np.trunc,
                 zero_gradient=_STEPS)
rint = _declare("rint", np.rint, "Element-wise rounding to the nearest integer (half to even).",
                "rint([0.5, 1.5, -2.6])", "[0.0, 2.0, -3.0]", oracle=np.rint,
                zero_gradient=_STEPS)
conj = _declare("conj", np.conjugate,
                "Element-wise complex conjugate (the identity for real inputs).",
                "conj([1.5, -2.0])", "[1.5, -2.0]", oracle=np.conjugate)
real = _declare("real", _real, "Element-wise real part (a copy of the input for real inputs).",
                "real([1.5, -2.0])", "[1.5, -2.0]", oracle=np.real)
imag = _declare("imag", np.imag,
                "Element-wise imaginary part (zeros of the input's type for real inputs).",
                "imag([1.5, -2.0])", "[0.0, 0.0]", oracle=np.imag)


@primitive("__real", "__real(_1)", extension=True, internal=True, oracle=np.real, samples="unary",
           differentiable=True, example="__real([1.5, -2.0])", result="[1.5, -2.0]")
def npreal(x):
    """Python's ``x.real`` and ``np.real(x)``: NumPy's, a view of ``x``.

    Writes through it change ``x``; PhySL's ``real`` copies, as the original.
    """
    return x.real if type(x) in (int, float, complex, bool) else as_numeric(x).real


@primitive("__imag", "__imag(_1)", extension=True, internal=True, oracle=np.imag, samples="unary",
           differentiable=True, example="__imag([1.5, -2.0])", result="[0.0, 0.0]")
def npimag(x):
    """Python's ``x.imag`` and ``np.imag(x)``: NumPy's.

    A view of a complex ``x``; read-only zeros for a real one.
    """
    return x.imag if type(x) in (int, float, complex, bool) else as_numeric(x).imag


sqrt = _declare("sqrt", np.sqrt, "Element-wise square root (NaN, with a warning, below 0).",
                "sqrt([4.0, 9.0])", "[2.0, 3.0]", oracle=np.sqrt, samples=None)
invsqrt = _declare("invsqrt", _recip(np.sqrt), "Element-wise reciprocal square root 1/sqrt(x).",
                   "invsqrt([4.0, 0.25])", "[0.5, 2.0]", oracle=lambda x: 1 / np.sqrt(x),
                   ufunc=np.sqrt, samples=None)
cbrt = _declare("cbrt", np.cbrt, "Element-wise cube root (defined for negative x).",
                "cbrt([8.0, -27.0])", "[2.0, -3.0]", oracle=np.cbrt)
invcbrt = _declare("invcbrt", _recip(np.cbrt), "Element-wise reciprocal cube root 1/cbrt(x).",
                   "invcbrt([8.0, -0.125])", "[0.5, -2.0]", oracle=lambda x: 1 / np.cbrt(x),
                   ufunc=np.cbrt, samples=None)
exp = _declare("exp", np.exp, "Element-wise natural exponential e**x.",
               "exp([0.0, 1.0])", "[1.0, 2.718281828459045]", oracle=np.exp)
exp2 = _declare("exp2", np.exp2, "Element-wise 2**x.", "exp2([3, -1])", "[8.0, 0.5]",
                oracle=np.exp2)
_EXP10 = lazy_attribute("scipy.special", "exp10")
exp10 = _declare("exp10", _EXP10, "Element-wise 10**x (float result, scipy.special.exp10).",
                 "exp10([2, -1])", "[100.0, 0.1]", oracle=_EXP10, ufunc=_EXP10)
log = _declare("log", np.log, "Element-wise natural logarithm (-inf at 0, NaN below).",
               "log([1.0, 7.38905609893065])", "[0.0, 2.0]", oracle=np.log,
               samples=None)
log2 = _declare("log2", np.log2, "Element-wise base-2 logarithm.", "log2([8, 1])",
                "[3.0, 0.0]", oracle=np.log2, samples=None)
log10 = _declare("log10", np.log10, "Element-wise base-10 logarithm.", "log10([1000, 1])",
                 "[3.0, 0.0]", oracle=np.log10, samples=None)
sin = _declare("sin", np.sin, "Element-wise sine (radians).", "sin([0.0, 1.5707963267948966])",
               "[0.0, 1.0]", oracle=np.sin)
cos = _declare("cos", np.cos, "Element-wise cosine (radians).", "cos([0.0, 3.141592653589793])",
               "[1.0, -1.0]", oracle=np.cos)
tan = _declare("tan", np.tan, "Element-wise tangent (radians).",
               "tan([0.0, 0.7853981633974483])", "[0.0, 1.0]", oracle=np.tan)
sinh = _declare("sinh", np.sinh, "Element-wise hyperbolic sine.", "sinh([0.0, 1.0])",
                "[0.0, 1.1752011936438014]", oracle=np.sinh)
cosh = _declare("cosh", np.cosh, "Element-wise hyperbolic cosine.", "cosh([0.0, 1.0])",
                "[1.0, 1.5430806348152437]", oracle=np.cosh)
tanh = _declare("tanh", np.tanh, "Element-wise hyperbolic tangent.", "tanh([0.0, 1.0])",
                "[0.0, 0.7615941559557649]", oracle=np.tanh)
arcsin = _declare("arcsin", np.arcsin, "Element-wise inverse sine (NaN outside [-1, 1]).",
                  "arcsin([0.0, 1.0])", "[0.0, 1.5707963267948966]", oracle=np.arcsin,
                  samples=None)
arccos = _declare("arccos", np.arccos, "Element-wise inverse cosine (NaN outside [-1, 1]).",
                  "arccos([1.0, 0.0])", "[0.0, 1.5707963267948966]", oracle=np.arccos,
                  samples=None)
arctan = _declare("arctan", np.arctan, "Element-wise inverse tangent.", "arctan([0.0, 1.0])",
                  "[0.0, 0.7853981633974483]", oracle=np.arctan)
arcsinh = _declare("arcsinh", np.arcsinh, "Element-wise inverse hyperbolic sine.",
                   "arcsinh([0.0, 1.0])", "[0.0, 0.881373587019543]", oracle=np.arcsinh)
arccosh = _declare("arccosh", np.arccosh, "Element-wise inverse hyperbolic cosine (x >= 1).",
                   "arccosh([1.0, 2.0])", "[0.0, 1.3169578969248166]", oracle=np.arccosh,
                   samples=None)
arctanh = _declare("arctanh", np.arctanh,
                   "Element-wise inverse hyperbolic tangent (-1 < x < 1; +-inf at +-1).",
                   "arctanh([0.0, 0.5])", "[0.0, 0.5493061443340549]", oracle=np.arctanh,
                   samples=None)
erf = _declare("erf", _ERF, "Element-wise error function (scipy.special.erf).",
               "erf([0.0, 1.0])", "[0.0, 0.8427007929497149]", oracle=_ERF, ufunc=_ERF)
erfc = _declare("erfc", _ERFC,
                "Element-wise complementary error function 1 - erf(x) (scipy.special.erfc).",
                "erfc([0.0, 1.0])", "[1.0, 0.15729920705028513]", oracle=_ERFC, ufunc=_ERFC)
square = _declare("square", np.square, "Element-wise square x*x (ints stay ints).",
                  "square([-3, 2])", "[9, 4]", oracle=np.square)
sign = _declare("sign", np.sign, "Element-wise sign: -1, 0 or 1 (NaN for NaN); not for bool.",
                "sign([-2.5, 0.0, 3.0])", "[-1.0, 0.0, 1.0]", oracle=np.sign,
                prepare=_no_bool, zero_gradient="piecewise constant (-1, 0, 1)")
