"""Small helpers shared by the VJP rules (axes of reductions, float views of operands).

The only imports of primitive modules other than the registry are here (indexing and
window helpers), so a move of the primitive modules touches one import line of autodiff.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..primitives.indexing import axis_indices, index_tuple, put  # noqa: F401 (re-exported)
from ..primitives.keras_support.activations import (  # noqa: F401 (re-exported)
    log_softmax,
    stable_softmax,
)
from ..primitives.keras_support.adjoints import (  # noqa: F401 (re-exported)
    POOLS,
    conv_cotangents,
    pool_cotangent,
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


#: unsigned integers of the width of each IEEE float (the bit patterns :func:`masked` ands)
_BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def masked(mask: Any, values: Any) -> np.ndarray:
    """``np.where(mask, values, 0)`` in ``values``' float dtype, bit for bit (infinities
    and NaNs kept where ``mask``, +0.0 elsewhere), without a branch per element.

    Why: a cotangent routed by a data-dependent mask (relu's ``maximum(x, 0)``, ``clip``,
    ``where``) has a random pattern, on which ``np.where``'s per-element branch is
    mispredicted about half the time: measured 460 us for a 512 x 256 float32 array
    against 45 us for this (2 cores, AMD EPYC), a quarter of an MLP's ``value_and_grad``.
    Here each mask element becomes all-ones or all-zero bits of the float's width and is
    anded with the values' bits (multiplying by the mask would turn an infinite
    cotangent into NaN where it is masked off).  Complex and extended-precision values
    take ``np.where``."""
    values = np.asarray(values)
    mask = np.asarray(mask)
    bits = _BITS.get(values.dtype.itemsize) if values.dtype.kind == "f" else None
    if bits is None or mask.dtype != np.bool_:
        return np.where(mask, values, values.dtype.type(0))
    ones = np.negative(mask.view(np.uint8), dtype=bits)     # True -> all bits set
    return np.bitwise_and(values.view(bits), ones).view(values.dtype)


def arr_with(value: Any, ct: Any) -> np.ndarray:
    """An operand as an array to combine with the cotangent ``ct``, in the dtype NumPy's
    promotion gives it with ``ct`` (the forward's own): a float array as it is; an
    integer or boolean array, or a Python number (weak, as in the forward), in that
    float dtype.  Dropout's boolean mask and its ``1 / (1 - rate)`` with a float32
    cotangent: float32, where :func:`arr`'s float64 made the cotangent float64 from
    there on through the rest of the backward pass."""
    if type(value) in (bool, int, float):
        dtype = np.result_type(np.asarray(ct).dtype, value, np.float16)
        return np.asarray(value, dtype)
    a = np.asarray(value)
    if a.dtype.kind in "fc":
        return a
    return a.astype(np.result_type(np.asarray(ct).dtype, a.dtype, np.float16))


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
    rule.derivative = derivative    # its equation form evaluates it on equations too
    return rule
