"""PhySL AST -> execution tree (names, scopes, argument binding, special forms)."""
from .compiler import Compiler

__all__ = ["Compiler"]
