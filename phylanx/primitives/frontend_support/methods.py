"""Extension primitives for Python methods that change their receiver, and NumPy calls
whose primitive twin lacks an argument (names start with ``__``).

``lst.sort()``, ``x.sort()``, ``lst.insert/remove/reverse/index/count``,
``d.update/pop/setdefault``, ``x.fill(v)``, ``np.append(x, v)`` and
``np.std/var(..., ddof=k)``.  Methods that change the receiver do it in place and
return nil, as in Python, so other names of the same list or array see the change.
"""
from __future__ import annotations

import numpy as np

from ...errors import (
    PhylanxAttributeError,
    PhylanxIndexError,
    PhylanxKeyError,
    PhylanxTypeError,
    PhylanxValueError,
)
from ...values import call, type_name
from ..array_args import python_call
from ..dtypes import to_axis, to_bool
from ..registry import primitive

_MISSING = "__phylanx_missing__"   # default of an optional argument that was not given


def _list(x, method: str) -> list:
    # the method of a list only: another receiver lacks it (Python's AttributeError)
    if not isinstance(x, list):
        raise PhylanxAttributeError(f"a {type_name(x)} has no method '.{method}()' (a "
                                    "list's)")
    return x


def _items(x, method: str) -> list | tuple:
    """A list or a tuple (``index``/``count`` read, they do not change the receiver)."""
    return x if isinstance(x, tuple) else _list(x, method)


def _same(a, b) -> bool:
    """Python's list equality of items: identity first (a NaN equals itself), then ==."""
    if a is b:
        return True
    r = a == b
    if isinstance(r, np.ndarray):
        return bool(r.all()) if r.size else np.shape(a) == np.shape(b)
    return bool(r)


@primitive("__sort_inplace", "__sort_inplace(_1, __arg(_2_axis, -1), "
           "__arg(_3_reverse, false), __arg(_4_key, nil))", extension=True, internal=True,
           side_effects=True, higher_order=True,
           no_oracle="sorts its argument in place and returns nil",
           example="__sort_inplace(list(3, 1, 2))", result="nil")
def sort_inplace(x, axis=-1, reverse=False, key=None):
    """``lst.sort(key=..., reverse=...)`` or ``x.sort(axis)``: sorts in place, nil."""
    if isinstance(x, np.ndarray) and x.ndim:
        x.sort(axis=to_axis(axis, x.ndim))
        return None
    items = _list(x, "sort")
    keys = items if key is None else [call(key, v) for v in items]
    order = sorted(range(len(items)), key=keys.__getitem__, reverse=to_bool(reverse))
    items[:] = [items[i] for i in order]
    return None


@primitive("__list_insert", "__list_insert(_1, _2, _3)", takes_tiled=True, extension=True,
           internal=True,
           side_effects=True, no_oracle="changes its argument in place and returns nil",
           example="__list_insert(list(1, 2), 0, 5)", result="nil")
def list_insert(items, index, value):
    """``lst.insert(index, value)`` (in place, nil)."""
    _list(items, "insert").insert(int(index), value)


@primitive("__list_remove", "__list_remove(_1, _2)", extension=True, internal=True,
           side_effects=True, no_oracle="changes its argument in place and returns nil",
           example="__list_remove(list(1, 2), 2)", result="nil")
def list_remove(items, value):
    """``lst.remove(value)``: drop the first equal item (in place, nil).

    Of a set, the set's own ``remove`` (Python's KeyError when missing)."""
    if isinstance(items, set):
        return _set_method(items, "remove", value)
    items = _list(items, "remove")
    for i, v in enumerate(items):
        if _same(v, value):
            del items[i]
            return None
    raise PhylanxValueError("list.remove(x): x not in list")


@primitive("__list_reverse", "__list_reverse(_1)", extension=True, internal=True,
           side_effects=True, no_oracle="changes its argument in place and returns nil",
           example="__list_reverse(list(1, 2))", result="nil")
def list_reverse(items):
    """``lst.reverse()`` (in place, nil)."""
    _list(items, "reverse").reverse()


@primitive("__index", "__index(_1, _2)", extension=True, internal=True,
           oracle=lambda seq, v: seq.index(v),
           example="__index(list(3, 1, 2), 2)", result="2")
def index(seq, value):
    """``seq.index(value)``: position of the first equal item of a list or string."""
    if isinstance(seq, str):
        found = seq.find(value)
        if found < 0:
            raise PhylanxValueError("substring not found")
        return found
    for i, v in enumerate(_items(seq, "index")):
        if _same(v, value):
            return i
    raise PhylanxValueError("list.index(x): x not in list")


