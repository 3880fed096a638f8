"""Arithmetic operators ``__add __sub __mul __div __mod __minus __pos`` (infix ``+ - * / %``).

NumPy semantics and promotion (bool < int64 < float64, float32 kept); two
operands use Python's operator directly (NumPy dispatches it), so a scalar
addition costs what NumPy's scalar addition costs.  Lists concatenate with
``+`` and repeat with ``* n`` as in Python.  Python numbers divide as in Python: a zero
divisor raises ``ZeroDivisionError`` (a ``PhylanxZeroDivisionError`` once located); arrays and
NumPy scalars give NumPy's ``inf``/``nan`` and warning (``np.divide`` on two Python numbers
too, through ``__npoperand``).
"""
from __future__ import annotations

import operator
from functools import reduce

import numpy as np

from ..registry import primitive


def _nary(op):
    def impl(a, *rest):
        r = a
        for x in rest:
            r = op(r, x)
        return r
    return impl


def _declare(name, infix, op, oracle, example, result, doc):
    impl = _nary(op)
    impl.__doc__ = doc
    impl.__name__ = name
    primitive(
        name, f"_1 {infix} __2", f"{name}(_1, __2)",
        oracle=lambda *xs: reduce(oracle, xs), samples="binary", elementwise=True,
        differentiable=True, distributable=True, supports_dtype=True, infix=infix,
        example=example, result=result, flags={"binary": op},
    )(impl)
    return impl


add = _declare("__add", "+", operator.add, np.add, "[1, 2] + 3", "[4, 5]",
               "Element-wise n-ary addition with broadcasting; lists and strings concatenate.")
sub = _declare("__sub", "-", operator.sub, np.subtract, "[5, 7] - 2 - 1", "[2, 4]",
               "Element-wise n-ary subtraction (left fold) with broadcasting.")
mul = _declare("__mul", "*", operator.mul, np.multiply, "[[1, 2], [3, 4]] * [10, 100]",
               "[[10, 200], [30, 400]]",
               "Element-wise (Hadamard) n-ary multiplication with broadcasting, not a matrix "
               "product.")
div = _declare("__div", "/", operator.truediv, np.true_divide, "[3, 4] / 2", "[1.5, 2.0]",
               "Element-wise true division with broadcasting (int / int gives float64).")


@primitive("__mod", "_1 % _2", "__mod(_1, _2)", oracle=np.mod,
           samples="binary", elementwise=True, distributable=True, supports_dtype=True,
           infix="%", example="[7, -7] % 3", result="[1, 2]", flags={"binary": operator.mod},
           differentiable=True)
def mod(a, b):
    """Element-wise remainder with the sign of the divisor (NumPy/Python ``%``)."""
    return operator.mod(a, b)


@primitive("__pos", "__pos(_1)", oracle=np.positive, samples="unary", elementwise=True,
           differentiable=True, extension=True,
           internal=True, example="__pos([1, -2])", result="[1, -2]")
def pos(a):
    """Unary plus (Python's prefix ``+``): ``+True`` is 1, an array is copied (numpy.positive).

    As in NumPy, a bool array has no ``+`` (TypeError).
    """
    return operator.pos(a)


@primitive("__minus", "-_1", "__minus(_1)", oracle=np.negative,
           samples="unary", elementwise=True, differentiable=True, distributable=True,
           supports_dtype=True, infix="-", example="__minus([1, -2])", result="[-1, 2]",
           flags={"unary": operator.neg})
def minus(a):
    """Unary negation (prefix ``-``)."""
    return operator.neg(a)
