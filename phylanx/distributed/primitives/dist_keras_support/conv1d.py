"""``conv1d_d``: Keras conv1d on a tiled (batch, length, channels) input (reference §4.3).

The input may be tiled by batch (pages: data parallel), by length (rows: spatial)
or both; the channels must not be split.  Each locality computes the outputs whose
window starts in its length span (output o starts at input o * strides - padding),
so the output is tiled like the input.  The input a window needs beyond the tile
(the halo) is fetched from the neighbours, and the zero padding of valid/same/
causal is applied only where the window leaves the array; the local computation
is the single-process ``conv1d`` on that padded segment.
"""
from __future__ import annotations

import numpy as np

from .... import distributed as api
from ....errors import PhylanxValueError
from ....primitives.dtypes import to_int
from ....primitives.keras_support._windows import to_padding_mode
from ....primitives.keras_support.conv import conv1d
from ....primitives.registry import primitive
from ... import tiles
from ...darray import DistributedArray, as_tiled
from ...tiles import Layout
from .._support import ORDERED, lockstep


def _geometry(length: int, width: int, mode: str, stride: int, dilation: int):
    """(output length, zeros added on the left) of Keras conv1d."""
    span = dilation * (width - 1) + 1
    if mode == "valid":
        return max((length - span) // stride + 1, 0), 0
    if mode == "causal":
        return (length - 1) // stride + 1, span - 1
    out = -(-length // stride)
    total = max((out - 1) * stride + span - length, 0)
    return out, total // 2


def _output_span(span: tuple[int, int], stride: int, out_len: int) -> tuple[int, int]:
    """Outputs whose window start (o * stride) lies in the input ``span``."""
    lo = min(-(-span[0] // stride), out_len)
    hi = min(-(-span[1] // stride), out_len)
    return (lo, max(lo, hi)) if span[1] > span[0] else (lo, lo)


@primitive("conv1d_d",
           "conv1d_d(_1, _2_kernel, __arg(_3_padding, \"valid\"), __arg(_4_strides, 1), "
           "__arg(_5_dilation_rate, 1), __arg(_6_name, \"\"))",
           flags=ORDERED, takes_tiled=True,
           no_oracle="tested under mpiexec against the conv1d primitive",
           example='all_gather_d(conv1d_d(annotate_d([[[1.], [2.], [3.], [4.]]], "x", '
                   'list("tile", list("pages", 0, 1), list("rows", 0, 4), '
                   'list("columns", 0, 1))), [[[1.]], [[1.]]]))',
           result="[[[3.], [5.], [7.]]]")
@lockstep
def conv1d_d(x, kernel, padding="valid", strides=1, dilation_rate=1, name=""):
    """Keras conv1d of a distributed (batch, length, channels) input, tiled like it.

    ``padding`` valid, same or causal; the kernel is a plain (k, in, out) array.
    Halos are fetched from the neighbouring tiles.  The result is named ``name`` or
    ``<input>/<generation + 1>``.
    """
    x = as_tiled(x, "the input")
    if isinstance(kernel, DistributedArray):
        kernel = kernel.gather()
    kernel = np.asarray(kernel)
    if x.ndim != 3 or kernel.ndim != 3:
        raise PhylanxValueError("conv1d_d needs a 3-d input (batch, length, channels) and a "
                                f"3-d kernel, got {x.ndim}-d and {kernel.ndim}-d")
    if 2 in x.layout.split_axes():
        raise PhylanxValueError("conv1d_d: the channels (columns) of the input must not be "
                                "split across localities")
    if kernel.shape[1] != x.shape[2]:
        raise PhylanxValueError(f"conv1d_d: the kernel has {kernel.shape[1]} input channels, "
                                f"the input {x.shape[2]}")
    mode = to_padding_mode(padding, ("valid", "same", "causal"))
    stride, dilation = to_int(strides, "strides"), to_int(dilation_rate, "dilation_rate")
    if stride < 1 or dilation < 1:
        raise PhylanxValueError("conv1d_d: strides and dilation_rate must be positive")
    if stride > 1 and dilation > 1:     # as conv1d (the original, compat addendum A.2)
        raise PhylanxValueError(f"conv1d_d: strides > 1 ({stride}) together with a "
                                f"dilation_rate > 1 ({dilation}) is not supported")
    length, width = x.shape[1], kernel.shape[0]
    out_len, pad_left = _geometry(length, width, mode, stride, dilation)
    boxes = []
    for box in x.layout.boxes:
        boxes.append((box[0], _output_span(box[1], stride, out_len), (0, kernel.shape[2])))
    mine = boxes[api.find_here()]
    (b0, b1), (o0, o1) = mine[0], mine[1]
    reach = dilation * (width - 1) + 1
    start, stop = o0 * stride - pad_left, (o1 - 1) * stride - pad_left + reach
    if o1 <= o0:
        start = stop = 0
    need = ((b0, b1), (max(start, 0), max(min(stop, length), max(start, 0))), (0, x.shape[2]))
    segment = tiles.fetch(x.local, x.layout, [need])[0]
    if o1 > o0:
        zeros = ((0, 0), (max(-start, 0), max(stop - length, 0)), (0, 0))
        segment = np.pad(segment, zeros)
        local = np.asarray(conv1d(segment, kernel, "valid", stride, dilation))
    else:
        local = np.zeros((b1 - b0, 0, kernel.shape[2]),
                         np.result_type(x.dtype, kernel.dtype))
    return x.derive(local, Layout(boxes, (x.shape[0], out_len, kernel.shape[2])),
                    name=str(name) if name not in (None, "") else None)
