"""Argument checks shared by the matrixops creation, shape and stacking modules.

PhySL hands kernels NumPy arrays, NumPy scalars and Python lists; these helpers
turn them into what NumPy expects and raise a ``PhylanxValueError`` or
``PhylanxTypeError`` naming the argument when that is impossible.  This module
declares no primitive.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..errors import (
    PhylanxAxisError,
    PhylanxLinAlgError,
    PhylanxOverflowError,
    PhylanxTypeError,
    PhylanxValueError,
)
from ..values import type_name
from .dtypes import to_int, to_shape

_SEQUENCES = (list, tuple, range)


def as_array(value: Any, what: str = "argument") -> np.ndarray:
    """``value`` as an ndarray (numbers become 0-d arrays, nested lists n-d arrays)."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (np.generic, int, float, bool)):
        return np.asarray(value)
    if isinstance(value, _SEQUENCES):
        try:
            out = np.asarray(value)
        except (ValueError, TypeError):
            out = None
        if out is None or out.dtype == object or out.dtype.kind in "US":
            raise PhylanxValueError(f"{what} must be a rectangular list of numbers")
        return out
    raise PhylanxTypeError(f"{what} must be an array or a number, got a {type_name(value)}")


def as_shape(value: Any, what: str = "shape", allow_unknown: bool = False) -> tuple[int, ...]:
    """A shape argument (an integer or a list of integers) with non-negative entries.

    ``allow_unknown`` admits one ``-1`` (the entry ``reshape`` infers).
    """
    if value is None:
        raise PhylanxTypeError(f"{what} must be an integer or a list of integers, got nil")
    dims = to_shape(value, what)
    for d in dims:
        if d < 0 and not (allow_unknown and d == -1):
            raise PhylanxValueError(f"{what} {list(dims)} has a negative dimension")
    if allow_unknown and dims.count(-1) > 1:
        raise PhylanxValueError(f"{what} {list(dims)} can only have one unknown (-1) dimension")
    return dims


def as_int_list(value: Any, what: str) -> int | list[int]:
    """An integer, or a list (1-d array) of integers, for ``axis``/``reps``-like arguments."""
    if isinstance(value, _SEQUENCES) or (isinstance(value, np.ndarray) and value.ndim == 1):
        return [to_int(v, what) for v in (value.tolist() if isinstance(value, np.ndarray)
                                          else value)]
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    return to_int(value, what)


def array_sequence(value: Any, what: str = "the first argument") -> list[np.ndarray]:
    """The list of arrays/scalars of ``concatenate``/``hstack``-like primitives."""
    if isinstance(value, _SEQUENCES):
        return [as_array(v, f"element {i} of {what}") for i, v in enumerate(value)]
    if isinstance(value, np.ndarray):
        # NumPy iterates an array argument along its first axis
        return list(value) if value.ndim else [value]
    if isinstance(value, (np.generic, int, float, bool)):
        return [np.asarray(value)]
    raise PhylanxTypeError(f"{what} must be a list of arrays, got a {type_name(value)}")


def numpy_call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call a NumPy function, turning its ValueError/TypeError into Phylanx errors."""
    try:
        return fn(*args, **kwargs)
    except np.linalg.LinAlgError as e:
        raise PhylanxLinAlgError(str(e)) from None
    except np.exceptions.AxisError as e:    # (NumPy's class kept: np.nanmax(x, axis=5))
        raise PhylanxAxisError(str(e)) from None
    except ValueError as e:
        raise PhylanxValueError(str(e)) from None
    except TypeError as e:
        raise PhylanxTypeError(str(e)) from None


def python_call(what: str, fn: Callable[..., Any], keywords: Any, values: tuple) -> Any:
    """``fn(*positional, **named)`` of a Python call passed on as written: the last
    ``len(keywords)`` values are the named ones.  Python's errors keep their class
    (``TypeError``, ``ValueError``, ``OverflowError``), located, prefixed with ``what``."""
    names = list(keywords or [])
    cut = len(values) - len(names)
    try:
        return fn(*values[:cut], **dict(zip(names, values[cut:])))
    except TypeError as e:
        raise PhylanxTypeError(f"{what}: {e}") from None
    except OverflowError as e:
        raise PhylanxOverflowError(f"{what}: {e}") from None
    except np.exceptions.AxisError as e:
        raise PhylanxAxisError(f"{what}: {e}") from None
    except ValueError as e:
        raise PhylanxValueError(f"{what}: {e}") from None
