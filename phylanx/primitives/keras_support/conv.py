"""Keras-support convolutions (channels-last): conv1d, conv2d, separable_conv1d, conv2d_transpose.

Layouts follow the Keras backend: inputs ``(batch, *spatial, channels)``, kernels
``(*kernel_size, in_channels, out_channels)`` (``conv2d_transpose``: ``(kh, kw,
out_channels, in_channels)``).  Padding is TensorFlow's ("same" puts the odd pixel
after, "causal" pads ``(k-1)*d`` before).  Each convolution is one ``tensordot``
over a strided, dilated window view of the padded input: with few input channels one GEMM
over a copy of the windows (``conv_windows.py``); a 1-d one (dilation 1) with windows
longer than that form takes, up to 1 KiB, as a few GEMMs over the window matrix read in
place (``conv_rows.py``); stride 1 with 8 or more channels as shifted GEMMs
(``conv_gemm.py``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import PhylanxValueError
from ..registry import primitive
from . import conv_rows, conv_windows
from ._windows import (
    as_float_array,
    check_rank,
    effective_size,
    pad_amounts,
    to_padding_mode,
    to_positive_ints,
    window_view,
)
from .conv_gemm import correlate, padded, shifted_gemm_fits

_NO_ORACLE = ("NumPy has no convolution of this layout; checked against loop references "
              "(and torch when installed) in tests/primitives/test_keras_conv.py")


def _operand(value: Any, what: str) -> np.ndarray:
    """A convolution operand: bool and int are read as float64, as the original reads them
    (compat addendum A.2: the result is float64); float32 stays float32."""
    return as_float_array(value, what)


def _check_channels(x: np.ndarray, kernel: np.ndarray, axis: int) -> None:
    if kernel.shape[axis] != x.shape[-1]:
        raise PhylanxValueError(
            f"kernel expects {kernel.shape[axis]} input channels (kernel shape {kernel.shape}), "
            f"but the input has {x.shape[-1]} (input shape {x.shape})")


#: From this many input channels on, a loop over kernel taps (one BLAS product of a
#: strided slice per tap) beats one product over a copied window view: the copy of the
#: windows costs more than the products when channels are many.
_TAP_LOOP_MIN_CHANNELS = 8


def convolve(x: np.ndarray, kernel: np.ndarray, padding: str, strides: tuple[int, ...],
             dilations: tuple[int, ...]) -> np.ndarray:
    """N-d channels-last convolution (cross-correlation, as in Keras) of checked operands."""
    nsp = kernel.ndim - 2
    sizes = kernel.shape[:nsp]
    pads = pad_amounts(x.shape[1:1 + nsp], sizes, strides, dilations, padding)
    if conv_windows.fits(x, kernel):
        return conv_windows.correlate(x, kernel, strides, dilations, pads)
    if conv_rows.fits(x, kernel, strides, dilations, pads):
        return conv_rows.correlate(x, kernel, strides, pads)
    windows = window_view(x, sizes, strides, dilations, pads)   # (B, *out, C, *k)
    if shifted_gemm_fits(windows, strides):
        return correlate(padded(x, pads), kernel, dilations)
    if x.shape[-1] < _TAP_LOOP_MIN_CHANNELS:
        window_axes = list(range(nsp + 1, 2 * nsp + 2))          # C, *k
        kernel_axes = [nsp, *range(nsp)]                         # C, *k
        return np.tensordot(windows, kernel, axes=(window_axes, kernel_axes))
    out_shape = windows.shape[:nsp + 1]
    result = np.zeros((int(np.prod(out_shape)), kernel.shape[-1]), np.result_type(x, kernel))
    for tap in np.ndindex(*sizes):
        # windows[..., C, *tap] is the input cell that kernel[tap] meets at every output.
        cells = windows[(Ellipsis, slice(None), *tap)]
        result += cells.reshape(-1, x.shape[-1]) @ kernel[tap]
    return result.reshape(*out_shape, kernel.shape[-1])


@primitive(
    "conv1d",
    'conv1d(_1, _2_kernel, __arg(_3_padding, "valid"), __arg(_4_strides, 1), '
    "__arg(_5_dilation_rate, 1))",
    no_oracle=_NO_ORACLE, differentiable=True,
    example="conv1d([[[1.], [2.], [3.], [4.]]], [[[1.]], [[1.]]])",
    result="[[[3.], [5.], [7.]]]",
)
def conv1d(x, kernel, padding="valid", strides=1, dilation_rate=1):
    """1-d convolution of ``(batch, length, channels)`` with a ``(k, in, out)`` kernel.

    ``padding`` is "valid", "same" (TensorFlow's: output length ceil(L/s)) or "causal"
    (``(k-1)*dilation_rate`` zeros on the left); ``strides`` and ``dilation_rate`` are
    integers, not both above 1 (as in the original and Keras).  Like Keras, this is a
    cross-correlation (the kernel is not flipped).
    """
    return convolve(*_conv1d_operands(x, kernel, padding, strides, dilation_rate))


def _conv1d_operands(x, kernel, padding, strides, dilation_rate) -> tuple:
    """conv1d's operands checked: ``(x, kernel, mode, strides, dilations)``."""
    x = _operand(x, "input")
    kernel = _operand(kernel, "kernel")
    check_rank(x, (3,), "input (batch, length, channels)")
    check_rank(kernel, (3,), "kernel (kernel_size, in_channels, out_channels)")
    _check_channels(x, kernel, 1)
    mode = to_padding_mode(padding, ("valid", "same", "causal"))
    strides_ = to_positive_ints(strides, 1, "strides")
    dilations = to_positive_ints(dilation_rate, 1, "dilation_rate")
    if strides_[0] > 1 and dilations[0] > 1:
        raise PhylanxValueError(f"strides > 1 ({strides_[0]}) together with a "
                                f"dilation_rate > 1 ({dilations[0]}) is not supported")
    return x, kernel, mode, strides_, dilations


def convolve_keeping(x: np.ndarray, kernel: np.ndarray, padding: str,
                     strides: tuple[int, ...], dilations: tuple[int, ...]
                     ) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`convolve` and the window matrix it multiplied (few input channels, one
    slice: ``conv_windows.correlate_keeping``), else None."""
    if conv_windows.fits(x, kernel):
        pads = pad_amounts(x.shape[1:-1], kernel.shape[:-2], strides, dilations, padding)
        return conv_windows.correlate_keeping(x, kernel, strides, dilations, pads)
    return convolve(x, kernel, padding, strides, dilations), None


def conv1d_keeping(x, kernel, padding="valid", strides=1, dilation_rate=1) -> tuple:
    """``conv1d``'s result and the window matrix it multiplied, or None (what the
    kernel's cotangent would copy again: ``autodiff/saved.py`` keeps it for the
    reverse pass)."""
    return convolve_keeping(*_conv1d_operands(x, kernel, padding, strides, dilation_rate))


def conv2d_keeping(x, kernel, padding="valid", strides=(1, 1), dilation_rate=(1, 1)) -> tuple:
    """``conv2d``'s result and its window matrix, or None (as :func:`conv1d_keeping`)."""
    return convolve_keeping(*_conv2d_operands(x, kernel, padding, strides, dilation_rate))


