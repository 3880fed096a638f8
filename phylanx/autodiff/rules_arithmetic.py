"""VJP rules of element-wise arithmetic: operators, math functions, min/max, where, clip.

Each rule returns cotangents of the broadcast (output) shape; the engine sums them back to
each operand's shape.  At kinks (``maximum`` of equal values, ``abs`` at 0) the rules
take the mean of the one-sided derivatives, as JAX does.
"""
from __future__ import annotations

import math
from functools import reduce

import numpy as np

from .rule_helpers import arr, arr_with, is_wanted, masked, selective, unary
from .table import VJP
from .tape import PhylanxGradientError

# Python floats, not NumPy float64 scalars: NumPy promotes a float32 array multiplied by
# a float64 scalar to float64, by a Python float not (NEP 50)
_LN2, _LN10 = math.log(2.0), math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _split_list(ct: list, parts: tuple) -> tuple:
    """``+`` of lists (tuples) concatenates: each operand gets its slice of the cotangent."""
    out, start = [], 0
    for p in parts:
        seq = isinstance(p, (list, tuple))
        n = len(p) if seq else 0
        out.append(list(ct[start:start + n]) if seq else None)
        start += n
    return tuple(out)


@VJP.register("__add")
def add_vjp(ct, out, *operands):
    if isinstance(out, (list, tuple)):
        return _split_list(ct, operands)
    return (ct,) * len(operands)


@VJP.register("__sub")
def sub_vjp(ct, out, first, *rest):
    return (ct,) + (-np.asarray(ct),) * len(rest)


@VJP.register("__pos")
def pos_vjp(ct, out, a):
    return (ct,)


@VJP.register("__minus")
def minus_vjp(ct, out, a):
    return (-np.asarray(ct),)


def _repeated_list_vjp(ct: list, operands: tuple) -> tuple:
    """``list * n`` (or ``n * list``): each item's cotangent sums those of its n copies."""
    grads = []
    for operand in operands:
        if not isinstance(operand, (list, tuple)) or not operand:
            grads.append(None)
            continue
        n = len(operand)
        summed = [None] * n
        for k, c in enumerate(ct):
            if c is not None:
                summed[k % n] = c if summed[k % n] is None else summed[k % n] + c
        grads.append(summed)
    return tuple(grads)


@VJP.register("__mul")
@selective
def mul_vjp(ct, out, *operands, wanted=None):
    if isinstance(out, (list, tuple)):        # list * n repeats: every copy contributes
        return tuple(g if is_wanted(wanted, i) else None
                     for i, g in enumerate(_repeated_list_vjp(ct, operands)))
    values = [arr_with(v, ct) for v in operands]
    grads = []
    for i in range(len(values)):
        if not is_wanted(wanted, i):
            grads.append(None)
            continue
        others = [v for j, v in enumerate(values) if j != i]
        if len(others) == 1 and _unit_broadcast(ct, others[0], out):
            grads.append(_read_only(others[0]))
            continue
        grads.append(ct * reduce(np.multiply, others) if others else ct)
    return tuple(grads)


def _unit_broadcast(ct, other: np.ndarray, out) -> bool:
    """True if ``ct * other`` would be ``other`` itself: ``ct`` a broadcast 1 (what
    ``sum``'s rule passes down) of ``other``'s shape and dtype.  Then the product, a pass
    over the whole array (``sum(conv1d(x, w) * g)``: 8 MB), is skipped."""
    return (type(ct) is np.ndarray and ct.size > 0 and not any(ct.strides)
            and ct.shape == other.shape == np.shape(out)
            and np.result_type(ct, other) == other.dtype and ct.flat[0] == 1)


def _read_only(a: np.ndarray) -> np.ndarray:
    # the operand itself as a cotangent: rules never write into cotangents, and
    # ``api._gradient`` copies a read-only one before handing it to the user
    view = a.view()
    view.flags.writeable = False
    return view


@VJP.register("__div")
def div_vjp(ct, out, first, *rest):
    divisors = [arr_with(v, ct) for v in rest]
    denominator = reduce(np.multiply, divisors)
    ct = np.asarray(ct)
    out = np.asarray(out)
    return (ct / denominator,) + tuple(-ct * out / d for d in divisors)


@VJP.register("__mod")
def mod_vjp(ct, out, a, b):
    # a % b = a - floor(a / b) * b: slope 1 in a, -floor(a / b) in b (between the jumps)
    return ct, -np.asarray(ct) * np.floor(arr(a) / arr(b))


