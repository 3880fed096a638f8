"""Operands that turn a NumPy-style derivative expression into equations.

A kernel rule's derivative written with NumPy operators and ufuncs (``1.0 + out * out``,
``1.0 / np.sqrt(1.0 - x * x)``) evaluated on :class:`Expr` operands builds the
:class:`.equations.Eq` tree of the same expression, each operator and ufunc the
primitive computing it.  So the equation form of such a rule (for nested
differentiation, :mod:`.rules_recordable`) is the kernel rule's own derivative, not a
second hand-written one.  A ufunc without a primitive here is a ``TypeError`` (a rule
failing, located by the engine), never a value computed outside the outer tape.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.special

from .equations import Eq, eq

#: NumPy (and SciPy) ufuncs -> the primitive computing them
_PRIMITIVES = {
    np.add: "__add", np.subtract: "__sub", np.multiply: "__mul", np.true_divide: "__div",
    np.negative: "__minus", np.power: "power", np.exp: "exp", np.exp2: "exp2",
    np.log: "log", np.sin: "sin", np.cos: "cos", np.tan: "tan", np.sinh: "sinh",
    np.cosh: "cosh", np.tanh: "tanh", np.sqrt: "sqrt", np.square: "square",
    np.absolute: "absolute", scipy.special.expit: "sigmoid",
}


def unwrap(value: Any) -> Any:
    return value.value if isinstance(value, Expr) else value


class Expr:
    """An operand (an array) or an equation, combined by operators and ufuncs into
    equations of primitives."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        primitive = _PRIMITIVES.get(ufunc)
        if method != "__call__" or kwargs or primitive is None:
            raise TypeError(f"no primitive computes {ufunc.__name__}.{method} of an "
                            "equation")
        return Expr(eq(primitive, *(unwrap(v) for v in inputs)))

    def _apply(self, name: str, *operands: Any) -> Expr:
        return Expr(eq(name, *(unwrap(v) for v in operands)))

    def __add__(self, other): return self._apply("__add", self, other)
    def __radd__(self, other): return self._apply("__add", other, self)
    def __sub__(self, other): return self._apply("__sub", self, other)
    def __rsub__(self, other): return self._apply("__sub", other, self)
    def __mul__(self, other): return self._apply("__mul", self, other)
    def __rmul__(self, other): return self._apply("__mul", other, self)
    def __truediv__(self, other): return self._apply("__div", self, other)
    def __rtruediv__(self, other): return self._apply("__div", other, self)
    def __pow__(self, other): return self._apply("power", self, float(other))
    def __neg__(self): return self._apply("__minus", self)


def derivative_equation(derivative, *operands: Any) -> Eq | Any:
    """``derivative(*operands)`` as an equation tree of primitives."""
    return unwrap(derivative(*(Expr(v) for v in operands)))
