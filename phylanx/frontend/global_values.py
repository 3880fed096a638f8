"""Python globals as an evaluation of a decorated function loads them and leaves them.

A global is loaded as its PhySL value (a function as its compiled one) when an
evaluation starts (``decorator.py``: ``with_globals``).  One the evaluation may assign
is written back when it ends; one it loaded and left keeps its Python object (the
converted value in its place, a list would no longer be its aliases', a decorated
function would be dropped with its name).
"""
from __future__ import annotations

import types
from typing import Any

from ..values import from_python, to_python
from .markers import DecoratedFunction


def compiled(linker, fn) -> DecoratedFunction:
    """The compiled decorator of ``fn`` (decorated, or plain Python made one)."""
    dec = linker.decorator_for(fn)
    dec._ensure_compiled()
    return dec


def loaded_value(linker, get, held: list | None = None) -> Any:
    """The current value of a Python global (``get`` reads it) as PhySL (a function as
    its compiled one, its decorated function appended to ``held``), nil if it does not
    exist yet."""
    return read(linker, get, held)[1]


def read(linker, get, held: list | None = None) -> tuple[Any, Any]:
    """(the Python value of a global, that value as :func:`loaded_value` gives it)."""
    try:
        value = get()
        if isinstance(value, (DecoratedFunction, types.FunctionType)):
            dec = compiled(linker, value)
            if held is not None:
                held.append(dec)
            return value, dec._function
        return value, from_python(value)
    except (KeyError, ValueError):
        return None, None


class Loaded:
    """A global an evaluation that may assign it loaded: its PhySL value, the Python
    object it came from, and (a list or dict converted to a new one) the items the copy
    had, to tell whether the evaluation changed it in place."""

    __slots__ = ("value", "python", "items")

    def __init__(self, python: Any, value: Any):
        self.value, self.python = value, python
        self.items = None
        if value is not python and type(value) in (list, dict) and type(python) is type(value):
            self.items = list(value.items() if type(value) is dict else value)

    def write_back(self, value: Any, put) -> None:
        """Leave the global as Python would after the evaluation, ``value`` its value
        then: assigned, ``put`` stores it; not assigned, the global keeps its object (a
        list or dict as itself, changed in place; a function its decorated function;
        a copy the evaluation changed in place is copied into the object)."""
        if value is not self.value:
            put(to_python(value))
        elif self.items is not None and _changed(value, self.items):
            if type(value) is list:
                self.python[:] = to_python(value)
            else:
                self.python.clear()
                self.python.update(to_python(value))


def _changed(container: list | dict, items: list) -> bool:
    now = list(container.items()) if type(container) is dict else container
    return len(now) != len(items) or any(
        (a is not b) if type(container) is list else (a[0] != b[0] or a[1] is not b[1])
        for a, b in zip(now, items))
