"""Checks of the arguments users pass to ``phylanx.nn``: fit/evaluate/predict, layer
constructors, optimizers.

An argument is used as given or refused, never coerced (``batch_size=2.5`` is not
2, ``True`` is not 1, ``0`` is not the default): a bad one is a
:class:`~phylanx.errors.PhylanxTypeError` (wrong type) or
:class:`~phylanx.errors.PhylanxValueError` (wrong value) whose message names the
argument, the value given and what is accepted, located at the user's line (the first
frame outside the phylanx package) with the API called as its "primitive"
(``fit: batch_size must be ...``).  ``bool`` is not accepted where a number is (it is
an ``int`` to Python, not to a user who wrote ``True`` by mistake); NumPy's integer,
floating and boolean scalars are accepted as their Python kinds.
"""
from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from ..errors import PhylanxError, PhylanxTypeError, PhylanxValueError
from ..source import user_line


def value_error(where: str, message: str) -> PhylanxValueError:
    """A wrong value given to ``where`` (``"fit"``, ``"Dense"`` ...), at the user's line."""
    return PhylanxValueError(message, user_line(), where)


def type_error(where: str, message: str) -> PhylanxTypeError:
    return PhylanxTypeError(message, user_line(), where)


def located(error: PhylanxError, where: str) -> PhylanxError:
    """``error`` (raised by a check deeper down) located at the user's line, if it is not
    located yet; it keeps its class and message."""
    if error.loc is None:
        error.loc = user_line()
    if error.primitive is None:
        error.primitive = where
    return error


def _shown(value: Any) -> str:
    return f"{value!r} ({type(value).__name__})"


def is_bool(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not is_bool(value)


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not is_bool(value)


def integer(value: Any, name: str, where: str, minimum: int = 1,
            none: bool = False) -> int | None:
    """``value`` as an ``int`` >= ``minimum`` (None only if ``none``), else an error."""
    accepted = f"an integer >= {minimum}" + (" or None" if none else "")
    if value is None and none:
        return None
    if not _is_int(value):
        raise type_error(where, f"{name} must be {accepted}, got {_shown(value)}")
    if value < minimum:
        raise value_error(where, f"{name} must be {accepted}, got {value}")
    return int(value)


def real(value: Any, name: str, where: str, low: float | None = None,
         high: float | None = None, low_open: bool = False, high_open: bool = False,
         none: bool = False) -> float | None:
    """``value`` as a finite ``float`` in the interval given (bounds None: unbounded),
    else an error naming the interval."""
    if value is None and none:
        return None
    lo = "" if low is None else ("(" if low_open else "[") + f"{low}, "
    hi = "" if high is None else f"{high}" + (")" if high_open else "]")
    if low is not None and high is not None:
        accepted = f"a number in {lo}{hi}"
    elif low is not None:
        accepted = f"a number {'>' if low_open else '>='} {low}"
    elif high is not None:
        accepted = f"a number {'<' if high_open else '<='} {high}"
    else:
        accepted = "a finite number"
    accepted += " or None" if none else ""
    if not _is_real(value):
        raise type_error(where, f"{name} must be {accepted}, got {_shown(value)}")
    number = float(value)
    if not math.isfinite(number) or (
            low is not None and (number < low or (low_open and number == low))) or (
            high is not None and (number > high or (high_open and number == high))):
        raise value_error(where, f"{name} must be {accepted}, got {value}")
    return number


def boolean(value: Any, name: str, where: str) -> bool:
    if not is_bool(value):
        raise type_error(where, f"{name} must be True or False, got {_shown(value)}")
    return bool(value)


def choice(value: Any, name: str, where: str, options: tuple) -> Any:
    """One of ``options`` (compared by type too: ``True`` is not ``1``)."""
    for option in options:
        if type(option) is type(value) and option == value:
            return value
        if _is_int(option) and _is_int(value) and option == value:
            return int(value)
    shown = ", ".join(repr(o) for o in options)
    error = type_error if not any(type(o) is type(value) or (_is_int(o) and _is_int(value))
                                  for o in options) else value_error
    raise error(where, f"{name} must be one of {shown}, got {_shown(value)}")


def verbose(value: Any, where: str) -> int:
    """Keras' ``verbose``: 0 (silent), 1 (progress bar), 2 (a line per epoch) or "auto"
    (1)."""
    value = choice(value, "verbose", where, ("auto", 0, 1, 2))
    return 1 if value == "auto" else value


def array(value: Any, name: str, where: str, what: str = "numeric") -> np.ndarray:
    """``value`` as a NumPy array of numbers (bool, integer or float) with a batch axis,
    else an error; ragged nested lists and strings are refused, not turned into object
    arrays."""
    if value is None:
        raise type_error(where, f"{name} must be an array, got None")
    if isinstance(value, (str, bytes, dict)):
        raise type_error(where, f"{name} must be a {what} array, got {_shown(value)}")
    if isinstance(value, np.ndarray):
        result = value
    else:
        try:
            result = np.asarray(value)
        except ValueError as e:        # ragged lists: NumPy refuses to build the array
            raise value_error(where, f"{name} must be a {what} array; NumPy cannot make "
                                     f"one of the {type(value).__name__} given: {e}") from None
    if result.dtype.kind not in "biuf":
        raise type_error(where, f"{name} must be a {what} array, got dtype {result.dtype}")
    if result.ndim == 0:
        raise value_error(where, f"{name} must have a batch axis (one row per sample), "
                                 f"got a scalar")
    return result


def shape(value: Any, name: str, where: str) -> tuple:
    """A shape without the batch axis: a positive integer or a tuple/list of them (None
    for an axis of any length)."""
    if _is_int(value):
        value = (value,)
    if not isinstance(value, (tuple, list)):
        raise type_error(where, f"{name} must be a tuple of positive integers (None for "
                                f"any length), got {_shown(value)}")
    for d in value:
        if d is not None and (not _is_int(d) or d < 1):
            raise (value_error if _is_int(d) else type_error)(
                where, f"{name} must be a tuple of positive integers (None for any "
                       f"length), got {tuple(value)!r}")
    return tuple(None if d is None else int(d) for d in value)


def name(value: Any, where: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise type_error(where, f"name must be a string or None, got {_shown(value)}")
    return value
