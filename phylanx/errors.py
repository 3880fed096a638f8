"""The PhylanxError hierarchy.

Every error a user can see is a :class:`PhylanxError` carrying a location, the
primitive (or construct) concerned and, for run-time errors, the stack of
PhySL/Python frames it passed through (innermost last).  Internal Python
exceptions raised by a kernel are wrapped, never shown bare.
"""
from __future__ import annotations

import numpy as _np

from .source import SourceLoc, format_located


class PhylanxError(RuntimeError):
    """Base class of all errors raised by phylanx.

    A ``RuntimeError`` because the original's errors reached Python as one (pybind11
    turns ``std::runtime_error`` into ``RuntimeError``): code written for it catches
    ``except RuntimeError``.  The subclasses keep their Python bases as well
    (``PhylanxTypeError`` is a ``TypeError``, ...).
    """

    def __init__(self, message: str, loc: SourceLoc | None = None, primitive: str | None = None):
        self.message = message
        self.loc = loc
        self.primitive = primitive
        self.frames: list[tuple[str, SourceLoc | None]] = []
        super().__init__(message)

    def add_frame(self, function: str, loc: SourceLoc | None) -> None:
        """Record that the error passed through a call of ``function`` at ``loc``."""
        self.frames.append((function, loc))

    def __str__(self) -> str:
        head = f"{self.primitive}: {self.message}" if self.primitive else self.message
        text = format_located(self.loc, head)
        if self.frames:
            text = f"{text}\nstack (outermost first):\n{_format_stack(self.frames)}"
        return text


#: frames shown at each end of a long PhySL stack (a deep recursion has thousands)
STACK_ENDS_SHOWN = 10


def _format_stack(frames: list[tuple[str, SourceLoc | None]]) -> str:
    """The stack, outermost first, numbered; the middle of a long one is one line."""
    lines = [f"  [{i}]: {loc if loc is not None else '<unknown>'}: {fn}"
             for i, (fn, loc) in enumerate(reversed(frames), 1)
             if i <= STACK_ENDS_SHOWN or i > len(frames) - STACK_ENDS_SHOWN]
    hidden = len(frames) - 2 * STACK_ENDS_SHOWN
    if hidden > 0:
        lines.insert(STACK_ENDS_SHOWN, f"  ... {hidden} more frames ...")
    return "\n".join(lines)


class PhylanxSyntaxError(PhylanxError):
    """Malformed PhySL, or Python that the frontend cannot translate."""


class PhylanxCompileError(PhylanxError):
    """Unknown names, wrong arity or keywords, redefined constants."""


class PhylanxRuntimeError(PhylanxError):
    """A primitive failed while evaluating (shape mismatch, bad index, ...)."""


class PhylanxTypeError(PhylanxRuntimeError, TypeError):
    """An operand of the wrong type or dtype."""


class PhylanxValueError(PhylanxRuntimeError, ValueError):
    """An operand with a wrong value (shape, axis, range)."""


class PhylanxLinAlgError(PhylanxValueError, _np.linalg.LinAlgError):
    """A singular or indefinite matrix: also NumPy's ``LinAlgError`` (itself a
    ``ValueError``), so ``except np.linalg.LinAlgError`` code keeps working."""


class PhylanxIndexError(PhylanxValueError, IndexError):
    """An index out of range (also an ``IndexError``, as in Python)."""


class PhylanxKeyError(PhylanxValueError, KeyError):
    """A missing dictionary key (also a ``KeyError``, as in Python)."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return PhylanxError.__str__(self)


class PhylanxAttributeError(PhylanxRuntimeError, AttributeError):
    """A method or attribute the value does not have (``array.upper()``), as in Python."""


class PhylanxOverflowError(PhylanxRuntimeError, OverflowError):
    """A result too large for its type where Python raises (``math.exp(1000)``)."""


class PhylanxAssertionError(PhylanxRuntimeError, AssertionError):
    """Raised by the ``assert`` primitive."""


class PhylanxUnboundNameError(PhylanxRuntimeError, NameError):
    """A variable of an enclosing function read by a nested one (or a comprehension)
    before the enclosing function assigned it (also a ``NameError``, as in Python)."""


class PhylanxUnboundLocalError(PhylanxUnboundNameError, UnboundLocalError):
    """A local variable read where it has no value on the path taken (also an
    ``UnboundLocalError``, as in Python)."""
