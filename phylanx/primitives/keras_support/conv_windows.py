"""Convolutions with few input channels, and their kernel's cotangent, as one GEMM over a
copied window matrix (im2col).

Why: with few input channels the other forms pay per output row for little arithmetic:
a shifted GEMM per kernel tap (``conv_gemm.py``) multiplies by a ``C x O`` slice whose
inner size ``C`` is too small for BLAS to run well, and Winograd's tiles
(``conv_winograd.py``) transform ``C``-vectors for two products each.  Copying every
window once into a matrix of ``prod(k) * C`` columns gives one product with an inner
size ``prod(k)`` times longer, on the calling thread (no fork-join: a block waiting
for a core another process holds costs more than the product at these sizes).

The window matrix has one row per output cell, ``(batch, *out)`` in C order, and its
columns in the kernel's own order ``(*k, C)``, so the kernel read as a ``(prod(k) * C,
O)`` matrix multiplies it: ``conv = windows @ K`` and ``dK = windows^T @ CT``.  Any
padding, stride and dilation: the window view (``_windows.window_view``) already
applies them.  The copy is made in the result dtype (float32 stays float32).

When: the matrix's row (``prod(k) * C`` elements) is at most :data:`ROW_BYTES` long;
``python benchmarks/conv_channels.py`` times this form against the others over channel
counts.
"""
from __future__ import annotations

import numpy as np

from ._windows import window_view

#: longest window-matrix row (bytes: kernel taps x input channels x item size) served
#: here.  Measured (``benchmarks/conv_channels.py``, kernel 5, 32 output channels, batch
#: 64 x length 128, one BLAS thread, loaded machine): forward 0.5-0.85x and kernel
#: cotangent 0.75-0.9x the other forms' CPU time up to 320 bytes (8-16 float32 channels,
#: 8 float64), mixed at 480 (24 float32 channels: 1.1x and 1.17x; 12 float64: 0.59x and
#: 0.99x), 1.0-2.5x slower from 640 bytes on, where the copy of the windows outweighs
#: the longer product: the bound lies between the last two sure cases.
ROW_BYTES = 384


def fits(x: np.ndarray, kernel: np.ndarray) -> bool:
    """Whether this form serves a convolution of ``x`` (``(B, *spatial, C)``) with
    ``kernel`` (``(*k, C, O)``) in their result dtype."""
    itemsize = np.result_type(x, kernel).itemsize
    return 0 < kernel.size and kernel.size // kernel.shape[-1] * itemsize <= ROW_BYTES


def matrix(x: np.ndarray, sizes: tuple[int, ...], strides: tuple[int, ...],
           dilations: tuple[int, ...], pads: list[tuple[int, int]],
           dtype: np.dtype) -> tuple[np.ndarray, tuple[int, ...]]:
    """The window matrix of ``x`` (rows: output cells, columns: ``(*k, C)``), a new
    C-contiguous array of ``dtype``, and the output's leading shape ``(B, *out)``."""
    nsp = len(sizes)
    windows = window_view(x, sizes, strides, dilations, pads)     # (B, *out, C, *k)
    ordered = np.moveaxis(windows, nsp + 1, -1)                   # (B, *out, *k, C)
    cells = ordered.shape[:nsp + 1]
    columns = int(np.prod(ordered.shape[nsp + 1:], dtype=np.int64))
    copy = np.empty(ordered.shape, dtype)
    np.copyto(copy, ordered, casting="same_kind")
    return copy.reshape(-1, columns), cells


def correlate(x: np.ndarray, kernel: np.ndarray, strides: tuple[int, ...],
              dilations: tuple[int, ...], pads: list[tuple[int, int]]) -> np.ndarray:
    """The convolution ``(B, *out, O)`` of checked operands (see ``conv.convolve``)."""
    nsp = kernel.ndim - 2
    dtype = np.result_type(x, kernel)
    windows, cells = matrix(x, kernel.shape[:nsp], strides, dilations, pads, dtype)
    weights = kernel.astype(dtype, copy=False).reshape(windows.shape[1], kernel.shape[-1])
    return (windows @ weights).reshape(*cells, kernel.shape[-1])


def kernel_cotangent(x: np.ndarray, kernel_shape: tuple[int, ...], ct: np.ndarray,
                     strides: tuple[int, ...], dilations: tuple[int, ...],
                     pads: list[tuple[int, int]], dtype: np.dtype) -> np.ndarray:
    """The kernel's cotangent of ``sum(conv(x, kernel) * ct)``: ``windows^T @ CT``."""
    nsp = len(kernel_shape) - 2
    windows, cells = matrix(x, kernel_shape[:nsp], strides, dilations, pads, dtype)
    rows = np.asarray(ct, dtype).reshape(windows.shape[0], kernel_shape[-1])
    return (windows.T @ rows).reshape(kernel_shape)
