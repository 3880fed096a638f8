"""Extension primitives for Python's text built-ins: ``print``, ``str`` and f-string fields.

PhySL's ``cout``/``string`` show values the PhySL way (``[1., 2.]``, ``{a: 1}``); a
decorated function must print exactly what its Python original prints, so the frontend
translates ``print``/``str()``/``f"{x}"`` to these, which use Python's own ``str``.
Inside lists and dicts, ``np.int64``/``np.float64``/``np.bool_`` items are shown as the
Python ``int``/``float``/``bool`` they stand for (Phylanx keeps Python numbers as NumPy
scalars), so ``print([1, 2])`` shows ``[1, 2]``, not ``[np.int64(1), np.int64(2)]``.
"""
from __future__ import annotations

import sys
import threading

import numpy as np

from ...errors import PhylanxTypeError
from ..registry import primitive

_PYTHON_TWINS = (np.int64, np.float64, np.bool_)
_print_lock = threading.Lock()   # lines printed from parallel loops do not interleave


def _as_python(value):
    """The value the Python original would hold: PhySL's NumPy stand-ins for Python
    numbers become Python numbers, inside lists and dicts too; arrays stay arrays."""
    if isinstance(value, _PYTHON_TWINS):
        return value.item()
    if isinstance(value, list):
        return [_as_python(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_as_python(v) for v in value)
    if isinstance(value, dict):
        return {_as_python(k): _as_python(v) for k, v in value.items()}
    if isinstance(value, range):
        return list(value)
    return value


def python_str(value) -> str:
    """Python's ``str(value)`` of a PhySL value."""
    if isinstance(value, (np.generic, np.ndarray)):
        return str(value)   # np.float32(0.1) shows as 0.1, like the original
    return str(_as_python(value))


@primitive("__pystr", "__pystr(_1)", extension=True, oracle=lambda x: str(x),
           example="__pystr(list(1, \"a\"))", result="\"[1, 'a']\"")
def pystr(value):
    """Python's ``str(x)``, also of ``f"{x}"`` fields.

    Arrays show as NumPy shows them, lists and dicts with quoted strings.
    """
    return python_str(value)


def _separator(value, name: str, default: str) -> str:
    if value is None:
        return default
    if not isinstance(value, str):
        raise PhylanxTypeError(f"{name} must be None or a string, not {type(value).__name__}")
    return value


@primitive("__print", "__print(_1_sep, _2_end, __3)", extension=True,
           side_effects=True, no_oracle="prints to stdout and returns nil",
           example="__print(nil, nil, \"x =\", [1.0, 2.0])", result="nil")
def print_(sep, end, *values):
    """Python's ``print(*values, sep=sep, end=end)``; returns nil.

    A nil ``sep`` or ``end`` means Python's default (a space, a newline).
    """
    text = _separator(sep, "sep", " ").join(python_str(v) for v in values)
    text += _separator(end, "end", "\n")
    with _print_lock:
        sys.stdout.write(text)
        sys.stdout.flush()
