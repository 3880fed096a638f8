"""VJP rules written as equations: one definition, evaluated by ``grad``, emitted by nn.

Most VJP rules are kernels: NumPy code returning the operands' cotangents.  A rule whose
reverse is itself made of primitives (``dot``: products with a transpose; a summing
``all_reduce``: the same collective on the cotangent) is written once, as *equations*:
a builder that returns, per operand, an :class:`Eq` tree (``eq("dot", ct,
eq("transpose", b))``) or None where no cotangent is wanted::

    @VJP.register("dot")
    @equation_rule
    def dot_vjp(ct, out, a, b, wanted=None):
        return (eq("dot", ct, eq("transpose", b), shape=a.shape) if is_wanted(wanted, 0)
                else None, ...)

The builder sees operands that know their rank and shape (arrays for ``grad``, program
variables for the symbolic engine; a dimension may be None there) and constant operands
as themselves.  :func:`equation_rule` turns it into an ordinary kernel rule (``grad``'s
tape calls it: the equations are evaluated with the primitives' implementations) that
also carries ``.equations``: :mod:`.symbolic` emits them as statements, one cotangent per
operand, so the runtime sees the primitives (two products that may run concurrently, a
collective in program order) instead of one opaque ``vjp`` application.  Each
equation's ``shape`` is its value's shape (the symbolic program's static facts); the
cotangent of an operand must have that operand's shape (no broadcast left to undo).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..primitives import registry


@dataclass(frozen=True, eq=False)
class Eq:
    """``primitive(*args)``: args are operands of the rule, constants or other ``Eq``."""

    primitive: str
    args: tuple
    shape: tuple = ()


def eq(primitive: str, *args: Any, shape: tuple = ()) -> Eq:
    return Eq(primitive, args, tuple(shape))


def shape_of(value: Any) -> tuple:
    """An operand's shape: an array's, a program variable's (dims may be None), a Python
    number's ()."""
    shape = getattr(value, "shape", None)
    return tuple(shape) if shape is not None else np.shape(value)


def evaluate(value: Any) -> Any:
    """The value of an equation tree, computed with the primitives' implementations."""
    if isinstance(value, Eq):
        spec = registry.lookup(value.primitive)
        return spec.impl(*(evaluate(a) for a in value.args))
    if type(value) is list:            # a list operand (concatenate's) of equations
        return [evaluate(v) for v in value]
    return value


def equation_rule(builder):
    """A selective kernel rule evaluating ``builder``'s equations; ``.equations`` is the
    builder itself, for symbolic differentiation (see module doc)."""
    def rule(ct, out, *operands, wanted=None):
        return tuple(evaluate(e) for e in builder(ct, out, *operands, wanted=wanted))

    rule.__name__ = builder.__name__
    rule.__doc__ = builder.__doc__
    rule.selective = True
    rule.equations = builder
    return rule