@primitive("__count", "__count(_1, _2)", extension=True, internal=True,
           oracle=lambda seq, v: seq.count(v),
           example="__count(list(3, 1, 3), 3)", result="2")
def count(seq, value):
    """``seq.count(value)``: how many items of a list (or substrings) equal ``value``."""
    if isinstance(seq, str):
        return seq.count(value)
    return sum(_same(v, value) for v in _items(seq, "count"))


@primitive("__pop", "__pop(_1, __arg(_2_key, nil), __arg(_3_default, \"" + _MISSING + "\"))",
           extension=True, internal=True, side_effects=True,
           no_oracle="changes its argument in place",
           example="__pop(list(1, 2, 3))", result="3")
def pop(container, key=None, default=_MISSING):
    """``lst.pop([index])``, ``d.pop(key[, default])``, ``s.pop()``: remove an item.

    It returns the removed item."""
    if isinstance(container, set):
        if key is not None or not (isinstance(default, str) and default == _MISSING):
            raise PhylanxTypeError("set.pop() takes no arguments")
        return _set_method(container, "pop")
    if isinstance(container, dict):
        if key in container:
            return container.pop(key)
        if isinstance(default, str) and default == _MISSING:
            raise PhylanxKeyError(f"{key!r}")
        return default
    items = _list(container, "pop")
    if not items:
        raise PhylanxIndexError("pop from empty list")
    i = -1 if key is None else int(key)
    if not -len(items) <= i < len(items):
        raise PhylanxIndexError("pop index out of range")
    return items.pop(i)


@primitive("__dict_update", "__dict_update(_1, __2)", extension=True, internal=True,
           side_effects=True, no_oracle="changes its argument in place and returns nil",
           example="__dict_update(dict(list(list(\"a\", 1))), dict(list(list(\"b\", 2))))",
           result="nil")
def dict_update(d, *others):
    """``d.update(other)`` of a dict, ``s.update(*others)`` of a set (in place, nil).

    The type's own method."""
    if not isinstance(d, (dict, set)):
        raise PhylanxAttributeError(f"a {type_name(d)} has no method '.update()'")
    if isinstance(d, dict) and len(others) != 1:
        raise PhylanxTypeError(f"dict.update() takes one mapping, got {len(others)}")
    python_call(".update()", d.update, (), others)


def _set_method(s: set, method: str, *values):
    """A set's own ``remove``/``pop``: its KeyError is Python's (missing or empty)."""
    try:
        return getattr(s, method)(*values)
    except KeyError as e:
        raise PhylanxKeyError(str(e) if method == "remove" else "pop from an empty set") \
            from None


@primitive("__setdefault", "__setdefault(_1, _2, __arg(_3_default, nil))",
           extension=True,
           internal=True, side_effects=True, no_oracle="changes its argument in place",
           example="__setdefault(dict(list(list(\"a\", 1))), \"b\", 2)", result="2")
def setdefault(d, key, default=None):
    """``d.setdefault(key, default)``: the value of ``key``, inserting ``default`` first."""
    if not isinstance(d, dict):
        raise PhylanxAttributeError(f"a {type_name(d)} has no method '.setdefault()'")
    return d.setdefault(key, default)


@primitive("__fill", "__fill(_1, _2)", extension=True, internal=True, side_effects=True,
           no_oracle="changes its argument in place and returns nil",
           example="__fill([1.0, 2.0], 0)", result="nil", differentiable=True)
def fill(x, value):
    """``x.fill(value)``: every element of the array becomes ``value`` (in place, nil)."""
    if not isinstance(x, np.ndarray) or not x.ndim:
        raise PhylanxTypeError(f".fill() needs an array, got a {type_name(x)}")
    x.fill(value)


@primitive("__npappend", "__npappend(_1, _2, __arg(_3_axis, nil))",
           extension=True, internal=True, oracle=np.append, differentiable=True,
           example="__npappend([1, 2], 3)", result="[1, 2, 3]")
def npappend(arr, values, axis=None):
    """``np.append(arr, values, axis)``: a new array (flattened when axis is nil)."""
    arr = np.asarray(arr)
    if axis is not None:
        axis = int(axis)
    try:
        return np.append(arr, values, axis=axis)
    except ValueError as e:
        raise PhylanxValueError(f"cannot append: {e}") from None


