"""Stride-1 convolutions and their gradients as shifted GEMMs, without window copies.

The input ``(batch, *spatial, channels)`` (padded already) is read as a matrix ``X`` of
``batch * prod(spatial)`` rows.  For stride 1, kernel tap ``t`` meets, at every output
position ``p`` (a row of the same flat numbering, output cells kept at their input
coordinates), the input row ``p + offset(t)``, ``offset(t) = sum_d t_d * dilation_d *
row_stride_d``.  So

* forward: ``Y[p] = sum_t X[p + offset(t)] @ K[t]``, one GEMM per tap on contiguous row
  ranges, accumulated in place (BLAS ``gemm`` with ``beta = 1``, ``blas_gemm.py``, which
  releases the GIL so that row blocks run in parallel); the rows of ``Y`` that
  are not output cells (the last ``k - 1`` of an axis) hold junk and are cut off;
* kernel gradient: ``dK[t] = X[offset(t):][:n].T @ CT[:n]``;
* input gradient: ``dX[offset(t):][:n] += CT[:n] @ K[t].T``;

where ``CT`` is the output cotangent placed at the output cells of a zero array shaped
like the input (so the junk rows contribute nothing, and no tap reaches across a batch
item: ``p + offset(t)`` stays in ``p``'s item exactly for output cells).  Every product
is one BLAS call on strided views; the only copies are the input's (contiguous, in the
result type) and the zero-embedded cotangent.  A per-tap slice of a window view, the
former form, costs a copy of the input per tap and an ``np.tensordot`` reshuffle.
Large convolutions run as row blocks on the task pool (``blas_blocks.py``), the
kernel's cotangent as one partial sum per block.
"""
from __future__ import annotations

import itertools

import numpy as np

from .. import blas_blocks
from ..blas_gemm import gemm
from . import _windows, conv_winograd

#: below this many input channels one product over copied windows wins (conv.py's
#: form): a GEMM per tap with a handful of columns is all call overhead
MIN_CHANNELS = 8


