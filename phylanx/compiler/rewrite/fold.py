"""Constant folding rules: arithmetic on number literals is done once, at compile time.

``2 * 3 + x`` compiles as ``6 + x``.  Only ``+ - * / %`` and unary ``-``/``+`` on Python
``int``/``float`` literals are folded, with Python's operators: exactly what the
runtime does with two Python numbers (operators.py), so the folded value has the
same type and the same weak-scalar behaviour under NumPy's promotion (``2.0 * 3``
stays a Python float, so ``float32_array * (2.0 * 3)`` stays float32).  A fold that
would raise (division by zero: the runtime answers with NumPy's inf and a warning)
or give a non-finite value is left to the runtime.  Comparisons are not folded: the
runtime gives a Python ``bool`` where a literal ``true`` is ``np.bool_``.

The rules read and build terms through the engine's adapter only (``ctx.terms``), so
they run on the IR as they do on the AST (``substrate="both"``): in the default
pipeline on the IR's equations, where a folded temporary's readers read the literal.
They need no facts: a Python number literal's type is its fact.
"""
from __future__ import annotations

import math
import operator

from .engine import P, Phase, Rule, Sample, normal

#: by head: ``a + b`` and ``__add(a, b)`` are the same term (``engine.AstTerms``)
_OPS = {"__add": operator.add, "__sub": operator.sub, "__mul": operator.mul,
        "__div": operator.truediv, "__mod": operator.mod}


def _number(e, ctx) -> bool:
    return ctx.terms.head(e) == "literal" and type(e.value) in (int, float)


def _finite(v) -> bool:
    return type(v) is int or (type(v) is float and math.isfinite(v))


def _binary(bound: dict, ctx):
    e, terms = bound["e"], ctx.terms
    left, right = terms.children(e)
    try:
        v = _OPS[terms.head(e)](left.value, right.value)
    except (ZeroDivisionError, OverflowError):
        return None
    return terms.literal(v, e) if _finite(v) else None


def _unary(bound: dict, ctx):
    e, terms = bound["e"], ctx.terms
    (operand,) = terms.children(e)
    value = operand.value
    return terms.literal(-value if terms.head(e) == "__minus" else value, e)


_NUMBERS = (P("literal", where=_number), P("literal", where=_number))

PHASE = Phase("fold", (
    Rule("fold_literal_arithmetic",
         "a + b, a - b, a * b, a / b, a % b of two Python number literals is the literal "
         "Python computes (the runtime computes the same with the same operator); not "
         "folded when Python raises or the result is not finite",
         P("__add", "__sub", "__mul", "__div", "__mod", args=_NUMBERS, name="e"), _binary,
         Sample("def sample(x):\n    return x * (2.0 * 3) + (7 - 2) % 3 - 1 / 4\n",
                normal(("n", 3)), ("float32", "helper"),
                helper="def sample(x):\n    def scale(v):\n        return v * (2.0 * 3)\n"
                       "    return scale(x) + (7 - 2) % 3\n"), substrate="both"),
    Rule("fold_literal_sign",
         "-c of a number literal c is the literal -c, +c is c (Python's unary operators)",
         P("__minus", "__plus", args=(P("literal", where=_number),), name="e"), _unary,
         Sample("def sample(x):\n    return x * -(2.0 * 3)\n", normal(("n", 3)),
                ("float32", "helper"),
                helper="def sample(x):\n    def neg(v):\n        return v * -(2.5 - 1)\n"
                       "    return neg(x)\n"), substrate="both"),
), wanted=lambda facts: facts.literal_ops)

#: the phase alone (tests)
run = PHASE.run
