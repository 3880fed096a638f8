"""Python's scalar built-ins: ``int()``/``float()``/``bool()``, ``abs``, ``not``, and
NumPy's scalar results of operator functions.

A decorated function must give the value *and the kind* its Python original gives:
``int(x)`` is a Python ``int`` (unbounded), ``abs(-3)`` is ``3`` not ``np.int64(3)``,
``not x`` a Python ``bool``, ``math.floor(2.5)`` the int ``2``.  These primitives call
Python's own built-ins.  The other way round, ``np.add(1, 2)`` is ``np.int64(3)`` in
NumPy while the operator primitive it maps to keeps Python numbers Python:
``__asnumpy`` gives such results NumPy's kind.
"""
from __future__ import annotations

import operator

import numpy as np

from ...errors import PhylanxTypeError, PhylanxValueError
from ...runtime.nodes import registered_kind
from ...values import truth, type_name
from ..registry import primitive

_CONVERSIONS = {"int": int, "float": float, "bool": bool, "complex": complex}


@primitive("__pyconvert", "__pyconvert(_1, _2_kind)", extension=True, internal=True,
           differentiable=True,
           oracle=lambda x, kind: _CONVERSIONS[kind](x),
           example="__pyconvert(2.7, \"int\")", result="2")
def pyconvert(x, kind):
    """Python's ``int(x)``, ``float(x)``, ``bool(x)`` or ``complex(x)`` (``kind`` names it).

    The result is a Python number, as in Python; which arrays convert is NumPy's rule
    (NumPy 2 converts only 0-d arrays to ``int``/``float``/``complex``: ``int(np.array([3]))``
    is a TypeError), ``bool`` of a list, dict or string is its truth.
    """
    convert = _CONVERSIONS.get(kind)
    if convert is None:
        raise PhylanxValueError(f"unknown conversion '{kind}' (int, float, bool, complex)")
    if kind == "bool":
        return bool(truth(x))
    if isinstance(x, (list, tuple, dict, range)) or x is None:
        raise PhylanxTypeError(f"{kind}() argument must be a string or a number, not a "
                               f"{type_name(x)}")
    try:
        # the array's own conversion: NumPy decides which shapes convert
        return convert(x)
    except TypeError as e:
        raise PhylanxTypeError(f"{kind}() of a {type_name(x)}: {e}") from None
    except ValueError as e:
        raise PhylanxValueError(str(e)) from None


@primitive("__pyabs", "__pyabs(_1)", extension=True, internal=True, oracle=abs,
           differentiable=True, example="__pyabs(-3)", result="3")
def pyabs(x):
    """Python's ``abs(x)``: a Python number stays one, arrays element-wise.

    As ``abs`` of an array in Python: NumPy's absolute value, element-wise."""
    try:
        return operator.abs(x)
    except TypeError:
        raise PhylanxTypeError(f"bad operand type for abs(): a {type_name(x)}") from None


@primitive("__pynot", "__pynot(_1)", extension=True, internal=True, oracle=operator.not_,
           example="__pynot(list())", result="true")
def pynot(x):
    """Python's ``not x``: always a Python bool; an array must have one element (as NumPy)."""
    return not truth(x)


def _numpy_kind(v):
    t = type(v)
    if t is int or t is float or t is bool:
        return np.asarray(v)[()]
    if t is tuple:
        return tuple(_numpy_kind(x) for x in v)
    return v


# (takes_tiled: a tiled value passes through as it is; it took the gather fallback, the
# whole array gathered on every rank for each np.divide / np.power of a tiled operand)
@primitive("__asnumpy", "__asnumpy(_1)", takes_tiled=True, extension=True, internal=True,
           oracle=lambda x: np.asarray(x)[()],
           example="__asnumpy(3)", result="3")
def asnumpy(x):
    """A Python number as the NumPy scalar NumPy would give (``np.add(1, 2)``: ``np.int64(3)``).

    Tuples (``np.divmod``) element-wise; everything else unchanged."""
    return _numpy_kind(x)


def _python_number(v) -> bool:
    return type(v) is int or type(v) is float or type(v) is bool or type(v) is complex


def _numpy_operand(a, b) -> bool:
    """``a`` is a Python number whose NumPy type differs in result from Python's operator:
    next to another Python number, or to a bool array (``np.power(b, 2)``)."""
    return _python_number(a) and (_python_number(b) or (
        isinstance(b, np.ndarray) and b.dtype == np.bool_) or (
        _is_tiled(b) and b.dtype == np.bool_))


def _is_tiled(value) -> bool:
    """A distributed array (its dtype is its tiles': agreed by every rank): the operand
    kind the distributed layer registers with the runtime (primitives sit below it)."""
    return type(value) is registered_kind()


@primitive("__npoperand", "__npoperand(_1, _2)", takes_tiled=True, extension=True,
           internal=True,
           oracle=lambda a, b: np.asarray(a)[()] if _numpy_operand(a, b) else a,
           example="__npoperand(1, 0) / 0", result="inf")
def npoperand(a, b):
    """``a`` as NumPy's scalar next to a Python number or a bool array ``b``, else ``a``.

    ``np.divide(1, 0)`` is NumPy's ``inf`` (with a warning) where ``1 / 0`` is Python's
    ``ZeroDivisionError``, and ``np.power(bool_array, 2)`` is int64 where ``**`` squares
    (int8): the NumPy functions of the operators compute such operands in NumPy's types.
    Next to any other array or a NumPy scalar nothing changes (a Python number stays weak,
    so ``np.divide(x32, 2)`` stays float32)."""
    return np.asarray(a)[()] if _numpy_operand(a, b) else a


@primitive("__asndarray", "__asndarray(_1, __arg(_2_like, nil))", extension=True, internal=True,
           oracle=lambda x, like=None: np.asarray(x), samples="unary", differentiable=True,
           example="__asndarray(3)", result="__array(3)")
def asndarray(x, like=None):
    """The result of a NumPy function or array method that gives an array, as one.

    ``np.cov``, ``np.zeros(())``, ``x.squeeze()`` ... compile to primitives that follow
    the original, whose 0-d values are scalars; NumPy gives a 0-d array there.  A scalar
    becomes that 0-d array, unless ``like`` (a method's receiver) is a NumPy scalar, whose
    methods give scalars; an array or any other value is unchanged."""
    if type(x) is np.ndarray:   # the common case (np.array(...) in a loop): as it is
        return x
    if isinstance(x, (np.generic, int, float, bool)) and not isinstance(like, np.generic):
        return np.asarray(x)
    return x


@primitive("__nptuple", "__nptuple(_1)", takes_tiled=True, extension=True, internal=True,
           oracle=lambda x: tuple(x) if isinstance(x, list) else x,
           example="__nptuple(list(1, 2))", result="tuple(1, 2)")
def nptuple(x):
    """The several results of a NumPy function as the tuple NumPy returns.

    ``np.unique(a, return_counts=True)``, ``np.nonzero``, ``np.linalg.svd``, ``np.histogram``
    ... compile to primitives that give a PhySL list (as the original's did); a list
    becomes a tuple, any other value (one array: ``np.unique(a)``) is unchanged."""
    return tuple(x) if isinstance(x, list) else x
