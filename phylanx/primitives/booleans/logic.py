"""Named logical functions of the booleans category (§3.3.4): ``logical_not``, n-ary
``logical_and logical_or logical_xor __xor``, ``nonzero`` and ``where``.

Unlike the ``&&``/``||`` operators these are eager (every operand is evaluated) and purely
element-wise, as their NumPy namesakes; the n-ary forms fold from the left.
"""
from __future__ import annotations

from functools import reduce
from typing import Any

import numpy as np

from ...errors import PhylanxValueError
from ...values import scalarize, truth
from ..numeric_args import as_numeric, as_operand
from ..registry import primitive


def _logical_operand(x: Any) -> Any:
    """Numbers and arrays as they are; nil/strings by their PhySL truth value."""
    if x is None or isinstance(x, str):
        return np.bool_(truth(x))
    return as_numeric(x)


@primitive("logical_not", "logical_not(_1)", oracle=np.logical_not,
           samples="unary", elementwise=True, distributable=True,
           example="logical_not([1, 0, 2])", result="[false, true, false]")
def logical_not(a):
    """Element-wise logical NOT -> bool, like numpy.logical_not (nil is false)."""
    return scalarize(np.logical_not(_logical_operand(a)))


def _nary(name: str, ufunc: np.ufunc, example: str, result: str, doc: str):
    def impl(a, *others):
        if not others:
            raise PhylanxValueError("at least two arguments are needed, got one")
        acc = _logical_operand(a)
        for x in others:
            acc = ufunc(acc, _logical_operand(x))
        return scalarize(acc)

    impl.__name__ = name
    impl.__doc__ = doc
    primitive(
        name, f"{name}(_1, __2)", samples="binary_bool",
        oracle=lambda *xs: reduce(ufunc, xs), elementwise=True, distributable=True,
        example=example, result=result,
    )(impl)
    return impl


logical_and = _nary(
    "logical_and", np.logical_and, "logical_and([true, true, false], [1, 0, 1])",
    "[true, false, false]",
    "Element-wise logical AND of two or more arguments with broadcasting (no short-circuit).")
logical_or = _nary(
    "logical_or", np.logical_or, "logical_or([true, false, false], [0, 0, 2])",
    "[true, false, true]",
    "Element-wise logical OR of two or more arguments with broadcasting (no short-circuit).")
logical_xor = _nary(
    "logical_xor", np.logical_xor, "logical_xor([true, true, false], [1, 0, 0])",
    "[false, true, false]",
    "Element-wise logical XOR of two or more arguments with broadcasting (left fold).")
xor = _nary(
    "__xor", np.logical_xor, "__xor(true, false, true)", "false",
    "Element-wise logical XOR of two or more arguments (the same as ``logical_xor``).")


def _nonzero(a: Any, numpy: bool = False) -> list:
    a = as_numeric(a, "condition")
    if np.ndim(a) == 0:
        if numpy:
            raise PhylanxValueError("the argument must be an array of at least 1 dimension "
                                    "(NumPy refuses nonzero of a 0-d value)")
        # the original: one index vector, [0] for a non-zero value (compat addendum A.3.3)
        return [np.zeros(1 if a else 0, dtype=np.int64)]
    return list(np.nonzero(a))


def _nonzero_oracle(a):
    return [np.zeros(1 if a else 0, np.int64)] if np.ndim(a) == 0 else list(np.nonzero(a))


@primitive("nonzero", "nonzero(_1)",
           oracle=_nonzero_oracle,
           example="nonzero([[1, 0], [0, 2]])", result="list([0, 1], [0, 1])")
def nonzero(a):
    """Indices of the non-zero elements: a list of int64 index arrays, one per dimension.

    As numpy.nonzero (NaN counts as non-zero; a 1-d input gives a list of one array);
    a 0-d value gives ``list([0])`` when non-zero and ``list([])`` otherwise, as in the
    original (NumPy refuses it: ``np.nonzero`` compiles to ``__npnonzero``).
    """
    return _nonzero(a)


@primitive("__npnonzero", "__npnonzero(_1)", extension=True,
           oracle=lambda a: list(np.nonzero(a)),
           example="__npnonzero([[1, 0], [0, 2]])", result="list([0, 1], [0, 1])")
def npnonzero(a):
    """``np.nonzero(a)``: ``nonzero`` with NumPy's refusal of a 0-d value."""
    return _nonzero(a, numpy=True)


def _where_oracle(condition, *xy):
    return np.where(condition, *xy) if xy else _nonzero_oracle(condition)


def _np_where_oracle(condition, *xy):
    return np.where(condition, *xy) if xy else list(np.nonzero(condition))


def _where(condition, x, y, numpy: bool):
    if x is None and y is None:
        return _nonzero(condition, numpy)
    if x is None or y is None:
        raise PhylanxValueError("where takes 1 argument (the condition) or 3 "
                                "(condition, x, y), got 2")
    cond = as_numeric(condition, "condition")
    return scalarize(np.where(cond, as_operand(x, "x"), as_operand(y, "y")))


@primitive("where", "where(_1)", "where(_1, _2, _3)",
           oracle=_where_oracle,
           example="where([true, false, true], [1, 2, 3], 0)", result="[1, 0, 3]",
           differentiable=True)
def where(condition, x=None, y=None):
    """``where(c, x, y)`` picks ``x`` where ``c`` is true, else ``y`` (broadcasting).

    ``where(c)`` alone is ``nonzero(c)`` (so a 0-d ``c`` gives a list of one index
    vector, as in the original).  Types follow numpy.where (the common type of ``x`` and
    ``y``); a 0-d result is a scalar.
    """
    return _where(condition, x, y, numpy=False)


@primitive("__npwhere", "__npwhere(_1)", "__npwhere(_1, _2, _3)", extension=True,
           oracle=_np_where_oracle,
           example="__npwhere([true, false, true], [1, 2, 3], 0)", result="[1, 0, 3]")
def npwhere(condition, x=None, y=None):
    """``np.where``: ``where`` with NumPy's refusal of a 0-d condition alone."""
    return _where(condition, x, y, numpy=True)
