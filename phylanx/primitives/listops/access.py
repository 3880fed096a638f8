"""List access and update: ``prepend``, ``append``, ``car``/``cdr`` and their compositions.

The 28 Lisp compositions ``caar`` ... ``cddddr`` are generated from their names
(``cadr(x)`` = ``car(cdr(x))``: the letters between ``c`` and ``r`` apply right to
left).  ``prepend``/``append`` build new lists and leave their input alone; the
extensions ``__list_append``, ``__list_extend`` and ``__list_pop`` modify a list in
place, as Python's ``list.append``/``extend``/``pop`` do (the Python frontend
translates those methods to them).
"""
from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ...errors import PhylanxTypeError, PhylanxValueError
from ...values import from_python, type_name
from ..dtypes import to_int
from ..registry import primitive

_SEQUENCES = (list, tuple, range)


def _as_sequence(value: Any, what: str) -> list | tuple | range:
    if not isinstance(value, _SEQUENCES):
        raise PhylanxTypeError(f"{what} must be a list, got a {type_name(value)}")
    return value


def _mutable_list(value: Any, what: str) -> list:
    if not isinstance(value, list):
        if isinstance(value, (tuple, range)):
            raise PhylanxTypeError(f"{what} cannot be modified in place (it is a lazy range "
                                   "or an immutable list); make a copy with list(...) first")
        raise PhylanxTypeError(f"{what} must be a list, got a {type_name(value)}")
    return value


def _car(value: Any) -> Any:
    seq = _as_sequence(value, "the argument of car")
    if len(seq) == 0:
        raise PhylanxValueError("car of an empty list: the list needs at least one element")
    # elements of a lazy range are Python ints; PhySL integers are np.int64
    return from_python(seq[0])


def _cdr(value: Any) -> Any:
    seq = _as_sequence(value, "the argument of cdr")
    if len(seq) == 0:
        raise PhylanxValueError("cdr of an empty list: the list needs at least one element")
    return seq[1:] if isinstance(seq, range) else list(seq[1:])


_STEPS = {"a": _car, "d": _cdr}


@primitive("car", "car(_1)",
           example="car(list(1, 2, 3))", result="1",
           oracle=lambda x: x[0])
def car(value):
    """First element of a list (Lisp ``car``); an empty list is an error."""
    return _car(value)


@primitive("cdr", "cdr(_1)",
           example="cdr(list(1, 2, 3))", result="list(2, 3)",
           oracle=lambda x: list(x[1:]))
def cdr(value):
    """The list without its first element (Lisp ``cdr``), as a new list."""
    return _cdr(value)


def _python_path(letters: str) -> Any:
    """Oracle of a composition: the same path written with Python indexing."""
    def oracle(x):
        for letter in reversed(letters):
            x = x[0] if letter == "a" else list(x[1:])
        return x
    return oracle


def _register_composition(letters: str) -> None:
    name = f"c{letters}r"
    steps = [_STEPS[letter] for letter in reversed(letters)]
    nested = " of ".join("car" if letter == "a" else "cdr" for letter in letters)
    spelled = "".join(f"c{letter}r(" for letter in letters) + "x" + ")" * len(letters)

    def composition(value):
        for step in steps:
            value = step(value)
        return value

    composition.__name__ = composition.__qualname__ = name
    composition.__doc__ = (
        f"``{name}(x)`` = ``{spelled}``: the {nested} of a list (Lisp composition).\n\n"
        "Each step checks that it receives a non-empty list.")
    example, expected = _example_for(letters)
    primitive(
        name, f"{name}(_1)",
        example=f"{name}({example})", result=expected,
        oracle=_python_path(letters),
    )(composition)
    globals()[name] = composition


def _example_for(letters: str) -> tuple[str, str]:
    """PhySL text of a small list on which ``c<letters>r`` reaches a known value.

    Built outside in: a ``car`` step wraps the wanted value as the head of a list, a
    ``cdr`` step puts a filler (the step's number) in front of it."""
    value: Any = [7, 8] if letters[0] == "d" else 7
    expected = _physl_literal(value)
    for step, letter in enumerate(letters, start=1):
        value = [value, -step] if letter == "a" else [-step] + value
    return _physl_literal(value), expected


