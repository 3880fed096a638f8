"""Operand helpers shared by the numeric primitives (arithmetics, booleans, matrixops,
statistics): turn PhySL values into NumPy operands, cast results.  This module declares no
primitive.

Result types are NumPy's for every input dtype (bool, int8..uint64, float16..float64,
complex): a ufunc picks its own loop, so ``exp`` of int8 is float16 as in NumPy.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..errors import PhylanxTypeError, PhylanxValueError
from ..values import scalarize, type_name
from .dtypes import to_dtype

_NUMERIC_CONTAINERS = (list, tuple, range)
_PYTHON_NUMBERS = (bool, int, float, complex)
#: NumPy's float and complex scalar types (what :func:`apply_elementwise` takes as is)
_FLOAT_SCALARS = frozenset(np.dtype(c).type for c in np.typecodes["AllFloat"])


def as_numeric(x: Any, what: str = "argument") -> Any:
    """``x`` as a NumPy array or scalar; PhySL lists become arrays, other kinds are refused."""
    if isinstance(x, (np.ndarray, np.generic)):
        if x.dtype.kind not in "biufc":
            raise PhylanxTypeError(f"{what} must be numeric, got a {type_name(x)}")
        return x
    if isinstance(x, (bool, int, float, complex)):
        return np.asarray(x)[()]
    if isinstance(x, _NUMERIC_CONTAINERS):
        try:
            a = np.asarray(x)
        except ValueError as e:
            raise PhylanxValueError(f"{what} is a list that is not a regular array: {e}") from None
        if a.dtype.kind not in "biufc" and a.size:
            raise PhylanxTypeError(f"{what} must be numeric, got a list of {a.dtype}")
        return a
    raise PhylanxTypeError(f"{what} must be a number or an array, got a {type_name(x)}")


def as_operand(x: Any, what: str = "argument") -> Any:
    """Like :func:`as_numeric`, but a Python number stays a Python number.

    For operands combined with others (``where``, ``maximum``, ``clip`` ...): Python numbers
    are weak in NumPy's promotion, so ``maximum(2, x)`` keeps a float32 ``x`` float32;
    :func:`as_numeric` would make the 2 a strong int64 and the result float64.
    """
    if type(x) in _PYTHON_NUMBERS:
        return x
    return as_numeric(x, what)


def float_of(a: Any) -> Any:
    """``a`` itself if it is float/complex, else as float64 (NumPy's int -> float rule)."""
    return a if a.dtype.kind in "fc" else a.astype(np.float64)


def finish(result: Any, dtype: np.dtype | None) -> Any:
    """Cast ``result`` to ``dtype`` (if given) and turn 0-d arrays into NumPy scalars."""
    if dtype is not None and result.dtype != dtype:
        result = result.astype(dtype)
    return scalarize(result)


def apply_elementwise(fn: Callable, x: Any, dtype: Any, ufunc: np.ufunc | None = None) -> Any:
    """Run the element-wise ``fn`` on ``x`` with the dtype rules of the module docstring."""
    if dtype is None and type(x) is np.ndarray and x.dtype.kind in "fc":
        return fn(x)  # the common case (a float array, no dtype): nothing to check or cast
    if dtype is None and type(x) in _FLOAT_SCALARS:
        # a NumPy float scalar (an element read in a loop): as_numeric keeps it and finish
        # only scalarizes, so the result is fn's, a 0-d array made a scalar
        out = fn(x)
        return out[()] if type(out) is np.ndarray and out.ndim == 0 else out
    a = as_numeric(x)
    dt = to_dtype(dtype)
    if dt is not None and dt.kind in "fc":
        a = a.astype(dt)
    return finish(fn(a), dt)
