"""Tuples: ``tuple(a, b, ...)`` builds one, ``__pytuple(x)`` is Python's ``tuple(iterable)``.

A tuple is a value kind of its own (a Python ``tuple`` at run time), not a list:
immutable, hashable (a dictionary key), returned to Python as a tuple at any depth,
the right operand of ``%``-formatting, and, as the only index of an array, one index
per axis (``slice(x, tuple(0, 1))`` is NumPy's ``x[0, 1]``; a PhySL ``list`` index is
a range, see ``indexing.py``).  The Python frontend emits ``tuple(...)`` for every
tuple display it translates.
"""
from __future__ import annotations

from ..controls.control_flow import iterate
from ..registry import primitive


@primitive("tuple", "tuple(__1)", takes_tiled=True, extension=True,
           example="tuple(1, \"two\", tuple(3, 4))", result="tuple(1, \"two\", tuple(3, 4))",
           oracle=lambda *a: tuple(a), differentiable=True)
def tuple_(*items):
    """A tuple of the arguments (Python's ``(a, b, ...)``); ``tuple()`` is the empty tuple.

    Unlike a list it cannot change, can be a dictionary key, and indexes an array one
    axis per element: ``slice(m, tuple(0, 1))`` is ``m[0, 1]``.
    """
    return items


@primitive("__pytuple", "__pytuple(_1)", extension=True,
           internal=True, oracle=tuple, differentiable=True,
           example="__pytuple(list(1, 2))", result="tuple(1, 2)")
def pytuple(x):
    """Python's ``tuple(x)``: the items of any iterable (array rows, dict keys ...) as a tuple."""
    return x if type(x) is tuple else tuple(iterate(x))
