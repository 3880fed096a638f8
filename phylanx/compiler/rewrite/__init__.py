"""Whole-program rewrites of the PhySL AST, run before it is compiled.

The compiler sees the whole computation, which NumPy never does; these passes use
that (constant folding, common subexpressions, loop-invariant hoisting, cache-blocked
patterns).  Each pass is a module of this package exposing ``run(program) -> program``
and is listed once in :data:`PASSES`, in the order they run.  A pass must keep the
program's meaning exactly (NumPy is the oracle), keep source locations on what it
builds, and leave untouched what it does not understand.

``config.get("optimize")`` switches all of them off (``PHYLANX_OPTIMIZE=0``).
Autodiff recompiles function bodies from the AST compiled here (``FunctionSource``),
so a primitive a pass introduces needs a VJP rule of its own, or the pass must keep
it out of code whose gradient can be taken.
"""
from __future__ import annotations

from ...language import ast
from . import blocking, cse, fold, hoist, inline, label_stats, normalize, outer

#: (name, run) of every pass, in order; run(program: ast.Program) -> ast.Program.
#: Inlining of small helpers first: every later pass sees one expression however the
#: user split it into functions.  Then normalization: spelling ends there, every later
#: pass matches its canonical forms only (``normalize.product``, ``normalize.transposed``).
#: Then blocking and outer products (k-means' label statistics right after blocking, whose
#: ``__rows_concat`` they read): they look for their patterns as written, before
#: hoisting or CSE moves a part into a variable (a rewritten outer product is still
#: hoisted whole: its call counts as pure, ``tree.ExprFacts``); folding
#: before hoisting and sharing (it makes equal constants equal); hoisting before sharing
#: (a subexpression CSE binds to a variable inside a loop body would make every
#: expression using it look loop-variant).
PASSES: list = [("inline", inline.run), ("normalize", normalize.run), ("blocking", blocking.run),
                ("label_stats", label_stats.run), ("outer", outer.run), ("fold", fold.run),
                ("hoist", hoist.run), ("cse", cse.run)]


def optimize(program: ast.Program) -> ast.Program:
    """``program`` after every enabled pass (the same object when none changes it)."""
    from ... import config
    if not PASSES or not config.get("optimize"):
        return program
    for _name, run in PASSES:
        program = run(program)
    return program
