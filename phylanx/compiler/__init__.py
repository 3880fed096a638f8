"""PhySL AST -> execution tree (names, scopes, argument binding, special forms)."""
from .compiler import Compiler, call_value

__all__ = ["Compiler", "call_value"]
