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


class PhylanxIndexError(PhylanxRuntimeError, IndexError):
    """An index out of range (also an ``IndexError``, as in Python; not a ``ValueError``,
    which Python's is not either)."""


class PhylanxKeyError(PhylanxRuntimeError, KeyError):
    """A missing dictionary key (also a ``KeyError``, as in Python)."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return PhylanxError.__str__(self)


class PhylanxAxisError(PhylanxValueError, PhylanxIndexError, _np.exceptions.AxisError):
    """An axis out of bounds: NumPy's ``AxisError`` (a ``ValueError`` and an
    ``IndexError``), as ``np.sum(a, axis=5)`` raises."""

    def __init__(self, message: str, loc: SourceLoc | None = None,
                 primitive: str | None = None):
        super().__init__(message, loc, primitive)
        self.axis = self.ndim = None   # AxisError's attributes (its __init__ is not run)

    def __str__(self) -> str:  # AxisError formats its own attributes
        return PhylanxError.__str__(self)


class PhylanxArithmeticError(PhylanxRuntimeError, ArithmeticError):
    """An arithmetic error Python raises (the base of the three below)."""


class PhylanxZeroDivisionError(PhylanxArithmeticError, ZeroDivisionError):
    """Division or modulo of Python numbers by zero (``1 / 0``, ``1 // 0``, ``1.0 % 0``), as
    in Python; arrays and NumPy scalars keep NumPy's ``inf``/``nan`` and warning."""


class PhylanxFloatingPointError(PhylanxArithmeticError, FloatingPointError):
    """NumPy's floating-point error under ``np.errstate(...="raise")``."""


class PhylanxAttributeError(PhylanxRuntimeError, AttributeError):
    """A method or attribute the value does not have (``array.upper()``), as in Python."""


class PhylanxOverflowError(PhylanxArithmeticError, OverflowError):
    """A result too large for its type where Python raises (``math.exp(1000)``)."""


class PhylanxAssertionError(PhylanxRuntimeError, AssertionError):
    """Raised by the ``assert`` primitive."""


class PhylanxUnboundNameError(PhylanxRuntimeError, NameError):
    """A variable of an enclosing function read by a nested one (or a comprehension)
    before the enclosing function assigned it (also a ``NameError``, as in Python)."""


class PhylanxUnboundLocalError(PhylanxUnboundNameError, UnboundLocalError):
    """A local variable read where it has no value on the path taken (also an
    ``UnboundLocalError``, as in Python)."""


class PhylanxNotImplementedError(PhylanxRuntimeError, NotImplementedError):
    """``raise NotImplementedError`` in decorated code, or a kernel that raised it."""


class PhylanxRecursionError(PhylanxRuntimeError, RecursionError):
    """Recursion too deep while evaluating (also Python's ``RecursionError``)."""


#: Python's (and NumPy's) exception classes -> the Phylanx class standing for each:
#: a Python exception raised by a kernel, or by ``raise E(...)`` in decorated code, is
#: reported as the Phylanx class of the first class of its MRO found here
PYTHON_CLASSES: dict[type, type] = {
    _np.exceptions.AxisError: PhylanxAxisError,
    _np.linalg.LinAlgError: PhylanxLinAlgError,
    UnboundLocalError: PhylanxUnboundLocalError,
    NameError: PhylanxUnboundNameError,
    KeyError: PhylanxKeyError,
    IndexError: PhylanxIndexError,
    ZeroDivisionError: PhylanxZeroDivisionError,
    OverflowError: PhylanxOverflowError,
    FloatingPointError: PhylanxFloatingPointError,
    ArithmeticError: PhylanxArithmeticError,
    AttributeError: PhylanxAttributeError,
    AssertionError: PhylanxAssertionError,
    NotImplementedError: PhylanxNotImplementedError,
    RecursionError: PhylanxRecursionError,
    ValueError: PhylanxValueError,
    TypeError: PhylanxTypeError,
    RuntimeError: PhylanxRuntimeError,
}


def phylanx_class(python_class: type) -> type:
    """The Phylanx error class standing for ``python_class`` (a subclass of it where one
    exists; ``PhylanxRuntimeError`` for classes without one)."""
    if issubclass(python_class, PhylanxError):
        return python_class
    return next((PYTHON_CLASSES[c] for c in python_class.__mro__ if c in PYTHON_CLASSES),
                PhylanxRuntimeError)
