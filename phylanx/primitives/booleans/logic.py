"""Named logical functions of the booleans category (§3.3.4): ``logical_not``, n-ary
``logical_and logical_or logical_xor __xor``, ``nonzero`` and ``where``.

Unlike the ``&&``/``||`` operators these are eager (every operand is evaluated) and purely
element-wise, as their NumPy namesakes; the n-ary forms fold from the left.
"""
from __future__ import annotations

from functools import reduce
from typing import Any

import numpy as np

from ...errors import PhylanxTypeError, PhylanxValueError
from ...values import scalarize, truth, type_name
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


def _original_operand(x: Any, what: str) -> Any:
    """An operand of the original's nonzero/where: a number or an array (addendum A.3.3,
    A.3.4); lists, strings, dicts and nil are refused ("operand has unsupported type")."""
    if x is None or isinstance(x, (list, tuple, dict, str)):
        raise PhylanxTypeError(
            f"{what}: operand has unsupported type ({type_name(x)}; the original takes numbers "
            "and arrays only, np.nonzero/np.where also take lists)")
    return as_operand(x, what)


def _nonzero(a: Any, numpy: bool = False) -> list:
    a = as_numeric(a, "condition") if numpy else np.asarray(_original_operand(a, "condition"))
    if np.ndim(a) == 0:
        if numpy:
            raise PhylanxValueError("the argument must be an array of at least 1 dimension "
                                    "(NumPy refuses nonzero of a 0-d value)")
        # the original: one index vector, [0] for a non-zero value (compat addendum A.3.3)
        return [np.zeros(1 if a else 0, dtype=np.int64)]
    return list(np.nonzero(a))


def _nonzero_oracle(a):
    if isinstance(a, (list, tuple)):
        raise TypeError("the original's nonzero takes numbers and arrays only")
    return [np.zeros(1 if a else 0, np.int64)] if np.ndim(a) == 0 else list(np.nonzero(a))


@primitive("nonzero", "nonzero(_1)", distributable=True,
           oracle=_nonzero_oracle,
           example="nonzero([[1, 0], [0, 2]])", result="list([0, 1], [0, 1])")
def nonzero(a):
    """Indices of the non-zero elements: a list of int64 index arrays, one per dimension.

    As numpy.nonzero (NaN counts as non-zero; a 1-d input gives a list of one array);
    a 0-d value gives ``list([0])`` when non-zero and ``list([])`` otherwise, as in the
    original; a PhySL list is refused, as in the original (NumPy refuses a 0-d value and
    takes lists: ``np.nonzero`` compiles to ``__npnonzero``).
    """
    return _nonzero(a)


@primitive("__npnonzero", "__npnonzero(_1)", extension=True, internal=True,
           oracle=lambda a: list(np.nonzero(a)),
           example="__npnonzero([[1, 0], [0, 2]])", result="list([0, 1], [0, 1])")
def npnonzero(a):
    """``np.nonzero(a)``: ``nonzero`` with NumPy's refusal of a 0-d value (lists are arrays)."""
    return _nonzero(a, numpy=True)


def _where_oracle(condition, *xy):
    if any(v is None or isinstance(v, (list, tuple)) for v in (condition, *xy)):
        raise TypeError("the original's where takes numbers and arrays only")
    return np.where(condition, *xy) if xy else _nonzero_oracle(condition)


def _np_where_oracle(condition, *xy):
    return np.where(condition, *xy) if xy else list(np.nonzero(condition))


#: an omitted x/y of ``where`` (an explicit nil is an operand, refused by the original)
_OMITTED = object()


def _where(condition, x, y, numpy: bool):
    if x is _OMITTED and y is _OMITTED:
        return _nonzero(condition, numpy)
    if x is _OMITTED or y is _OMITTED:
        raise PhylanxValueError("where takes 1 argument (the condition) or 3 "
                                "(condition, x, y), got 2")
    if numpy:
        # np.where is no ufunc: of 0-d operands (Python numbers too) NumPy gives a 0-d
        # array, not a scalar (user49: np.where(a > b, a, b) of two numbers was np.int64)
        cond = as_numeric(condition, "condition")
        return np.where(cond, as_operand(x, "x"), as_operand(y, "y"))
    cond = _original_operand(condition, "condition")
    return scalarize(np.where(cond, _original_operand(x, "x"), _original_operand(y, "y")))


@primitive("where", "where(_1)", "where(_1, _2, _3)", distributable=True,
           oracle=_where_oracle,
           example="where([true, false, true], [1, 2, 3], 0)", result="[1, 0, 3]",
           differentiable=True)
def where(condition, x=_OMITTED, y=_OMITTED):
    """``where(c, x, y)`` picks ``x`` where ``c`` is true, else ``y`` (broadcasting).

    ``where(c)`` alone is ``nonzero(c)`` (so a 0-d ``c`` gives a list of one index
    vector, as in the original).  Types follow numpy.where (the common type of ``x`` and
    ``y``, not ``c``'s: the original's truncation of ``x`` through a bool ``c`` is a
    defect not copied); a 0-d result is a scalar.  As in the original, the operands are
    numbers or arrays: PhySL lists and nil are refused (``np.where``, compiled to
    ``__npwhere``, takes lists).  3-d and larger operands, which the original refused, work
    as in NumPy.
    """
    return _where(condition, x, y, numpy=False)


@primitive("__npwhere", "__npwhere(_1)", "__npwhere(_1, _2, _3)", extension=True, internal=True,
           distributable=True,
           oracle=_np_where_oracle,
           example="__npwhere([true, false, true], [1, 2, 3], 0)", result="[1, 0, 3]",
           differentiable=True)
def npwhere(condition, x=_OMITTED, y=_OMITTED):
    """``np.where``: NumPy's meaning (a 0-d condition alone is refused, lists are arrays).

    A 0-d result is a 0-d array, as NumPy's (np.where is no ufunc)."""
    return _where(condition, x, y, numpy=True)