@VJP.register("power")
def power_vjp(ct, out, base, exponent):
    b, e = arr(base), arr(exponent)
    ct = np.asarray(ct)
    with np.errstate(divide="ignore", invalid="ignore"):
        d_base = ct * e * np.power(b, e - 1)
        d_base = np.where(e == 0, 0.0, d_base)          # x**0 is constant, even at 0
        log_b = np.log(np.where(b > 0, b, 1.0))           # d/de is defined for b > 0 only
        d_exp = ct * np.asarray(out) * log_b
    return d_base, d_exp


@selective
def _extremum_vjp(ct, out, *operands, wanted=None):
    """``maximum``/``minimum`` of n operands: the cotangent goes to the operands equal to
    the result, shared equally between ties (as JAX).  Computed in the
    cotangent's dtype from boolean masks, and only for the operands that need it (relu's
    ``maximum(x, 0.0)``: not for the constant)."""
    result = np.asarray(out)
    # each operand compared in the dtype the forward computed in (a Python number is
    # weak: float32 for a float32 result): arr's float64 0.1 never equals a float32
    # result's 0.1, so a tie with the constant went undetected, and comparing a float32
    # array in float64 cost a cast per element
    values = [arr_with(v, result) for v in operands]
    ct = np.asarray(ct)
    if len(values) == 2 and not np.equal(values[0], values[1]).any():
        # two operands tie exactly where they are equal (both then equal the result; a
        # NaN equals nothing): with no tie each element has one hit and the cotangent
        # goes whole, so only the wanted operands' hits are made (relu's maximum(x, 0.0):
        # one comparison of x with the constant and x's hits, where counting ties made
        # both operands' hits and an int8 sum and maximum of them, three more passes)
        return tuple(masked(v == result, ct) if is_wanted(wanted, i) else None
                     for i, v in enumerate(values))
    hits = [v == result for v in values]
    ties = hits[0].astype(np.int8)
    for hit in hits[1:]:
        ties += hit
    with np.errstate(divide="ignore", invalid="ignore"):
        shared = ct / ties if ties.max(initial=0) > 1 else ct
        return tuple(masked(hit, shared) if is_wanted(wanted, i) else None
                     for i, hit in enumerate(hits))


VJP.register("maximum", "minimum")(_extremum_vjp)


def nan_ignoring_choice(name: str, out, a, b) -> np.ndarray:
    """Where ``fmax``/``fmin`` took ``a``: ``a`` beyond ``b`` or ``b`` NaN, as JAX's
    ``where(a > b | isnan(b), a, b)``: a tie goes to ``b`` whole (JAX's, not
    ``maximum``'s sharing).  Compared in the dtype the forward computed in (as
    :func:`_extremum_vjp`: a Python number is weak)."""
    result = np.asarray(out)
    a, b = arr_with(a, result), arr_with(b, result)
    beyond = a > b if name == "fmax" else a < b
    return beyond | np.isnan(b)


def _nan_ignoring_vjp(name: str):
    @selective
    def rule(ct, out, a, b, wanted=None):
        chosen = np.broadcast_to(nan_ignoring_choice(name, out, a, b), np.shape(out))
        ct = np.asarray(ct)
        return (masked(chosen, ct) if is_wanted(wanted, 0) else None,
                masked(~chosen, ct) if is_wanted(wanted, 1) else None)
    rule.__name__ = f"{name}_vjp"
    return rule


for _name in ("fmax", "fmin"):
    VJP.register(_name)(_nan_ignoring_vjp(_name))


@VJP.register("hypot")
def hypot_vjp(ct, out, a, b):
    r = np.asarray(out)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(r == 0, 0.0, ct * arr(a) / r), np.where(r == 0, 0.0, ct * arr(b) / r)


@VJP.register("arctan2")
def arctan2_vjp(ct, out, y, x):
    y, x = arr(y), arr(x)
    r2 = x * x + y * y
    return ct * x / r2, -np.asarray(ct) * y / r2


@VJP.register("fmod")
def fmod_vjp(ct, out, a, b):
    return ct, -np.asarray(ct) * np.trunc(arr(a) / arr(b))


@VJP.register("copysign")
def copysign_vjp(ct, out, a, b):
    return ct * np.copysign(1.0, arr(a)) * np.copysign(1.0, arr(b)), None


@VJP.register("ldexp")
def ldexp_vjp(ct, out, a, b):
    """``a * 2**b`` with integer ``b`` (NumPy refuses a float one): ``ct * 2**b``, by
    ``ldexp`` itself (exact); ``b`` has no gradient (an integer)."""
    ct = np.asarray(ct)
    return np.ldexp(ct, np.asarray(b)).astype(ct.dtype, copy=False), None


