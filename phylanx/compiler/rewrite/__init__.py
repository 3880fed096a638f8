"""Whole-program rewrites of the PhySL AST, run before it is compiled: one engine.

The compiler sees the whole computation, which NumPy never does; the rules of
:mod:`.engine` use that (constant folding, common subexpressions, loop-invariant
hoisting, row passes, label statistics, symmetric products).  Every rewrite is a rule
given as data (pattern, builder, the law it relies on, a sample program), grouped by
concern in the phases of :data:`PASSES`, each run to a fixpoint in that order.  A rule
must keep the program's meaning (NumPy is the oracle; to rounding where its tolerance
says so), keep source locations on what it builds, and leave untouched what it does
not understand.  ``docs/rules.md`` lists every rule with its phase and law
(:func:`rules_markdown`).

``config.get("optimize")`` switches all of them off (``PHYLANX_OPTIMIZE=0``), setting
``disable_rules`` (``PHYLANX_DISABLE_RULES=name,name``) single rules.  Autodiff
recompiles function bodies from the AST compiled here (``FunctionSource``), so a
primitive a rule introduces needs a VJP rule of its own, or the rule must keep it out
of code whose gradient can be taken.
"""
from __future__ import annotations

from collections import Counter

from ...language import ast
from . import (
    cse,
    fold,
    fresh_rows,
    gram_rows,
    hoist,
    inline,
    label_stats,
    normalize,
    outer,
    row_blocks,
    updates,
)
from .engine import Pass, Phase, run_phases

#: the phases of the engine, in order (and the one whole-program pass, inlining).
#: Inlining of small helpers first: every later phase sees one expression however the
#: user split it into functions.  Then normalization: spelling ends there, every later
#: rule matches its canonical forms only (``normalize.product``, ``normalize.transposed``).
#: Then, on the IR (an SSA edge is an edge: a named part of a pattern is seen through),
#: the gram row passes and the argmin's row blocks (before hoisting or CSE moves a part
#: of their expression into a value of its own), label statistics (which read the row
#: blocks' ``__rows_concat``), fresh row tables (``fresh_rows``: an allocation no other
#: name holds) and symmetric products (a rewritten product is still hoisted whole: its
#: call is pure and its function value reads nothing the loop binds);
#: folding before hoisting and sharing (it makes equal constants equal); hoisting before
#: sharing (a subexpression CSE binds to a variable inside a loop body would make every
#: expression using it look loop-variant).  Augmented assignments outside loops last
#: (``updates``: the phases before read ``__inplace``).  In the default pipeline inline
#: and normalize run on the AST before lowering, the later phases' IR rules on the IR
#: (``through_ir``).
PASSES: list = [Pass("inline", inline.run), normalize.PHASE, gram_rows.PHASE,
                row_blocks.PHASE, label_stats.PHASE, fresh_rows.PHASE, outer.PHASE,
                fold.PHASE, hoist.PHASE, cse.PHASE, updates.PHASE]


def rules() -> list:
    """``(phase name, rule)`` of every rule, in the order the engine tries them."""
    return [(p.name, r) for p in PASSES if type(p) is Phase for r in p.rules]


def optimize(program: ast.Program, fired: Counter | None = None) -> ast.Program:
    """``program`` after every enabled phase (the same object when none changes it);
    ``fired`` counts the rules that fired, by name."""
    from ... import config
    if not PASSES or not config.get("optimize"):
        return program
    return run_phases(PASSES, program, fired)


def rules_markdown() -> str:
    """docs/rules.md: every rule with its phase, law and tolerance, from the tables."""
    lines = ["# Rewrite rules", "",
             "Generated from the rule tables of `phylanx/compiler/rewrite` "
             "(`python -m phylanx rules > docs/rules.md`); "
             "tests/compiler/test_rewrite_engine.py checks it is current.  The phases run "
             "in this order, each to a fixpoint; `PHYLANX_DISABLE_RULES=name,name` leaves "
             "rules out.  \"runs on\" is the substrate: in the default pipeline "
             "(`pipeline=ir`) the rules that run on the IR run between lowering and "
             "raising, the AST's after raising; `PHYLANX_PIPELINE=ast` runs the AST's "
             "rules only (the IR's own are not run there).", "",
             "| phase | rule | runs on | law | tolerance |", "|---|---|---|---|---|"]
    on = {"ast": "AST", "ir": "IR", "both": "AST, IR"}
    for phase, rule in rules():
        cells = (phase, f"`{rule.name}`", on[rule.substrate], rule.law, rule.tolerance)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"