@primitive(
    "conv2d",
    'conv2d(_1, _2_kernel, __arg(_3_padding, "valid"), __arg(_4_strides, list(1,1)), '
    "__arg(_5_dilation_rate, list(1,1)))",
    no_oracle=_NO_ORACLE, differentiable=True,
    example="conv2d([[[[1.], [2.]], [[3.], [4.]]]], [[[[1.]], [[1.]]], [[[1.]], [[1.]]]])",
    result="[[[[10.]]]]",
)
def conv2d(x, kernel, padding="valid", strides=(1, 1), dilation_rate=(1, 1)):
    """2-d convolution of ``(batch, rows, cols, channels)`` with a ``(kh, kw, in, out)`` kernel.

    ``padding`` is "valid" or "same" (TensorFlow's); ``strides`` and ``dilation_rate``
    are an integer or a list of two.
    """
    return convolve(*_conv2d_operands(x, kernel, padding, strides, dilation_rate))


def _conv2d_operands(x, kernel, padding, strides, dilation_rate) -> tuple:
    """conv2d's operands checked: ``(x, kernel, mode, strides, dilations)``."""
    x = _operand(x, "input")
    kernel = _operand(kernel, "kernel")
    check_rank(x, (4,), "input (batch, rows, cols, channels)")
    check_rank(kernel, (4,), "kernel (rows, cols, in_channels, out_channels)")
    _check_channels(x, kernel, 2)
    mode = to_padding_mode(padding, ("valid", "same"))
    return (x, kernel, mode, to_positive_ints(strides, 2, "strides"),
            to_positive_ints(dilation_rate, 2, "dilation_rate"))


