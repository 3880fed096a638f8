"""Extension primitives for Python's text built-ins: ``print``, ``str`` and f-string fields.

PhySL's ``cout``/``string`` show values the PhySL way (``[1., 2.]``, ``{a: 1}``); a
decorated function must print exactly what its Python original prints, so the frontend
translates ``print``/``str()``/``f"{x}"`` to these, which use Python's own ``str``.
Python numbers are Python numbers at run time, so Python's ``str`` of a value is the
original's text, inside lists, tuples and dicts too.
"""
from __future__ import annotations

import sys
import threading

import numpy as np

from ...errors import PhylanxTypeError
from ...values import Deferred
from ..registry import primitive

_print_lock = threading.Lock()   # lines printed from parallel loops do not interleave


def python_str(value) -> str:
    """Python's ``str(value)`` of a PhySL value.

    Values keep their Python kinds (a Python number stays one, a NumPy scalar from an
    array stays NumPy's), so Python's own ``str`` shows what the original shows:
    ``[1, 2]`` for a list of ints, ``[np.float64(0.5)]`` for a list holding an element
    of an array, ``(1, 2)`` for a tuple.
    """
    if isinstance(value, Deferred):
        value = value.result()
    return str(value)


@primitive("__pystr", "__pystr(_1)", extension=True, internal=True, oracle=lambda x: str(x),
           example="__pystr(list(1, \"a\"))", result="\"[1, 'a']\"")
def pystr(value):
    """Python's ``str(x)``, also of ``f"{x}"`` fields.

    Arrays show as NumPy shows them, lists and dicts with quoted strings.
    """
    return python_str(value)


@primitive("__pyformat", "__pyformat(_1)", extension=True,
           internal=True, oracle=lambda x: format(x, ""),
           example="__pyformat(list(1, \"a\"))", result="\"[1, 'a']\"")
def pyformat(value):
    """Python's ``format(x, "")`` of an ``f"{x}"`` field without a spec.

    As ``str(x)``, except NumPy float scalars: ``f"{np.float32(0.1)}"`` shows every digit
    of the Python float, ``0.10000000149011612``, as Python does.
    """
    if isinstance(value, np.generic):
        return format(value, "")
    return python_str(value)


def _separator(value, name: str, default: str) -> str:
    if value is None:
        return default
    if not isinstance(value, str):
        raise PhylanxTypeError(f"{name} must be None or a string, not {type(value).__name__}")
    return value


@primitive("__print", "__print(_1_sep, _2_end, __3)", takes_tiled=True, extension=True,
           internal=True,
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
