"""Forward kernels that keep, for their VJP rule, what the rule would otherwise compute
again (JAX calls these residuals): a primitive listed here is recorded through its
keeping form, and its rule is given what was kept as ``saved=``.

Why: a convolution with few input channels multiplies a copy of its input's windows
(``primitives/keras_support/conv_windows.py``), and its kernel's cotangent is the
product of the very same matrix with the output cotangent; rebuilding it (padding,
window view, copy) was about a tenth of a small Conv1D loss's ``value_and_grad``
(cg43).  Keeping it costs its memory (at most ``conv_windows.SLICE_BYTES``) until the
tape is dropped, so it is kept only when an operand whose cotangent needs it is
differentiated.

What is kept is a value of the forward's own operands, made before anything after it
ran: a later in-place change of an operand (the tape copies the operand then) leaves
it as the operand was, which is the value the rule differentiates at.  A keeping form
sees only plain arrays (any other operand kind, a tiled array among them, goes to the
primitive's own kernel); nested ``grad`` records the plain kernel, and its rule
recomputes (a rule must work with ``saved=None``).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Keeping:
    """``forward(*args) -> (out, saved)``: the primitive's result and what its rule can
    use (None: nothing kept).  Used when the operands at ``arrays`` are plain NumPy
    arrays and one at ``for_operands`` is differentiated."""

    forward: Callable[..., tuple[Any, Any]]
    arrays: tuple[int, ...]
    for_operands: tuple[int, ...]

    def applies(self, tracked: Callable[[Any], Any], args: tuple) -> bool:
        """Whether to record ``args`` through :attr:`forward` (see the class doc):
        operands of another kind (lists, tiled arrays) go to the primitive's kernel."""
        return (all(pos < len(args) and type(args[pos]) is np.ndarray for pos in self.arrays)
                and any(tracked(args[pos]) is not None for pos in self.for_operands))


#: primitive name -> its keeping form (filled by the rule modules: rules_keras.py)
KEEPING: dict[str, Keeping] = {}
