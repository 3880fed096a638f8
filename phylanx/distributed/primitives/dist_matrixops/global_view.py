"""Plain primitives that answer for the whole of a tiled array: ``DISTRIBUTION`` rules.

A tiled array means the whole array, so ``shape(x)``, ``size(x)``, ``ndim(x)``,
``len(x)`` and ``x.dtype`` of a DistributedArray are those of the global array:
their kernel runs on a stand-in with the global shape and the dtype, a read-only
zero-stride view of one zero (no memory, and the kernel's own semantics: a tuple of
Python ints, as for a plain array).  ``transpose`` is ``transpose_d`` (a layout
change, no communication).

Reductions and products, whose global answer needs communication, have their rules
in ``global_reductions.py`` and ``global_products.py``; with several localities the
runtime keeps every rank's communication in program order (``runtime/comm_order.py``),
so their collectives meet.  Primitives without a rule gather (``gather_fallback.py``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ....primitives.rules import DISTRIBUTION
from ...darray import DistributedArray
from .layout_ops import transpose_d


def _stand_in(a: DistributedArray) -> np.ndarray:
    """An array with ``a``'s global shape and dtype that owns no data."""
    return np.broadcast_to(np.zeros((), a.dtype), a.shape)


def metadata(impl: Any, args: list) -> Any:
    """The kernel of a query of shape or dtype, on global stand-ins for tiled operands."""
    return impl(*[_stand_in(a) if type(a) is DistributedArray else a for a in args])


def transpose(impl: Any, args: list) -> Any:
    """``transpose(x[, axes])`` of a tiled ``x``: ``transpose_d`` (same arguments)."""
    return transpose_d(*args)


DISTRIBUTION.register("shape", "size", "ndim", "__len", "__dtype")(metadata)
DISTRIBUTION.defrule("transpose", transpose)
