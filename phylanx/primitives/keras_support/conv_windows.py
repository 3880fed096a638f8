"""Convolutions with few input channels, and their kernel's cotangent, as one GEMM over a
copied window matrix (im2col).

Why: with few input channels the other forms pay per output row for little arithmetic:
a shifted GEMM per kernel tap (``conv_gemm.py``) multiplies by a ``C x O`` slice whose
inner size ``C`` is too small for BLAS to run well, and Winograd's tiles
(``conv_winograd.py``) transform ``C``-vectors for two products each.  Copying every
window once into a matrix of ``prod(k) * C`` columns gives one product with an inner
size ``prod(k)`` times longer, on the calling thread when small (below
``blas_blocks.MIN_FLOPS`` a task hand-off costs more than the product; larger ones run
as blocks: *Both cores* below).

The window matrix has one row per output cell, ``(batch, *out)`` in C order, and its
columns in the kernel's own order ``(*k, C)``, so the kernel read as a ``(prod(k) * C,
O)`` matrix multiplies it: ``conv = windows @ K`` and ``dK = windows^T @ CT``.  Any
padding, stride and dilation: the window view (``_windows.window_view``) already
applies them.  The copy is made in the result dtype (float32 stays float32), at most
:data:`SLICE_BYTES` of it at a time (slices of the batch, of one item's output rows, of
one row's cells: whichever is outermost and fits).

When: the matrix's row (``prod(k) * C`` elements) is at most :data:`ROW_BYTES` long;
``python benchmarks/conv_channels.py`` times this form against the others over channel
counts.

Both cores: a product large enough for row blocks (``blas_blocks.block_bounds``: the
pool has two or more threads and the work is ``MIN_FLOPS`` or more) runs as blocks of
the batch on the task pool, one per pool thread, BLAS one thread each (``share_blas``),
each block copying its own windows and multiplying them into its rows of the output;
the kernel's cotangent as row blocks of the window matrix, their ``(K, O)`` products
summed in block order (the same bits for the same pool size).  Why not BLAS's own
threads: they split one product only (the copy stays on one core), and OpenBLAS's
second thread, when another process holds the core, keeps the caller waiting (a median
17 ms for a 0.2 ms product, loaded), where a block nobody took runs on the calling
thread.
"""
from __future__ import annotations

import math

import numpy as np

from ... import config
from ...runtime.executors import get_executor
from ...runtime.forkjoin import fork_join
from .. import blas_blocks
from ._windows import window_view

#: longest window-matrix row (bytes: kernel taps x input channels x item size) served
#: here.  Measured (``benchmarks/conv_channels.py``, kernel 5, 32 output channels, batch
#: 64 x length 128, one BLAS thread, loaded machine): forward 0.5-0.85x and kernel
#: cotangent 0.75-0.9x the other forms' CPU time up to 320 bytes (8-16 float32 channels,
#: 8 float64), mixed at 480 (24 float32 channels: 1.1x and 1.17x; 12 float64: 0.59x and
#: 0.99x), 1.0-2.5x slower from 640 bytes on, where the copy of the windows outweighs
#: the longer product: the bound lies between the last two sure cases.
ROW_BYTES = 384
#: most bytes of window matrix copied at a time: the copy is ``prod(k)`` times the
#: input's size (a 3 x 3 kernel over a large image), so larger convolutions run in slices
#: of the batch, of one item's first output axis, or of one output row (a wide image), a
#: product each
SLICE_BYTES = 16 << 20


def fits(x: np.ndarray, kernel: np.ndarray) -> bool:
    """Whether this form serves a convolution of ``x`` (``(B, *spatial, C)``) with
    ``kernel`` (``(*k, C, O)``) in their result dtype."""
    itemsize = np.result_type(x, kernel).itemsize
    return 0 < kernel.size and kernel.size // kernel.shape[-1] * itemsize <= ROW_BYTES


