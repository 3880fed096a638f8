"""The restricted unpicklers: bytes from elsewhere are rebuilt as data, never executed.

``file_read`` loads only what ``file_write`` writes (NumPy arrays, scalars, dtypes,
ranges, complex numbers and Python's plain containers); ``util.unserialize`` loads that
plus the PhySL AST's node classes and source locations.  Any other global named in the
pickle (``os.system``, a user class, ...) is refused before it is looked up.
"""
from __future__ import annotations

import io
import pickle
from typing import Any

from .errors import PhylanxValueError

#: the only globals file_read rebuilds: NumPy arrays, scalars, dtypes and ranges
DATA_GLOBALS = frozenset({
    ("builtins", "range"), ("builtins", "complex"), ("numpy", "dtype"), ("numpy", "ndarray"),
    ("numpy._core.numeric", "_frombuffer"), ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"), ("numpy.core.multiarray", "scalar"),
})

#: what serialize writes besides data: the PhySL AST's (frozen dataclass) nodes
AST_GLOBALS = DATA_GLOBALS | frozenset(
    [("phylanx.language.ast", name) for name in
     ("Literal", "ArrayLiteral", "Identifier", "Call", "KeywordArg", "QuotedList", "UnaryOp",
      "BinOp", "Program")]
    + [("phylanx.source", "SourceLoc")])


class DataUnpickler(pickle.Unpickler):
    """Rebuilds only the globals of :data:`DATA_GLOBALS` (what file_write writes)."""

    allowed = DATA_GLOBALS
    source = "the file"
    refusal = "which file_read does not load (only data written by file_write)"

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in self.allowed:
            raise PhylanxValueError(f"{self.source} holds a {module}.{name}, {self.refusal}")
        return super().find_class(module, name)


class AstUnpickler(DataUnpickler):
    """Rebuilds data and PhySL ASTs (what util.serialize writes)."""

    allowed = AST_GLOBALS
    source = "the data"
    refusal = "which unserialize does not load (only ASTs and data written by serialize)"


def load_ast_or_data(data: bytes) -> Any:
    """The object :func:`phylanx.util.serialize` pickled into ``data``."""
    return AstUnpickler(io.BytesIO(data)).load()


__all__ = ["AST_GLOBALS", "DATA_GLOBALS", "AstUnpickler", "DataUnpickler", "load_ast_or_data"]
