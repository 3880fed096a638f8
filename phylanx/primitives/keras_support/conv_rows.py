"""1-d convolutions (dilation 1) and their kernel's cotangent as a few BLAS products on
the input itself: the window matrix read in place, never copied.

Why: the window matrix of a channels-last 1-d convolution (``conv_windows.py``: one row
per output position, the ``k * C`` input values it meets) is, in a C-contiguous input,
already in memory: the window of flat position ``t`` (``batch * length`` positions,
stride ``s``) is the ``k * C`` contiguous elements from ``t * s * C`` on.  Consecutive
windows overlap (they start ``s * C`` apart), which BLAS cannot read as one matrix (its
leading dimension must be at least the row length); but every ``g``-th window, ``g =
ceil(k / s)``, starts ``g * s * C >= k * C`` elements after the previous one: a plain
strided matrix.  So the windows fall into ``g`` matrices (positions ``j, j + g, j +
2g, ...``), each a view of the input, and

* forward: ``Y[j::g] = M_j @ K`` (``K`` the kernel as a ``(k * C, O)`` matrix), each
  product written straight into its rows of ``Y``;
* kernel cotangent: ``dK = sum_j M_j^T @ CT[j::g]``;

a row partition of ``Y = M @ K`` and of ``M^T @ CT = sum_rows``, the same products as
the copied window matrix (cg43, conv44) without its copy (``k`` times the input), a
product with an inner size ``k`` times the shifted GEMMs' (``conv_gemm.py``).  XLA's
convolution makes no window matrix either.  Served where the copy form stops (its
windows are shorter: there, in a whole ``value_and_grad``, the kept copy serves the
kernel's cotangent in one product and this form did not gain) up to :data:`ROW_BYTES`,
with BLAS on one thread (:func:`one_blas_thread`).

Flat positions run over the batch: position ``t = b * R + l`` (``R`` positions per item,
the padded length over the stride) is a real output for ``l < out_length``, else a junk
row whose window reaches into the next item (or past the padded end: those are not
computed).  The forward copies the real rows out of ``Y``; the cotangent is embedded in
zeros at the junk rows, so they add nothing.  The padded input (a copy of the input's size)
is made only for "same"/"causal" padding, or when the stride does not divide the length.
"""
from __future__ import annotations

import os

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ... import config
from ...runtime import blas_threads

#: longest window (bytes: kernel taps x input channels x item size) served here; the
#: shorter windows the copied form takes first (``conv_windows.ROW_BYTES``, ``conv.py``
#: asks it first).  Measured (one BLAS thread, loaded machine, CPU, conv50): forward and
#: kernel cotangent 0.2-0.5x the shifted-GEMM and Winograd forms' time from 448 to 896
#: bytes (16 and 32 channels, kernel 5-7, float32 and float64); at 128 channels
#: (1536-3584 bytes) Winograd is 0.65-0.8x this one's at batch 128 (fewer
#: multiplications).  Where the copy serves, this form alone was faster too, but not
#: in the whole ``value_and_grad`` (the copy is kept for the kernel's cotangent: one
#: product against this form's ``ceil(k/s)`` over an embedded cotangent, and the next
#: element-wise pass reads this form's output as a strided view): 1.05x its CPU.
ROW_BYTES = 1024


def one_blas_thread() -> bool:
    """Whether BLAS now runs a product on one thread (``OPENBLAS_NUM_THREADS=1``, an MPI
    rank, a block of ``share_blas``).  Why it matters: this form makes ``ceil(k/s)``
    products where the others make one or a few, and each product of a threaded BLAS
    forks and joins its threads; on a loaded machine each join waits for a preempted
    thread (conv50, default threads, load 33-35, CPU per ``value_and_grad`` call: 16->32
    channels, kernel 7, batch 128 float32 49-60 ms against 23-25 without this form,
    batch 64 float64 kernel 5 32 against 17; with one BLAS thread 7.5-8.2 against
    15.8-19.1 and 7.2 against 9.3).  Idle, with BLAS's threads, not measured: off."""
    count = blas_threads.current()
    return count == 1 if count is not None else (os.cpu_count() or 1) == 1