def shifted_gemm_fits(windows: np.ndarray, strides: tuple[int, ...]) -> bool:
    """Whether :func:`correlate` serves a convolution whose window view (``(B, *out, C,
    *k)``) is ``windows``: stride 1, some output, channels enough to pay a GEMM per tap."""
    return (all(s == 1 for s in strides) and windows.size > 0
            and windows.shape[-1 - (windows.ndim - 2) // 2] >= MIN_CHANNELS)


def padded(x: np.ndarray, pads: list[tuple[int, int]]) -> np.ndarray:
    """``x`` with zeros around its spatial axes (itself when no padding)."""
    if all(p == (0, 0) for p in pads):
        return x
    return _windows.padded(x, pads)


def _taps(spatial: tuple[int, ...], sizes: tuple[int, ...],
          dilations: tuple[int, ...]) -> list[tuple[tuple[int, ...], int]]:
    """(tap, row offset) of every kernel tap for an input of spatial shape ``spatial``."""
    row_strides = [int(np.prod(spatial[d + 1:], dtype=np.int64)) for d in range(len(spatial))]
    return [(tap, sum(t * dil * rs for t, dil, rs in zip(tap, dilations, row_strides)))
            for tap in itertools.product(*(range(n) for n in sizes))]


def _matrix(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return np.ascontiguousarray(x, dtype).reshape(-1, x.shape[-1])


def _out_sizes(spatial, sizes, dilations) -> tuple[int, ...]:
    return tuple(n - (k - 1) * d for n, k, d in zip(spatial, sizes, dilations))


def correlate(xpad: np.ndarray, kernel: np.ndarray, dilations: tuple[int, ...]) -> np.ndarray:
    """Stride-1 "valid" cross-correlation of a padded ``(B, *spatial, C)`` input with a
    ``(*k, C, O)`` kernel; every output size must be positive."""
    nsp = kernel.ndim - 2
    dtype = np.result_type(xpad, kernel)
    spatial, sizes = xpad.shape[1:1 + nsp], kernel.shape[:nsp]
    winograd = conv_winograd.kernels(xpad, kernel, dilations)
    if winograd is not None:
        acc = conv_winograd.correlate(winograd, xpad, kernel)
    else:
        acc = _shifted_products(xpad, kernel, dilations, dtype)
    out = acc.reshape(xpad.shape[:-1] + (kernel.shape[-1],))
    cells = (slice(None),) + tuple(slice(0, n) for n in _out_sizes(spatial, sizes, dilations))
    # the output cells as a view, as NumPy's slicing gives: its items are contiguous
    # blocks, and a copy of the whole output costs ~5% of W5's step
    return out[cells]


def _shifted_products(xpad: np.ndarray, kernel: np.ndarray, dilations: tuple[int, ...],
                      dtype: np.dtype) -> np.ndarray:
    """The rows of :func:`correlate`'s accumulator, one GEMM per tap."""
    nsp = kernel.ndim - 2
    x = _matrix(xpad, dtype)
    taps = _taps(xpad.shape[1:1 + nsp], kernel.shape[:nsp], dilations)
    rows = x.shape[0] - max(off for _, off in taps)        # every output cell is below
    acc = np.empty((x.shape[0], kernel.shape[-1]), dtype)
    k = kernel.astype(dtype, copy=False)

    def block(lo: int, hi: int) -> None:
        for i, (tap, off) in enumerate(taps):
            # beta 0 first: BLAS then never reads the uninitialised acc
            gemm(x[lo + off:hi + off], k[tap], acc[lo:hi], beta=1.0 if i else 0.0)
    blas_blocks.rows(rows, 2.0 * rows * x.shape[1] * k.shape[-1] * len(taps), block)
    return acc


def _placed(ct: np.ndarray, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """``ct`` at the output cells of a zero array of the input's ``shape`` (channels
    replaced by ``ct``'s), as rows."""
    placed = np.empty(shape[:-1] + (ct.shape[-1],), dtype)
    nsp = len(shape) - 2
    placed[(slice(None),) + tuple(slice(0, n) for n in ct.shape[1:1 + nsp])] = ct
    for d, n in enumerate(ct.shape[1:1 + nsp]):   # zero only what ct does not cover
        placed[(slice(None),) * (d + 1) + (slice(n, None),)] = 0
    return placed.reshape(-1, ct.shape[-1])


def _placed_rows(ct: np.ndarray, length: int, r0: int, r1: int,
                 dtype: np.dtype) -> np.ndarray:
    """Rows ``r0:r1`` of :func:`_placed` for a 1-d ``ct`` ``(B, n, O)`` and inputs of
    ``length`` positions: item ``b``'s row ``l`` is ``ct[b, l]`` for ``l < n``, else 0."""
    out = np.empty((r1 - r0, ct.shape[-1]), dtype)
    n = ct.shape[1]
    for b in range(r0 // length, (r1 - 1) // length + 1):
        first, last = max(r0, b * length) - b * length, min(r1, (b + 1) * length) - b * length
        at = b * length - r0
        if first < min(last, n):
            out[at + first:at + min(last, n)] = ct[b, first:min(last, n)]
        if max(first, n) < last:
            out[at + max(first, n):at + last] = 0
    return out


def correlate_vjp(xpad: np.ndarray, kernel: np.ndarray, ct: np.ndarray,
                  dilations: tuple[int, ...], need_x: bool = True,
                  need_k: bool = True) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Cotangents of the padded input and of the kernel of :func:`correlate` (None for
    one not needed)."""
    winograd = conv_winograd.kernels(xpad, kernel, dilations, ct)
    if winograd is not None:
        return conv_winograd.correlate_vjp(winograd, xpad, kernel, ct, need_x, need_k)
    nsp = kernel.ndim - 2
    dtype = np.result_type(xpad, kernel, ct)
    spatial, sizes = xpad.shape[1:1 + nsp], kernel.shape[:nsp]
    x = _matrix(xpad, dtype)
    taps = _taps(spatial, sizes, dilations)
    reach = max(off for _, off in taps)
    rows = x.shape[0] - reach
    # the cotangent placed at the output cells of an array shaped like the input: for
    # 1-d, each block places the rows it reads itself (in parallel, and in cache when
    # read; placing all of W5's cotangent first took 1-2 ms on one thread)
    cts = None if nsp == 1 else _placed(ct, xpad.shape, dtype)
    k = kernel.astype(dtype, copy=False)
    flops = 2.0 * rows * x.shape[1] * k.shape[-1] * len(taps)
    grad_x = np.empty(x.shape, dtype) if need_x else None
    # one pass over blocks of rows: each block's kernel partial sum over the rows below
    # ``rows`` and the input cotangent of its rows, while the block of ``cts`` both read
    # is in cache (two passes, one per cotangent, cost W5 about 2 ms more)
    bounds = blas_blocks.block_bounds(x.shape[0], flops * (need_x + need_k))
    partial = np.empty((len(bounds),) + kernel.shape, dtype) if need_k else None

    def block(lo: int, hi: int) -> None:
        base = max(lo - reach, 0) if cts is None else 0     # row of c[0]
        c = cts if cts is not None else _placed_rows(ct, xpad.shape[1], base, hi, dtype)
        if need_k:
            part = partial[bounds.index((lo, hi))]
            top = min(hi, rows)
            for tap, off in taps:
                if lo < top:
                    np.dot(x[lo + off:top + off].T, c[lo - base:top - base], out=part[tap])
                else:
                    part[tap] = 0
        if need_x:
            # row r gets CT[r - off] @ K[t].T; the first tap (offset 0) writes every
            # row below ``rows`` (beta 0), the rows past it are zeroed
            grad_x[max(lo, rows):hi] = 0
            for i, (tap, off) in enumerate(taps):
                first, last = max(lo - off, 0), min(hi - off, rows)
                if first < last:
                    gemm(c[first - base:last - base], k[tap].T,
                         grad_x[first + off:last + off], beta=1.0 if i else 0.0)
    blas_blocks.rows(x.shape[0], flops * (need_x + need_k), block, bounds)
    grad_k = None
    if need_k:
        grad_k = partial[0] if len(bounds) == 1 else partial.sum(axis=0)
    if not need_x:
        return None, grad_k
    return grad_x.reshape(xpad.shape[:-1] + (x.shape[-1],)), grad_k
