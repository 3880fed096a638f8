"""Constant folding: arithmetic on number literals is done once, at compile time.

``2 * 3 + x`` compiles as ``6 + x``.  Only ``+ - * / %`` and unary ``-`` on Python
``int``/``float`` literals are folded, with Python's operators: exactly what the
runtime does with two Python numbers (operators.py), so the folded value has the
same type and the same weak-scalar behaviour under NumPy's promotion (``2.0 * 3``
stays a Python float, so ``float32_array * (2.0 * 3)`` stays float32).  A fold that
would raise (division by zero: the runtime answers with NumPy's inf and a warning)
or give a non-finite value is left to the runtime.  Comparisons are not folded: the
runtime gives a Python ``bool`` where a literal ``true`` is ``np.bool_``.
"""
from __future__ import annotations

import dataclasses
import math
import operator

from ...language import ast
from .tree import children, facts, rebuild

_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul,
        "/": operator.truediv, "%": operator.mod}


def _number(e) -> bool:
    return type(e) is ast.Literal and type(e.value) in (int, float)


def _finite(v) -> bool:
    return type(v) is int or (type(v) is float and math.isfinite(v))


def fold(e):
    t = type(e)
    if t in (ast.Literal, ast.Identifier, ast.ArrayLiteral):
        return e
    new = tuple(fold(c) for c in children(e))
    e = rebuild(e, new)
    if t is ast.BinOp and e.op in _OPS and _number(e.left) and _number(e.right):
        try:
            v = _OPS[e.op](e.left.value, e.right.value)
        except (ZeroDivisionError, OverflowError):
            return e
        if _finite(v):
            return ast.Literal(v, e.loc)
    elif t is ast.UnaryOp and _number(e.operand):
        if e.op == "-":
            return ast.Literal(-e.operand.value, e.loc)
        if e.op == "+":
            return dataclasses.replace(e.operand, loc=e.loc)
    return e


def run(program: ast.Program) -> ast.Program:
    if not facts(program).literal_ops:
        return program
    body = tuple(fold(e) for e in program.body)
    if all(a is b for a, b in zip(body, program.body)):
        return program
    return dataclasses.replace(program, body=body)