@primitive(
    "separable_conv1d",
    "separable_conv1d(_1, _2_depthwise_kernel, _3_pointwise_kernel, "
    '__arg(_4_padding, "valid"), __arg(_5_strides, 1), __arg(_6_dilation_rate, 1))',
    no_oracle=_NO_ORACLE,
    example="separable_conv1d([[[1.], [2.], [3.]]], [[[1.]], [[2.]]], [[[3.]]])",
    result="[[[15.], [24.]]]",
)
def separable_conv1d(x, depthwise_kernel, pointwise_kernel, padding="valid", strides=1,
                     dilation_rate=1):
    """Depthwise-separable 1-d convolution: a per-channel conv, then a 1x1 conv.

    ``depthwise_kernel`` is ``(k, in_channels, depth_multiplier)``: channel ``c`` is
    convolved with ``depthwise_kernel[:, c, m]`` into channel ``c*depth_multiplier + m``;
    ``pointwise_kernel`` is ``(1, in_channels*depth_multiplier, out_channels)``.  Strides
    and dilation apply to the depthwise step, padding as in ``conv1d``.
    """
    x = _operand(x, "input")
    depthwise = _operand(depthwise_kernel, "depthwise_kernel")
    pointwise = _operand(pointwise_kernel, "pointwise_kernel")
    check_rank(x, (3,), "input (batch, length, channels)")
    check_rank(depthwise, (3,), "depthwise_kernel (kernel_size, in_channels, multiplier)")
    check_rank(pointwise, (3,), "pointwise_kernel (1, in_channels*multiplier, out_channels)")
    _check_channels(x, depthwise, 1)
    channels, multiplier = depthwise.shape[1:]
    if pointwise.shape[:2] != (1, channels * multiplier):
        raise PhylanxValueError(
            f"pointwise_kernel must have shape (1, {channels * multiplier}, out_channels), "
            f"got {pointwise.shape}")
    mode = to_padding_mode(padding, ("valid", "same", "causal"))
    strides_ = to_positive_ints(strides, 1, "strides")
    dilations = to_positive_ints(dilation_rate, 1, "dilation_rate")
    pads = pad_amounts(x.shape[1:2], depthwise.shape[:1], strides_, dilations, mode)
    windows = window_view(x, depthwise.shape[:1], strides_, dilations, pads)  # (B, L', C, k)
    per_channel = np.einsum("blck,kcm->blcm", windows, depthwise)
    per_channel = per_channel.reshape(*per_channel.shape[:2], channels * multiplier)
    return np.tensordot(per_channel, pointwise[0], axes=([2], [0]))


def _transpose_geometry(in_len: int, out_len: int, k: int, s: int, d: int,
                        pad: tuple[int, int], axis: int) -> None:
    """Check that a forward conv of ``out_len`` (with ``pad``) yields ``in_len`` positions."""
    padded = out_len + pad[0] + pad[1]
    span = effective_size(k, d)
    forward = (padded - span) // s + 1 if padded >= span else 0
    if forward != in_len:
        raise PhylanxValueError(
            f"output_shape axis {axis} of {out_len} does not match the input: a convolution "
            f"of length {out_len} gives {forward} positions, the input has {in_len}")


