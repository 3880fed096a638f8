"""Shared helpers of the Keras-support primitives: argument checks, padding, sliding windows.

No primitive is declared here.  Convolutions and pooling all reduce to the same
step: pad the spatial axes of a channels-last array ``(batch, *spatial, channels)``
the way TensorFlow does, then take a strided, dilated window view of it with
``numpy.lib.stride_tricks.sliding_window_view`` (no copy) that ``tensordot`` or a
reduction consumes.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ...errors import PhylanxTypeError, PhylanxValueError
from ...values import type_name
from ..dtypes import to_count


def as_array(value: Any, what: str) -> np.ndarray:
    """``value`` as an ndarray of numbers (bool/int/float); anything else is a type error."""
    if isinstance(value, (str, dict)) or value is None or callable(value):
        raise PhylanxTypeError(f"{what} must be an array or a number, got a {type_name(value)}")
    arr = np.asarray(value)
    if arr.dtype.kind not in "biuf":
        raise PhylanxTypeError(f"{what} must hold numbers, got a {type_name(arr)}")
    return arr


def as_float_array(value: Any, what: str) -> np.ndarray:
    """Like :func:`as_array`, with bool/int promoted to float64 (float32 stays float32)."""
    arr = as_array(value, what)
    return arr if arr.dtype.kind == "f" else arr.astype(np.float64)


def to_float(value: Any, what: str) -> float:
    """A numeric scalar argument as a Python float (weak in NumPy promotion: float32 stays)."""
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(())[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise PhylanxTypeError(f"{what} must be a number, got a {type_name(value)}")
    return float(value)


def to_positive_ints(value: Any, count: int, what: str) -> tuple[int, ...]:
    """An int (repeated ``count`` times) or a list of ``count`` positive ints."""
    if isinstance(value, np.ndarray):
        value = value.tolist() if value.ndim else value[()]
    items = list(value) if isinstance(value, (list, tuple, range)) else [value] * count
    if len(items) != count:
        raise PhylanxValueError(f"{what} must be an integer or a list of {count} integers, "
                                f"got a list of {len(items)}")
    return tuple(to_count(item, what, 1) for item in items)


def to_padding_mode(value: Any, allowed: tuple[str, ...]) -> str:
    """The ``padding`` argument: one of ``allowed`` (case-insensitive)."""
    if not isinstance(value, str):
        raise PhylanxTypeError(f"padding must be a string, got a {type_name(value)}")
    mode = value.lower()
    if mode not in allowed:
        choices = ", ".join(f'"{a}"' for a in allowed)
        raise PhylanxValueError(f'padding must be one of {choices}, got "{value}"')
    return mode


def check_rank(arr: np.ndarray, ranks: tuple[int, ...], what: str) -> None:
    if arr.ndim not in ranks:
        expected = " or ".join(f"{r}-d" for r in ranks)
        raise PhylanxValueError(f"{what} must be a {expected} array, got shape {arr.shape}")


def effective_size(kernel: int, dilation: int) -> int:
    """Span of a dilated kernel: ``(k - 1) * d + 1``."""
    return (kernel - 1) * dilation + 1


def pad_amounts(lengths: tuple[int, ...], kernels: tuple[int, ...], strides: tuple[int, ...],
                dilations: tuple[int, ...], mode: str) -> list[tuple[int, int]]:
    """(before, after) padding per spatial axis, as TensorFlow computes it.

    "same": total = max((ceil(L/s) - 1)*s + (k-1)*d + 1 - L, 0), before = total // 2;
    "causal": (k-1)*d before, nothing after; "valid": none.
    """
    pads = []
    for length, k, s, d in zip(lengths, kernels, strides, dilations):
        span = effective_size(k, d)
        if mode == "same":
            total = max((-(-length // s) - 1) * s + span - length, 0)
            pads.append((total // 2, total - total // 2))
        elif mode == "causal":
            pads.append((span - 1, 0))
        else:
            pads.append((0, 0))
    return pads


def padded(x: np.ndarray, pads: list[tuple[int, int]], fill: Any = 0) -> np.ndarray:
    """``x`` (``(batch, *spatial, channels)``) with ``pads`` cells of ``fill`` around its
    spatial axes: ``np.pad``'s result, written as one filled buffer and one copy (its
    general code cost about 20 us more a call, twice per convolution's
    ``value_and_grad``, a fiftieth of a small Conv1D loss's call)."""
    shape = (x.shape[0], *(n + b + a for n, (b, a) in zip(x.shape[1:-1], pads)), x.shape[-1])
    # the fill converted as np.pad converts it (np.full casts unsafely: -inf into an int
    # array would be 0 or INT_MIN, where np.pad raises)
    out = np.zeros(shape, x.dtype) if fill == 0 else \
        np.full(shape, np.array(fill, x.dtype), x.dtype)
    out[(slice(None), *(slice(b, b + n) for n, (b, _) in zip(x.shape[1:-1], pads)))] = x
    return out


def window_view(x: np.ndarray, kernels: tuple[int, ...], strides: tuple[int, ...],
                dilations: tuple[int, ...], pads: list[tuple[int, int]],
                fill: Any = 0) -> np.ndarray:
    """Windows of a padded ``(batch, *spatial, channels)`` array.

    Returns a view of shape ``(batch, *out_spatial, channels, *kernels)``.  Raises if a
    spatial axis is shorter than the dilated kernel after padding.
    """
    nsp = len(kernels)
    if any(p != (0, 0) for p in pads):
        x = padded(x, pads, fill)
    spans = tuple(effective_size(k, d) for k, d in zip(kernels, dilations))
    for axis, (length, span) in enumerate(zip(x.shape[1:1 + nsp], spans)):
        if length < span:
            raise PhylanxValueError(
                f"spatial axis {axis + 1} has length {length} (after padding), shorter than "
                f"the window of {span}")
    view = sliding_window_view(x, spans, axis=tuple(range(1, 1 + nsp)))
    index = ((slice(None),) + tuple(slice(None, None, s) for s in strides) + (slice(None),)
             + tuple(slice(None, None, d) for d in dilations))
    return view[index]


def spatial_layout(arr: np.ndarray, nsp: int, what: str) -> tuple[np.ndarray, tuple[int, ...]]:
    """Bring an array of rank ``nsp`` .. ``nsp + 2`` to ``(batch, *spatial, channels)``.

    Rank ``nsp``: spatial axes only; ``nsp + 1``: spatial + channels; ``nsp + 2``:
    batch + spatial + channels (Keras channels-last).  Returns the array and its
    original shape, to restore the layout with :func:`restore_layout`.
    """
    check_rank(arr, (nsp + 2, nsp + 1, nsp), what)
    shape = arr.shape
    if arr.ndim == nsp:
        arr = arr[np.newaxis, ..., np.newaxis]
    elif arr.ndim == nsp + 1:
        arr = arr[np.newaxis]
    return arr, shape


def restore_layout(result: np.ndarray, original_shape: tuple[int, ...], nsp: int) -> np.ndarray:
    if len(original_shape) == nsp:
        return result[0, ..., 0]
    if len(original_shape) == nsp + 1:
        return result[0]
    return result
