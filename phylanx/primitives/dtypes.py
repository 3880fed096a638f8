"""dtype and axis arguments: the names PhySL accepts and their checks.

``"bool"``, ``"int"``/``"int64"``/``"int32"``..., ``"float"``/``"float64"``/``"float32"``
(prefix match as in the original), or nil for "keep the input's dtype".
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import PhylanxAxisError, PhylanxTypeError, PhylanxValueError
from ..values import type_name

_NAMES = {
    "bool": np.bool_, "int": np.int64, "int64": np.int64, "int32": np.int32,
    "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "float": np.float64,
    "float64": np.float64, "float32": np.float32, "float16": np.float16, "double": np.float64,
    "complex": np.complex128, "complex128": np.complex128, "complex64": np.complex64,
    "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
}


def to_dtype(value: Any, default: Any = None) -> np.dtype | None:
    """The NumPy dtype named by a PhySL dtype argument (None -> ``default``)."""
    if value is None:
        return None if default is None else np.dtype(default)
    if isinstance(value, np.dtype):
        return value
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value)
    if value in (bool, int, float, complex):
        return np.dtype({bool: np.bool_, int: np.int64, float: np.float64,
                         complex: np.complex128}[value])
    if isinstance(value, str):
        key = value.strip().lower()
        if key in _NAMES:
            return np.dtype(_NAMES[key])
        for prefix, dt in (("bool", np.bool_), ("int", np.int64), ("float", np.float64)):
            if key.startswith(prefix):
                return np.dtype(dt)
        raise PhylanxTypeError(   # NumPy's class ("data type ... not understood")
            f"unknown dtype '{value}' (use bool, int, int64, int32, float, float64, float32)")
    raise PhylanxTypeError(f"a dtype must be a string such as \"float\", got a {type_name(value)}")


def to_axis(axis: Any, ndim: int, what: str = "axis") -> int | None:
    """A validated, non-negative axis (None stays None)."""
    if axis is None:
        return None
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise PhylanxTypeError(f"{what} must be an integer, got a {type_name(axis)}")
    a = int(axis)
    n = max(ndim, 1)
    if not -n <= a < n:
        raise PhylanxAxisError(f"{what} {a} is out of bounds for a {ndim}-d array "
                                f"(valid: {-n} to {n - 1})")
    return a % n


def to_axes(axis: Any, ndim: int) -> int | tuple[int, ...] | None:
    """An axis or a list of axes (for reductions)."""
    if isinstance(axis, (list, tuple)):
        axes = tuple(to_axis(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise PhylanxValueError(f"repeated axis in {list(axis)}")
        return axes
    return to_axis(axis, ndim)


def to_bool(value: Any, default: bool = False) -> bool:
    """A flag argument (nil -> ``default``): a boolean or a number (0 is false).  A
    string or container is refused: Python's truth of ``"false"`` is True, so
    ``file_read_hdf5(f, d, "false")`` opened the door it guards."""
    if value is None:
        return default
    if isinstance(value, np.ndarray):
        if value.size != 1 or value.dtype.kind not in "biuf":
            raise PhylanxTypeError(f"a flag must be true or false, got an array of shape "
                                   f"{value.shape} ({value.dtype})")
        value = value.reshape(())
    elif not isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)):
        raise PhylanxTypeError(f"a flag must be true or false, got a {type_name(value)}"
                               + (f" ({value!r})" if isinstance(value, str) else ""))
    return bool(value)


def to_int(value: Any, what: str) -> int:
    """An integer argument (an integral float such as 2.0 is accepted; bools are not)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            return int(value)
        raise PhylanxTypeError(f"{what} must be an integer, got a {type_name(value)}")
    return int(value)


def to_count(value: Any, what: str, minimum: int = 0) -> int:
    """An integer argument of at least ``minimum`` (sizes, counts, iterations)."""
    n = to_int(value, what)
    if n < minimum:
        expected = {0: "non-negative", 1: "positive"}.get(minimum, f"at least {minimum}")
        raise PhylanxValueError(f"{what} must be {expected}, got {n}")
    return n


def to_shape(value: Any, what: str = "shape") -> tuple[int, ...]:
    """A shape argument: an integer or a list of integers."""
    if isinstance(value, (list, tuple, range)):
        return tuple(to_int(v, what) for v in value)
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return tuple(to_int(v, what) for v in value.tolist())
    return (to_int(value, what),)


def original_dtype(value: Any) -> np.dtype | None:
    """The original's ``map_dtype``: bool, int64 or float64 for a recognised name, else None.

    Strings: ``"bool"``; any starting with ``"int"`` -> int64, with ``"float"`` ->
    float64.  Dtype objects (``int``, ``float32`` ...) map by kind."""
    if value is None:
        return None
    if isinstance(value, str):
        key = value.strip().lower()
    else:
        try:
            key = np.dtype(value).name
        except TypeError:
            raise PhylanxTypeError(
                f"a dtype must be a string such as \"float\", got a {type_name(value)}") from None
    if key == "bool":
        return np.dtype(np.bool_)
    if key.startswith(("int", "uint")):
        return np.dtype(np.int64)
    if key.startswith("float"):
        return np.dtype(np.float64)
    return None
