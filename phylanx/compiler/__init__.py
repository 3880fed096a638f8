"""PhySL AST -> execution tree (names, scopes, argument binding, special forms)."""
from . import special_forms  # noqa: F401 - registers define/lambda/store... (see below)
from .compiler import Compiler, call_value

# The special forms are registered when the compiler is imported, not on the registry's
# first lookup: that lazy load marks the table loaded before filling it, so threads
# compiling their first programs at the same moment saw 'define' missing.

__all__ = ["Compiler", "call_value"]