def _output_shape(value: Any, batch: int, channels: int) -> tuple[int, ...]:
    """``output_shape`` of conv2d_transpose as (batch, rows, cols, channels), checked."""
    if isinstance(value, np.ndarray):
        value = value.tolist() if value.ndim else [value[()]]
    length = len(value) if isinstance(value, (list, tuple, range)) else 1
    if length not in (2, 4):
        raise PhylanxValueError("output_shape must be a list (batch, rows, cols, channels) "
                                f"or (rows, cols), got {length} values")
    out = to_positive_ints(value, length, "output_shape")
    if length == 2:
        out = (batch, *out, channels)
    if out[0] != batch or out[3] != channels:
        raise PhylanxValueError(f"output_shape {list(out)} must be (batch={batch}, rows, cols, "
                                f"out_channels={channels})")
    return out


@primitive(
    "conv2d_transpose",
    "conv2d_transpose(_1, _2_kernel, _3_output_shape, "
    '__arg(_4_padding, "valid"), __arg(_5_strides, list(1,1)), '
    "__arg(_6_dilation_rate, list(1,1)))",
    no_oracle=_NO_ORACLE,
    example="conv2d_transpose([[[[1.], [2.]]]], [[[[1.]], [[1.]]]], list(1, 1, 3, 1))",
    result="[[[[1.], [3.], [2.]]]]",
)
def conv2d_transpose(x, kernel, output_shape, padding="valid", strides=(1, 1),
                     dilation_rate=(1, 1)):
    """Transposed 2-d convolution (the adjoint of ``conv2d``) producing ``output_shape``.

    ``x`` is ``(batch, rows, cols, in_channels)``, ``kernel`` ``(kh, kw, out_channels,
    in_channels)`` (Keras order) and ``output_shape`` ``(batch, out_rows, out_cols,
    out_channels)`` (or just ``(out_rows, out_cols)``).  ``conv2d`` of an
    ``output_shape`` array with the same kernel, padding, strides and dilation must
    give ``x``'s shape, as TensorFlow requires.
    """
    x = _operand(x, "input")
    kernel = _operand(kernel, "kernel")
    check_rank(x, (4,), "input (batch, rows, cols, channels)")
    check_rank(kernel, (4,), "kernel (rows, cols, out_channels, in_channels)")
    if kernel.shape[3] != x.shape[3]:
        raise PhylanxValueError(
            f"kernel expects {kernel.shape[3]} input channels in its last axis (kernel shape "
            f"{kernel.shape}), but the input has {x.shape[3]}")
    out = _output_shape(output_shape, x.shape[0], kernel.shape[2])
    mode = to_padding_mode(padding, ("valid", "same"))
    strides_ = to_positive_ints(strides, 2, "strides")
    dilations = to_positive_ints(dilation_rate, 2, "dilation_rate")
    sizes = kernel.shape[:2]
    pads = pad_amounts(out[1:3], sizes, strides_, dilations, mode)
    for axis in (0, 1):
        _transpose_geometry(x.shape[1 + axis], out[1 + axis], sizes[axis], strides_[axis],
                            dilations[axis], pads[axis], axis + 1)
    (top, bottom), (left, right) = pads
    dtype = np.result_type(x, kernel)
    buffer = np.zeros((out[0], out[1] + top + bottom, out[2] + left + right, out[3]), dtype)
    rows, cols = x.shape[1:3]
    # Scatter each kernel tap's contribution at once: a loop over the (few) taps,
    # every one a strided slice-add of a whole tensordot result.
    for p in range(sizes[0]):
        for q in range(sizes[1]):
            r0, c0 = p * dilations[0], q * dilations[1]
            buffer[:, r0:r0 + (rows - 1) * strides_[0] + 1:strides_[0],
                   c0:c0 + (cols - 1) * strides_[1] + 1:strides_[1], :] += np.tensordot(
                x, kernel[p, q], axes=([3], [1]))
    return buffer[:, top:top + out[1], left:left + out[2], :]
