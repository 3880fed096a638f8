"""The normalized IR (issue 27): a program as equations in SSA form, with facts.

Below the compiler and the runtime (it imports only the base modules and ``language``):
``core`` (Var, Literal, Eqn, Function, Facts), ``lower`` (PhySL AST -> IR, with
``scan``),
``raising`` (IR -> PhySL AST), ``text`` (printer and parser), ``shapes`` (facts of
primitive families) and ``specialise`` (facts from an argument signature, cached).
docs/ir.md describes it.
"""
from __future__ import annotations

from .core import Eqn, Facts, Function, Literal, Var
from .lower import lower
from .raising import raise_program

__all__ = ["Eqn", "Facts", "Function", "Literal", "Var", "lower", "raise_program"]