def _physl_literal(value: Any) -> str:
    if isinstance(value, list):
        return "list(" + ", ".join(_physl_literal(v) for v in value) + ")"
    return str(value)


#: the 28 compositions of two to four car/cdr steps, in the spec's order
COMPOSITIONS = tuple(
    "".join(letters) for n in (2, 3, 4) for letters in itertools.product("ad", repeat=n))

for _letters in COMPOSITIONS:
    _register_composition(_letters)


@primitive("prepend", "prepend(_1, _2)", takes_tiled=True,
           example="prepend(1, list(2, 3))", result="list(1, 2, 3)",
           oracle=lambda v, lst: [v] + list(lst))
def prepend(value, lst):
    """A new list with ``value`` in front of the elements of ``lst`` (``lst`` is unchanged).

    The value comes first, as in the original (``append`` takes the list first); as
    there, a nil operand is an error.
    """
    _not_nil(value, "prepend")
    return [value] + [from_python(v) for v in _as_sequence(lst, "the second argument")]


def _not_nil(value, name: str) -> None:
    if value is None:
        raise PhylanxTypeError(f"{name} requires that all the arguments be valid: the value "
                               "is nil (the original rejects it)")


@primitive("append", "append(_1, _2)", takes_tiled=True,
           example="append(list(1, 2), 3)", result="list(1, 2, 3)",
           oracle=lambda lst, v: list(lst) + [v])
def append(lst, value):
    """A new list with ``value`` after the elements of ``lst`` (``lst`` is unchanged).

    A nil operand is an error, as in the original."""
    _not_nil(value, "append")
    return [from_python(v) for v in _as_sequence(lst, "the first argument")] + [value]


@primitive("__list_append", "__list_append(_1, _2)", takes_tiled=True,
           extension=True, internal=True, side_effects=True,
           example="block(define(xs, list(1)), __list_append(xs, 2), xs)", result="list(1, 2)",
           no_oracle="modifies its argument in place; checked in tests")
def list_append(lst, value):
    """Append ``value`` to ``lst`` in place and return nil (Python ``list.append``)."""
    _mutable_list(lst, "the list given to append").append(value)


@primitive("__list_extend", "__list_extend(_1, _2)",
           extension=True, internal=True, side_effects=True,
           example="block(define(xs, list(1)), __list_extend(xs, list(2, 3)), xs)",
           result="list(1, 2, 3)",
           no_oracle="modifies its argument in place; checked in tests")
def list_extend(lst, values):
    """Append the elements of ``values`` (list or 1-d array) to ``lst`` in place; nil.

    Like Python ``list.extend``: an array contributes its rows (elements of a vector)."""
    target = _mutable_list(lst, "the list given to extend")
    if isinstance(values, np.ndarray):
        if values.ndim == 0:
            raise PhylanxTypeError("extend needs a list or an array of rank >= 1, "
                                   f"got a {type_name(values)}")
        target.extend(from_python(v) for v in values)
    elif isinstance(values, dict):
        target.extend(values)
    else:
        target.extend(from_python(v)
                      for v in _as_sequence(values, "the second argument of extend"))


@primitive("__list_pop", "__list_pop(_1, __arg(_2_index, -1))",
           extension=True, internal=True, side_effects=True,
           example="block(define(xs, list(1, 2, 3)), list(__list_pop(xs, 0), xs))",
           result="list(1, list(2, 3))",
           no_oracle="modifies its argument in place; checked in tests")
def list_pop(lst, index=-1):
    """Remove and return the element at ``index`` (default: the last one), in place.

    Like Python ``list.pop``: negative indices count from the end."""
    target = _mutable_list(lst, "the list given to pop")
    i = to_int(index, "pop index")
    if not target:
        raise PhylanxValueError("pop from an empty list")
    if not -len(target) <= i < len(target):
        raise PhylanxValueError(f"pop index {i} is out of range for a list of length "
                                f"{len(target)} (valid: {-len(target)} to {len(target) - 1})")
    return target.pop(i)
