"""Python classes inside decorated code: ``type(x)``, ``isinstance``, ``issubclass``,
``cls.__name__`` (extension primitives the frontend translates to).

A value's class is decided at run time from the value itself, and is the class the value
has in the undecorated function: PhySL values *are* Python and NumPy values (an int stays
an int, an array an ``ndarray``, a tuple a tuple), so ``type`` and ``isinstance`` are
Python's own; only PhySL's own kinds of value are shown as what they stand for (a PhySL
function is a Python function, an ``async`` value its result).  Classes are named by the
frontend (``__pyclass("builtins.int")``, ``__pyclass("numpy.ndarray")``); only built-in and
NumPy classes can be named, so nothing is imported on a program's behalf.
"""
from __future__ import annotations

import builtins
import types
from typing import Any

import numpy as np

from ...errors import PhylanxAttributeError, PhylanxTypeError
from ...values import Builtin, Deferred, Function, type_name
from ..dtypes import to_dtype
from ..registry import primitive

#: the modules ``__pyclass`` takes classes from
_MODULES = {"builtins": builtins, "numpy": np}


def python_class(name: str) -> type:
    """The class ``"builtins.int"`` or ``"numpy.linalg.LinAlgError"`` names."""
    module, _, dotted = name.partition(".")
    obj: Any = _MODULES.get(module)
    for part in dotted.split(".") if obj is not None and dotted else ():
        obj = getattr(obj, part, None)
    if not isinstance(obj, type):
        raise PhylanxTypeError(f"'{name}' is not a built-in or NumPy class")
    return obj


@primitive("__pyclass", "__pyclass(_1_name)", extension=True, internal=True,
           no_oracle="a class named by the frontend", example="__pyclass(\"builtins.int\")",
           result="__pytype(1)")
def pyclass(name):
    """The built-in or NumPy class named ``name`` (``"builtins.list"``, ``"numpy.ndarray"``)."""
    return python_class(name)


def value_class(value: Any) -> type:
    """The class ``value`` has in plain Python."""
    if isinstance(value, Deferred):
        value = value.result()
    if isinstance(value, Function):
        return types.FunctionType
    if isinstance(value, Builtin):
        return types.BuiltinFunctionType
    return type(value)


@primitive("__pytype", "__pytype(_1)", extension=True, internal=True, oracle=type,
           samples="unary", example="__pytype(list(1, 2)) == __pyclass(\"builtins.list\")",
           result="True")
def pytype(value):
    """Python's ``type(x)``: the class of ``x`` as in the undecorated code."""
    return value_class(value)


def _classes(spec: Any, what: str) -> type | tuple:
    """A class or a (nested) tuple of classes, as ``isinstance`` takes them."""
    if isinstance(spec, type):
        return spec
    if isinstance(spec, tuple):
        return tuple(_classes(s, what) for s in spec)
    if isinstance(spec, str):
        try:   # a class name passed as an argument is its dtype name (f(x, int))
            to_dtype(spec)
        except Exception:   # noqa: BLE001 - any other string is simply not a class
            pass
        else:
            raise PhylanxTypeError(
                f"{what} got the dtype name {spec!r}: inside a Phylanx function a class "
                "passed as an argument is the dtype it names; write the class itself here "
                "(or assign it to a variable: t = int)")
    raise PhylanxTypeError(f"{what} must be a class or a tuple of classes, got a "
                           f"{type_name(spec)}")


@primitive("__pyisinstance", "__pyisinstance(_1, _2)", extension=True, internal=True,
           no_oracle="Python's isinstance; tests compare with undecorated code",
           example="__pyisinstance(2.5, tuple(__pyclass(\"builtins.int\"), "
                   "__pyclass(\"builtins.float\")))", result="True")
def pyisinstance(value, classes):
    """Python's ``isinstance(x, classes)``, decided on the run-time value of ``x``."""
    return issubclass(value_class(value), _classes(classes, "isinstance() arg 2"))


@primitive("__pyissubclass", "__pyissubclass(_1, _2)", extension=True, internal=True,
           no_oracle="Python's issubclass; tests compare with undecorated code",
           example="__pyissubclass(__pyclass(\"builtins.bool\"), __pyclass(\"builtins.int\"))",
           result="True")
def pyissubclass(cls, classes):
    """Python's ``issubclass(cls, classes)``."""
    return issubclass(_classes(cls, "issubclass() arg 1"),
                      _classes(classes, "issubclass() arg 2"))


@primitive("__asclass", "__asclass(_1)", extension=True, internal=True,
           no_oracle="an operand check; tests compare with undecorated code",
           example="__asclass(__pytype(1))", result="__pyclass(\"builtins.int\")")
def asclass(value):
    """An operand compared with a class (``t is int``), returned unchanged.

    A dtype name is refused: a class passed as an argument is its dtype name inside a
    Phylanx function, and comparing that with a class would silently be false."""
    if isinstance(value, str):
        _classes(value, "a comparison with a class")
    return value


@primitive("__pyname", "__pyname(_1)", extension=True, internal=True,
           no_oracle="Python's __name__ attribute; tests compare with undecorated code",
           example="__pyname(__pytype(1.5))", result="\"float\"")
def pyname(value):
    """``x.__name__`` of a class or function (``type(x).__name__``)."""
    if isinstance(value, Function):
        return value.name
    if isinstance(value, Builtin):
        return value.name
    name = getattr(value, "__name__", None)
    if not isinstance(name, str) or not isinstance(value, (type, types.FunctionType)):
        raise PhylanxAttributeError(f"'{type(value).__name__}' object has no attribute "
                                    "'__name__'")
    return name
