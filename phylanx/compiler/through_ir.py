"""The compiler's default path (``pipeline=ir``): PhySL AST -> IR -> rules -> PhySL AST.

Migration step 4 of docs/ir.md: the program is lowered to the IR after the phases that
precede the first phase with a rule on the IR (those that end spelling: inline and
normalize); the rewrite engine runs the rules that run on the IR (``Rule.substrate``
``ir`` or ``both``: the gram row passes, the argmin's row blocks, label statistics,
symmetric outer products, folding,
loop-invariant hoisting, sharing equal equations) on it, phase by phase in the table's order
(``rewrite/ir_terms.py``); the program is raised back, and the AST's own rules of the
remaining phases and the compiler run on what comes back, so today's specialised
closures run it.
``PHYLANX_PIPELINE=ast`` (the config key ``pipeline``) skips the IR, as before, for one
release (without the gram row passes, the argmin's row blocks, label statistics,
loop-invariant hoisting and symmetric outer products, rules of the IR only).
"""
from __future__ import annotations

from .. import config
from ..ir import lower, raise_program
from ..language import ast
from ..primitives import registry
from . import rewrite
from .rewrite.engine import run_phases
from .rewrite.ir_terms import has_ir_rules, run_ir_phases


def is_primitive(name: str) -> bool:
    return registry.lookup(name) is not None


def _unchanged(fn):
    return fn


def through_ir(program: ast.Program, on_ir=_unchanged) -> ast.Program:
    """``program`` lowered to the IR, transformed by ``on_ir`` (IR -> IR, the same
    meaning) and raised back.

    A top-level ``block`` comes back as a ``block`` (raising flattens blocks, which open
    no scope, but a caller may compile a snippet ``block(...)`` and look at its node)."""
    if not any(_is_block(e) for e in program.body):
        return raise_program(on_ir(lower(program, is_primitive)))
    body = []
    for stmt in program.body:     # each alone: a later one reads the earlier by name
        raised = raise_program(on_ir(lower(ast.Program((stmt,), program.loc),
                                           is_primitive))).body
        body.extend((ast.Call("block", raised, None, stmt.loc),) if _is_block(stmt)
                    else raised)
    return ast.Program(tuple(body), program.loc)


def _is_block(e) -> bool:
    return type(e) is ast.Call and e.func == "block" and e.attribute is None


def optimize_through_ir(program: ast.Program, fired=None) -> ast.Program:
    """The rewrite passes, with the program taken through the IR after normalize: the
    rules of the later phases that run on the IR run there, the others on the AST
    raised from it.  ``fired`` (a Counter) counts the rules that fired."""
    if not config.get("optimize"):
        return through_ir(program)
    before, after = _split_at_the_ir(rewrite.PASSES)
    program = through_ir(run_phases(before, program, fired),
                         lambda fn: run_ir_phases(after, fn, fired))
    return run_phases(after, program, fired, substrates=("ast",))


def _split_at_the_ir(passes) -> tuple[list, list]:
    """(the passes before the first phase with a rule on the IR, the others): the
    phases run in the table's order, so the AST's phases before it (inline, normalize:
    spelling ends there) run before lowering."""
    first = next((i for i, p in enumerate(passes) if has_ir_rules(p)), len(passes))
    return list(passes[:first]), list(passes[first:])


def lowered(program: ast.Program):
    """The IR of ``program`` as ``pipeline=ir`` sees it (after the phases before the
    first phase with a rule on the IR: inline, normalize)."""
    if config.get("optimize"):
        program = run_phases(_split_at_the_ir(rewrite.PASSES)[0], program)
    return lower(program, is_primitive)


def function_ir(program: ast.Program, name: str, signature=None):
    """The IR function ``name`` defined by ``program``, specialised for ``signature``
    (a tuple of ``ir.Facts``) when one is given."""
    from ..ir.specialise import specialise
    for eqn in lowered(program).eqns:
        if eqn.prim == "function" and eqn.outs[0].name == name:
            fn = eqn.param("fn")
            return fn if signature is None else specialise(fn, tuple(signature))
    raise LookupError(f"the program defines no function '{name}'")