@VJP.register("nan_to_num")
def nan_to_num_vjp(ct, out, x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``x`` where finite; the replaced places' cotangents go to the replacement values
    (summed), a default replacement (nil: the dtype's extremes) being a constant."""
    ct, value = np.asarray(ct), np.broadcast_to(arr(x), np.shape(ct))

    def replaced(where, by):
        return None if by is None else np.sum(ct, where=where)
    return (np.where(np.isfinite(value), ct, ct.dtype.type(0)), None,
            replaced(np.isnan(value), nan), replaced(np.isposinf(value), posinf),
            replaced(np.isneginf(value), neginf))


@VJP.register("logaddexp")
def logaddexp_vjp(ct, out, a, b):
    r = np.asarray(out)
    return ct * np.exp(arr(a) - r), ct * np.exp(arr(b) - r)


@VJP.register("logaddexp2")
def logaddexp2_vjp(ct, out, a, b):
    r = np.asarray(out)
    return ct * np.exp2(arr(a) - r), ct * np.exp2(arr(b) - r)


@VJP.register("float_power")
def float_power_vjp(ct, out, a, b):
    a, b = arr(a), arr(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return ct * b * np.float_power(a, b - 1), ct * np.asarray(out) * np.log(a)


@VJP.register("where")
def where_vjp(ct, out, condition, x=None, y=None):
    chosen = np.asarray(condition).astype(bool)
    ct = np.asarray(ct)
    return None, masked(chosen, ct), masked(~chosen, ct)


VJP.defrule("__npwhere", where_vjp)      # np.where (NumPy's spelling of where)


def clip_factors(a, a_min, a_max) -> tuple:
    """The derivatives of ``clip(a, a_min, a_max)`` = ``minimum(maximum(a, a_min),
    a_max)`` (NumPy's, ``a_max`` winning when ``a_min > a_max``) by ``a``, ``a_min`` and
    ``a_max`` (None for an absent bound): 1 or 0, and at a tie the mean of the one-sided
    derivatives, 0.5 to each side (as ``maximum``/``minimum``, and JAX); a NaN ``a``
    routes to ``a``.  Float64 arrays of the broadcast shape."""
    x = arr(a)
    if a_min is None:
        m, d_x, d_lo = x, np.ones(x.shape), None
    else:
        lo = arr(a_min)
        m = np.maximum(x, lo)
        tie = 0.5 * (x == lo)
        d_x = (x > lo) + tie + np.isnan(x)
        d_lo = (lo > x) + tie
    if a_max is None:
        d_m, d_hi = np.ones(np.shape(m)), None
    else:
        hi = arr(a_max)
        tie = 0.5 * (m == hi)
        d_m = (m < hi) + tie + np.isnan(m)
        d_hi = (hi < m) + tie
    shape = np.broadcast_shapes(np.shape(d_x), np.shape(d_m))
    return (np.broadcast_to(d_x * d_m, shape),
            None if d_lo is None else np.broadcast_to(d_lo * d_m, shape),
            None if d_hi is None else np.broadcast_to(d_hi, shape))


@VJP.register("clip")
def clip_vjp(ct, out, a, a_min=None, a_max=None):
    ct = np.asarray(ct)

    def route(factor):
        if factor is None:
            return None
        if np.all((factor == 0) | (factor == 1)):          # no tie: a mask
            return masked(factor != 0, ct)
        return ct * factor.astype(ct.dtype)
    return tuple(route(f) for f in clip_factors(a, a_min, a_max))


def abs_slope(x, out=None):
    """d|x|/dx of a real ``x``: the sign, +1 at 0 (and -0.0) as JAX's ``abs``
    (``select(x >= 0, 1, -1)``; until ad46 0, the mean of the one-sided slopes).  The
    norms built on |x| take it too (:mod:`.rules_norms`); docs/autodiff.md, "Kinks"."""
    x = np.asarray(x)
    dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    return np.where(x >= 0, dtype.type(1), dtype.type(-1))


def _d_abs(x, out):
    """|x|'s rule: :func:`abs_slope` for real ``x``; for a complex one (an intermediate:
    ``abs(x * c)``) JAX's cotangent ``ct conj(x) / |x|`` (0 at 0)."""
    if np.iscomplexobj(x):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(out == 0, 0.0, np.conj(x) / np.where(out == 0, 1.0, out))
    return abs_slope(x)


def _d_sqrt(x, out):
    with np.errstate(divide="ignore"):
        return 0.5 / out                 # inf at 0, as JAX (no warning: a kink, not a fault)


def _d_invsqrt(x, out):
    return -0.5 * out ** 3


def _d_cbrt(x, out):
    return 1.0 / (3.0 * out * out)


def _d_invcbrt(x, out):
    return -(out ** 4) / 3.0


def _d_erf(x, out):
    return _TWO_OVER_SQRT_PI * np.exp(-x * x)


_UNARY = {
    "absolute": _d_abs,
    "sqrt": _d_sqrt,
    "invsqrt": _d_invsqrt,
    "cbrt": _d_cbrt,
    "invcbrt": _d_invcbrt,
    "exp": lambda x, out: out,
    "expm1": lambda x, out: out + 1.0,
    "log1p": lambda x, out: 1.0 / (1.0 + x),
    "exp2": lambda x, out: out * _LN2,
    "exp10": lambda x, out: out * _LN10,
    "log": lambda x, out: 1.0 / x,
    "log2": lambda x, out: 1.0 / (x * _LN2),
    "log10": lambda x, out: 1.0 / (x * _LN10),
    "sin": lambda x, out: np.cos(x),
    "cos": lambda x, out: -np.sin(x),
    "tan": lambda x, out: 1.0 + out * out,
    "sinh": lambda x, out: np.cosh(x),
    "cosh": lambda x, out: np.sinh(x),
    "tanh": lambda x, out: 1.0 - out * out,
    "arcsin": lambda x, out: 1.0 / np.sqrt(1.0 - x * x),
    "arccos": lambda x, out: -1.0 / np.sqrt(1.0 - x * x),
    "arctan": lambda x, out: 1.0 / (1.0 + x * x),
    "arcsinh": lambda x, out: 1.0 / np.sqrt(x * x + 1.0),
    "arccosh": lambda x, out: 1.0 / np.sqrt(x * x - 1.0),
    "arctanh": lambda x, out: 1.0 / (1.0 - x * x),
    "erf": _d_erf,
    "erfc": lambda x, out: -_d_erf(x, out),
    "square": lambda x, out: 2.0 * x,
    "reciprocal": lambda x, out: -out * out,
    "fabs": _d_abs,
    "positive": lambda x, out: np.ones_like(x),
    "deg2rad": lambda x, out: np.full_like(x, np.pi / 180),
    "rad2deg": lambda x, out: np.full_like(x, 180 / np.pi),
    "real": lambda x, out: np.ones_like(x),
    "__real": lambda x, out: np.ones_like(x),
}
for _name, _derivative in _UNARY.items():
    VJP.defrule(_name, unary(_derivative))
VJP.defrule("__pyabs", unary(_d_abs))     # Python's abs(x)

#: ``math.<name>`` of one number whose derivative is NumPy's function's of that name
_MATH_UNARY = {"sqrt": "sqrt", "exp": "exp", "expm1": "expm1", "log": "log", "log1p": "log1p",
               "log2": "log2", "log10": "log10", "sin": "sin", "cos": "cos", "tan": "tan",
               "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "asin": "arcsin",
               "acos": "arccos", "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh",
               "atanh": "arctanh", "erf": "erf", "erfc": "erfc", "fabs": "absolute"}


@VJP.register("__pymath")
def _pymath_vjp(ct, out, function, keywords, *values):
    """Python's ``math.<function>(x)``: the derivative of NumPy's function of that name
    (``math.log(x, base)`` and the functions of two numbers have no rule: a located
    error, never a zero gradient)."""
    name = _MATH_UNARY.get(function)
    if name is None or len(values) != 1 or list(keywords or ()):
        raise PhylanxGradientError(
            f"cannot differentiate through math.{function} with {len(values)} argument(s): "
            f"no rule (NumPy's np.{function} may have one)")
    x = arr(values[0])
    return (None, None, np.asarray(ct) * _UNARY[name](x, np.asarray(out, dtype=x.dtype)))


@VJP.register("__pyconvert")
def _pyconvert_vjp(ct, out, x, kind):
    """``float(x)`` passes the cotangent on (a number is the value it converts);
    ``int``/``bool`` are piecewise constant (and their results carry none)."""
    return (ct if kind == "float" else None, None)


def _conj_vjp(ct, out, x, dtype=None):
    """conj's transpose conjugates the cotangent (JAX's convention for a complex ``x``;
    the identity for a real one: until ad46 always the identity, :mod:`.rules_complex`)."""
    return (np.conj(ct) if np.iscomplexobj(ct) else ct,)


def _imag_vjp(ct, out, x, dtype=None):
    """imag(z) = Re(-1j z): ``-1j ct`` for a complex ``z``; a real one's imaginary part is
    the constant 0."""
    return (-1j * np.asarray(ct),) if np.iscomplexobj(x) else (None,)


for _name in ("conj", "__pyconj"):
    VJP.defrule(_name, _conj_vjp)
for _name in ("imag", "__imag"):
    VJP.defrule(_name, _imag_vjp)
