"""Augmented assignment computed into its target: ``x op= e`` outside loops as NumPy's
``x.__iadd__`` (issue 27: ``x[a:b] += e`` was a temporary of the slice and a copy back).

The frontend writes ``x op= e`` as ``__inplace(t, t op e)``, ``t`` the target read
twice in a row (a variable, or a subscript of pinned parts: ``x[1:-1]``, ``x[i]``,
``x[mask]``), and for a subscript stores the result into ``x[...]`` after.  Evaluated
node by node, ``t op e`` is a fresh array that ``__inplace`` copies into ``t``.  The
rule::

    __inplace(t, t op e)  ->  __update(t, e, "op")      (op one of + - * /)

``__update`` (``python_builtins.update``) computes ``op(t, e, out=t)`` where that gives
what the copy gives (a writable float/complex array, 0-d included, ``e`` a scalar or of
``t``'s shape, no cast), else exactly ``__inplace(t, t op e)``.  Law: a ufunc's output
may overlap its inputs (NumPy buffers what an overlap needs), so ``op(t, e, out=t)``
writes the values that copying ``op(t, e)`` into ``t`` writes; both reads of ``t`` are
one value (nothing runs between them: ``e`` is evaluated after both in either form).
NumPy's answer for repeated indices (``x[[0, 0]] += 1`` adds once) is kept: a fancy
index reads a copy, updated in place, then stored as before.  The store of a basic
slice's view back into itself is NumPy's no-op (same data, shape and strides).

Not inside a loop (``for_each``, ``while``): there the translated loop computes the same
update itself (``scalar_translate.emit_update``) and the loop planners read
``__inplace``.  Autodiff records the expression back (the primitive's ``restore``);
a tiled target takes the distribution rule of ``__inplace`` (``global_subscripts``).
"""
from __future__ import annotations

from ...language import ast
from .engine import P, Phase, Rule, Sample, normal

#: the operators ``__update`` computes into its target (python_builtins.UPDATE_OPERATORS)
_OPERATORS = frozenset(("+", "-", "*", "/"))
#: heads of the reads a target may be made of (a variable, its subscripts and slices,
#: the markers ``...`` and ``None``)
_READS = frozenset(("__subscript", "list", "__ellipsis", "__newaxis"))
#: the loops whose bodies keep ``__inplace`` (translated loops and planners read it)
_LOOPS = frozenset(("for_each", "while"))


def same_read(a, b) -> bool:
    """``a`` and ``b`` read the same thing: one variable, subscripted by the same
    literals (index arrays too) and variables (no call with an effect between)."""
    t = type(a)
    if t is not type(b):
        return False
    if t is ast.Identifier:
        return a.name == b.name
    if t is ast.Literal:
        return type(a.value) is type(b.value) and a.value == b.value
    if t is ast.ArrayLiteral:       # an index array ``x[[0, 2]]``: kind, rank and items
        return a == b
    if t is ast.Call:
        return (a.func == b.func and a.func in _READS and a.attribute is None
                and b.attribute is None and len(a.args) == len(b.args)
                and all(map(same_read, a.args, b.args)))
    return False


def _rewrite(bound: dict, ctx):
    e, value = bound["e"], bound["v"]
    target = e.args[0]
    if type(value) is not ast.BinOp or value.op not in _OPERATORS \
            or not same_read(target, value.left) or _LOOPS.intersection(ctx.ancestors):
        return None
    return ast.Call("__update", (target, value.right, ast.Literal(value.op, value.loc)),
                    None, e.loc)


PHASE = Phase("updates", (
    Rule("update_in_place",
         "op(t, e, out=t) writes what copying op(t, e) into t writes (a ufunc's output "
         "may overlap its inputs); the kernel takes that form only where it is NumPy's "
         "x op= e, else computes __inplace(t, t op e)",
         P("__inplace", args=(P(), P("__add", "__sub", "__mul", "__div", name="v")),
           name="e"),
         _rewrite,
         Sample("def sample(a, b):\n    c = a * 2.0\n    c[1:] += b[1:]\n    c *= b\n"
                "    return c\n", normal(("n",), ("n",)), ("float32", "helper"),
                helper="def sample(a, b):\n    def bump(c, d):\n        c[1:] -= d[1:]\n"
                       "        return c\n    return bump(a * 2.0, b)\n"),
         substrate="ast"),
))

#: the phase alone (tests)
run = PHASE.run
