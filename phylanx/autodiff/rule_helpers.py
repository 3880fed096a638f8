"""Small helpers shared by the VJP rules (axes of reductions, float views of operands).

The only imports of primitive modules other than the registry are here (indexing and
window helpers), so a move of the primitive modules touches one import line of autodiff.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..primitives.indexing import axis_indices, index_tuple, put  # noqa: F401 (re-exported)
from ..primitives.keras_support import conv_gemm  # noqa: F401 (re-exported)
from ..primitives.keras_support._windows import pad_amounts  # noqa: F401 (re-exported)
from ..primitives.keras_support.activations import (  # noqa: F401 (re-exported)
    log_softmax,
    stable_softmax,
)
from ..primitives.keras_support.losses import class_labels  # noqa: F401 (re-exported)


def selective(rule):
    """Mark a VJP rule as taking ``wanted=``: a tuple saying, per operand, whether its
    cotangent is needed (the tape passes it; other callers may pass None for all).  The
    rule returns None where not wanted and so skips the work, e.g. the input's gradient
    of a first layer's product, or the constant factor's of ``sum(conv(x, w) * g)``."""
    rule.selective = True
    return rule


def is_wanted(wanted: Any, position: int) -> bool:
    """Whether the operand at ``position`` needs its cotangent (``wanted`` as above)."""
    return wanted is None or (position < len(wanted) and wanted[position])


def to_bool(value: Any) -> bool:
    """A flag argument as the primitives read it (nil is false)."""
    if value is None:
        return False
    return bool(np.asarray(value).reshape(()) if np.size(value) == 1 else value)


def int_list(value: Any) -> list[int]:
    """An integer or a list/array of integers (``axes``, ``reps``) as a list."""
    if isinstance(value, (list, tuple, range, np.ndarray)):
        return [int(v) for v in np.asarray(value).ravel()]
    return [int(value)]


def arr(value: Any) -> np.ndarray:
    """An operand as an array; integers and booleans as float64 (rules compute in float)."""
    a = np.asarray(value)
    return a if a.dtype.kind in "fc" else a.astype(np.float64)


def reduced_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """The axes a reduction with ``axis`` (nil: all) removed from an ``ndim``-d operand."""
    if ndim == 0:
        return ()
    if axis is None:
        return tuple(range(ndim))
    return tuple(sorted({a % ndim for a in int_list(axis)}))


def expand_reduced(ct: Any, operand: np.ndarray, axis: Any, keepdims: Any) -> np.ndarray:
    """The cotangent of a reduction's output, with the reduced axes put back as length 1
    so that it broadcasts against the operand."""
    ct = np.asarray(ct)
    axes = reduced_axes(axis, np.ndim(operand))
    if not to_bool(keepdims):
        for a in axes:
            ct = np.expand_dims(ct, a)
    return ct


def broadcast_reduced(ct: Any, operand: Any, axis: Any, keepdims: Any) -> np.ndarray:
    """The reduction's output cotangent spread over every element of the operand."""
    return np.broadcast_to(expand_reduced(ct, operand, axis, keepdims), np.shape(operand))


def count_reduced(operand: Any, axis: Any) -> int:
    shape = np.shape(operand)
    return int(np.prod([shape[a] for a in reduced_axes(axis, len(shape))], dtype=np.int64))


def unary(derivative):
    """A rule for ``name(x, dtype=nil)`` whose derivative is ``derivative(x, out)``."""
    def rule(ct, out, x, dtype=None):
        return (np.asarray(ct) * derivative(arr(x), np.asarray(out)),)
    rule.__name__ = getattr(derivative, "__name__", "unary") + "_vjp"
    return rule