def fits(x: np.ndarray, kernel: np.ndarray, strides: tuple[int, ...],
         dilations: tuple[int, ...], pads: list[tuple[int, int]]) -> bool:
    """Whether this form can serve the 1-d convolution of ``x`` (``(B, L, C)``) with
    ``kernel`` (``(k, C, O)``): the setting ``conv_rows`` on, dilation 1, float32 or
    float64 result, a window of at most :data:`ROW_BYTES`, some output, BLAS on one
    thread (:func:`one_blas_thread`; ``conv.py`` asks the copied window form first)."""
    if kernel.ndim != 3 or dilations[0] != 1 or not config.get("conv_rows"):
        return False
    dtype = np.result_type(x, kernel)
    if dtype != np.float32 and dtype != np.float64:
        return False
    padded_length = x.shape[1] + pads[0][0] + pads[0][1]
    return (x.shape[0] > 0 and kernel.size > 0 and x.shape[2] > 0
            and padded_length >= kernel.shape[0]
            and kernel.shape[0] * kernel.shape[1] * dtype.itemsize <= ROW_BYTES
            and one_blas_thread())


def _input(x: np.ndarray, size: int, stride: int, pad: tuple[int, int],
           dtype: np.dtype) -> tuple[np.ndarray, int, int]:
    """The flat padded input (C order, ``dtype``), the positions per item ``R`` and the
    real outputs per item.  Each item is padded to ``R * stride`` cells so that every
    item's first window starts on the stride."""
    batch, length, channels = x.shape
    padded_length = length + pad[0] + pad[1]
    outputs = (padded_length - size) // stride + 1
    rows = -(-padded_length // stride)
    cells = rows * stride
    if pad == (0, 0) and cells == length:
        flat = np.ascontiguousarray(x, dtype)
    else:
        flat = np.zeros((batch, cells, channels), dtype)
        flat[:, pad[0]:pad[0] + length] = x
    return flat.reshape(-1), rows, outputs


def _groups(flat: np.ndarray, positions: int, size: int, stride: int, channels: int):
    """``(j, g, M_j)`` for the window matrices read in place (module doc): the windows of
    positions ``j, j + g, ...`` that end within ``flat``, as a read-only strided view."""
    step = -(-size // stride)
    width = size * channels
    item = flat.itemsize
    for j in range(min(step, positions)):
        start = j * stride * channels
        count = (flat.size - width - start) // (step * stride * channels) + 1
        if count <= 0:
            continue
        yield j, step, as_strided(flat[start:], shape=(count, width),
                                  strides=(step * stride * channels * item, item),
                                  writeable=False)


def correlate(x: np.ndarray, kernel: np.ndarray, strides: tuple[int, ...],
              pads: list[tuple[int, int]]) -> np.ndarray:
    """The convolution ``(B, out, O)`` of checked operands (``fits``): the real rows of
    the ``g`` window products, made contiguous (a strided view cost the next element-wise
    pass as much as this copy, and a tile sent as a message must be contiguous)."""
    size, channels, outs = kernel.shape
    dtype = np.result_type(x, kernel)
    flat, rows, outputs = _input(x, size, strides[0], pads[0], dtype)
    weights = kernel.astype(dtype, copy=False).reshape(size * channels, outs)
    y = np.empty((x.shape[0] * rows, outs), dtype)
    for j, step, matrix in _groups(flat, y.shape[0], size, strides[0], channels):
        np.matmul(matrix, weights, out=y[j::step][:matrix.shape[0]])
    return np.ascontiguousarray(y.reshape(x.shape[0], rows, outs)[:, :outputs])


def kernel_cotangent(x: np.ndarray, kernel_shape: tuple[int, ...], ct: np.ndarray,
                     strides: tuple[int, ...], pads: list[tuple[int, int]],
                     dtype: np.dtype) -> np.ndarray:
    """The kernel's cotangent of ``sum(conv(x, kernel) * ct)``: ``sum_j M_j^T @ CT_j``
    with ``CT`` zero at the junk rows."""
    size, channels, outs = kernel_shape
    flat, rows, outputs = _input(x, size, strides[0], pads[0], dtype)
    batch = x.shape[0]
    if rows == outputs and ct.dtype == dtype and ct.flags.c_contiguous:
        full = ct.reshape(-1, outs)
    else:
        embedded = np.empty((batch, rows, outs), dtype)
        embedded[:, :outputs] = ct
        embedded[:, outputs:] = 0
        full = embedded.reshape(-1, outs)
    total = None
    for j, step, matrix in _groups(flat, full.shape[0], size, strides[0], channels):
        piece = matrix.T @ full[j::step][:matrix.shape[0]]
        total = piece if total is None else total + piece
    return total.reshape(kernel_shape)