def _slices(cells: tuple[int, ...], row_bytes: int):
    """Index tuples over the output cells ``(B, *out)`` whose window matrices hold at most
    :data:`SLICE_BYTES` (or one row, if a row is longer): all at once, else ranges of the
    outermost axis whose single index fits, at every index of the axes before it (groups
    of batch items; ranges of one item's first output axis; of one output row's cells)."""
    if math.prod(cells) * row_bytes <= SLICE_BYTES:
        yield (slice(None),)
        return
    axis, one_index = len(cells) - 1, row_bytes     # bytes of one index along ``axis``
    while axis > 0 and one_index * cells[axis] <= SLICE_BYTES:
        one_index *= cells[axis]
        axis -= 1
    step = max(1, SLICE_BYTES // max(one_index, 1))
    for outer in np.ndindex(*cells[:axis]):
        for i in range(0, cells[axis], step):
            yield tuple(slice(o, o + 1) for o in outer) + (slice(i, i + step),)


def _windows(x: np.ndarray, sizes: tuple[int, ...], strides: tuple[int, ...],
             dilations: tuple[int, ...], pads: list[tuple[int, int]]) -> np.ndarray:
    """The window view of ``x`` ordered ``(B, *out, *k, C)`` (no copy yet)."""
    windows = window_view(x, sizes, strides, dilations, pads)     # (B, *out, C, *k)
    # np.moveaxis(windows, C's axis, -1) as one transpose (shape tuples of Python ints,
    # here and in math.prod below: NumPy's general helpers cost microseconds a call,
    # a fixed cost of every convolution's forward and rule)
    channels = len(sizes) + 1
    return windows.transpose((*range(channels), *range(channels + 1, windows.ndim), channels))


def _matrix(windows: np.ndarray, dtype: np.dtype, nsp: int) -> np.ndarray:
    """A copy of ``windows`` (``(b, *out, *k, C)``) in ``dtype``, one row per cell."""
    copy = np.empty(windows.shape, dtype)
    np.copyto(copy, windows, casting="same_kind")
    return copy.reshape(-1, math.prod(windows.shape[nsp + 1:]))


def correlate(x: np.ndarray, kernel: np.ndarray, strides: tuple[int, ...],
              dilations: tuple[int, ...], pads: list[tuple[int, int]]) -> np.ndarray:
    """The convolution ``(B, *out, O)`` of checked operands (see ``conv.convolve``)."""
    return correlate_keeping(x, kernel, strides, dilations, pads)[0]


def correlate_keeping(x: np.ndarray, kernel: np.ndarray, strides: tuple[int, ...],
                      dilations: tuple[int, ...], pads: list[tuple[int, int]]
                      ) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`correlate` and the window matrix it multiplied, when it made one (one
    slice: the matrix is at most :data:`SLICE_BYTES`), else None: the kernel's
    cotangent is that matrix's product too (:func:`kernel_cotangent_of`), so a reverse
    pass that keeps it copies the windows once instead of twice."""
    nsp = kernel.ndim - 2
    dtype = np.result_type(x, kernel)
    windows = _windows(x, kernel.shape[:nsp], strides, dilations, pads)
    cells = windows.shape[:nsp + 1]
    weights = kernel.astype(dtype, copy=False).reshape(-1, kernel.shape[-1])
    parts = list(_slices(cells, weights.shape[0] * dtype.itemsize))
    if len(parts) == 1:
        blocks = _item_blocks(cells, weights.shape)
        if len(blocks) > 1:
            return _blocked_correlate(windows, weights, dtype, blocks)
        # the one product is the output: a second buffer of the output's size, filled by
        # copy, costs more than the product at few channels (fresh pages, twice per call)
        matrix = _matrix(windows, dtype, nsp)
        return (matrix @ weights).reshape(*cells, kernel.shape[-1]), matrix
    out = np.empty((*cells, kernel.shape[-1]), dtype)
    for part in parts:
        # each part's product goes straight into its rows of the output: a product
        # buffer copied in would write (and page in) the output's bytes twice.  A part
        # is single indices, one range, then whole axes: contiguous, so the reshape is
        # a view (``copy=False`` raises rather than write into a copy)
        np.matmul(_matrix(windows[part], dtype, nsp), weights,
                  out=out[part].reshape(-1, kernel.shape[-1], copy=False))
    return out, None


def _block_count(rows: int, flops: float) -> int:
    """How many blocks a window product of ``rows`` rows and ``flops`` work runs as:
    one when ``blas_blocks.block_bounds`` does not split it, else one per pool thread.
    Why not ``block_bounds``' four per thread: these products take 0.2-0.5 ms, and each
    block more costs a task hand-off (``python benchmarks/conv_window_blocks.py``'s
    Conv1D loss, load 23-27, wall (CPU) ms a call with 8 / 4 / 2 blocks: 54 (8.1) / 44
    (5.4) / 37 (4.3) with BLAS's default threads, 41 (4.1) / 42 (4.0) / 38 (4.0) with
    one BLAS thread)."""
    if not config.get("conv_blocks"):
        # off by default: on an idle machine one threaded BLAS call was faster (setting)
        return 1
    count = len(blas_blocks.block_bounds(rows, flops))
    return 1 if count == 1 else min(count, get_executor().num_threads)


def _ranges(count: int, blocks: int) -> list[tuple[int, int]]:
    """``range(count)`` cut into at most ``blocks`` ranges of (nearly) equal length; an
    empty range is one empty block (a rank's empty batch tile: the one-product path)."""
    if count <= 0:
        return [(0, 0)]
    step = -(-count // max(min(blocks, count), 1))
    return [(lo, min(lo + step, count)) for lo in range(0, count, step)]


def _item_blocks(cells: tuple[int, ...], weights_shape: tuple[int, int]
                 ) -> list[tuple[int, int]]:
    """Ranges of batch items for a window product over ``cells`` (``(B, *out)``) with a
    ``weights_shape`` matrix (:func:`_block_count` of them, at most one per item)."""
    rows = math.prod(cells)
    return _ranges(cells[0], _block_count(rows, 2.0 * rows * weights_shape[0] *
                                          weights_shape[1]))


def _blocked_correlate(windows: np.ndarray, weights: np.ndarray, dtype: np.dtype,
                       blocks: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """The output and the window matrix of :func:`correlate_keeping`, blocks of the
    batch concurrently: each copies its items' windows into its rows of the matrix and
    multiplies them into its rows of the output (both written in place: no buffer of
    a block's own, no copy after)."""
    matrix = np.empty(windows.shape, dtype)                  # (B, *out, *k, C)
    nsp = (windows.ndim - 2) // 2
    out = np.empty((*windows.shape[:nsp + 1], weights.shape[1]), dtype)

    def block(lo: int, hi: int) -> None:
        np.copyto(matrix[lo:hi], windows[lo:hi], casting="same_kind")
        np.matmul(matrix[lo:hi].reshape(-1, weights.shape[0]), weights,
                  out=out[lo:hi].reshape(-1, weights.shape[1], copy=False))

    fork_join([lambda lo=lo, hi=hi: block(lo, hi) for lo, hi in blocks], share_blas=True,
              quiet=[True] * len(blocks))      # a block computes, never communicates
    return out, matrix.reshape(-1, weights.shape[0])


def _windows_t_product(matrix: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``matrix.T @ rows`` (a ``(K, O)`` sum over many rows): row blocks of both
    concurrently (:func:`_block_count`), their products summed in block order."""
    count, columns = matrix.shape
    bounds = _ranges(count, _block_count(count, 2.0 * count * columns * rows.shape[1]))
    if len(bounds) == 1:
        return matrix.T @ rows
    pieces = fork_join([lambda lo=lo, hi=hi: matrix[lo:hi].T @ rows[lo:hi]
                        for lo, hi in bounds], share_blas=True, quiet=[True] * len(bounds))
    total = pieces[0]
    for piece in pieces[1:]:
        total += piece
    return total


def kernel_cotangent(x: np.ndarray, kernel_shape: tuple[int, ...], ct: np.ndarray,
                     strides: tuple[int, ...], dilations: tuple[int, ...],
                     pads: list[tuple[int, int]], dtype: np.dtype) -> np.ndarray:
    """The kernel's cotangent of ``sum(conv(x, kernel) * ct)``: ``windows^T @ CT``."""
    nsp = len(kernel_shape) - 2
    windows = _windows(x, kernel_shape[:nsp], strides, dilations, pads)
    ct = np.asarray(ct)
    columns = math.prod(kernel_shape[:-1])
    total = None
    for part in _slices(windows.shape[:nsp + 1], columns * np.dtype(dtype).itemsize):
        rows = np.asarray(ct[part], dtype).reshape(-1, kernel_shape[-1])
        piece = _windows_t_product(_matrix(windows[part], dtype, nsp), rows)
        total = piece if total is None else total + piece
    return total.reshape(kernel_shape)


def kernel_cotangent_of(matrix: np.ndarray, kernel_shape: tuple[int, ...], ct: np.ndarray,
                        dtype: np.dtype) -> np.ndarray | None:
    """:func:`kernel_cotangent` from the window matrix the forward convolution made
    (:func:`correlate_keeping`), or None when ``matrix`` cannot be that matrix for
    ``ct`` (another dtype, or not one row per output cell and one column per kernel
    row): the caller then builds the windows again."""
    ct = np.asarray(ct)
    columns = math.prod(kernel_shape[:-1])
    rows = ct.size // max(kernel_shape[-1], 1)
    if (type(matrix) is not np.ndarray or matrix.dtype != dtype or matrix.ndim != 2
            or matrix.shape != (rows, columns) or ct.shape[-1] != kernel_shape[-1]):
        return None
    return _windows_t_product(matrix, np.asarray(ct, dtype).reshape(rows, -1)
                              ).reshape(kernel_shape)
