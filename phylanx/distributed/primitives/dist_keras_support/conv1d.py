"""``conv1d_d``: Keras conv1d on a tiled (batch, length, channels) input (reference §4.3).

The input may be tiled by batch (pages: data parallel), by length (rows: spatial)
or both; the channels must not be split.  Each locality computes the outputs whose
window starts in its length span (output o starts at input o * strides - padding),
so the output is tiled like the input.  The input a window needs beyond the tile
(the halo) is fetched from the neighbours, and the zero padding of valid/same/
causal is applied only where the window leaves the array; the local computation
is the single-process ``conv1d`` on that padded segment.  When no rank needs a halo
(tiled by batch only, say) nothing is sent; else the outputs whose windows lie in
the rank's own tile are computed while the halos travel (``overlapped_fetch.py``),
the ones at the tile's edges once they are here.
"""
from __future__ import annotations

import math

import numpy as np

from .... import distributed as api
from ....errors import PhylanxValueError
from ....primitives.dtypes import to_int
from ....primitives.keras_support._windows import as_float_array, to_padding_mode
from ....primitives.keras_support.conv import conv1d
from ....primitives.registry import primitive
from ... import overlapped_fetch, tiling
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
@lockstep(same_plain=True)
def conv1d_d(x, kernel, padding="valid", strides=1, dilation_rate=1, name=""):
    """Keras conv1d of a distributed (batch, length, channels) input, tiled like it.

    ``padding`` valid, same or causal; the kernel is a plain (k, in, out) array.
    Halos are fetched from the neighbouring tiles.  The result is named ``name`` or
    ``<input>/<generation + 1>``.
    """
    x = as_tiled(x, "the input")
    if isinstance(kernel, DistributedArray):
        kernel = kernel.gather()
    kernel = as_float_array(kernel, "the kernel")     # as conv1d reads it: ints as float64
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
    reach = dilation * (width - 1) + 1
    windows = _Windows(stride, dilation, pad_left, reach, length, kernel)
    needs = [windows.inputs(box) for box in boxes]
    rank = api.find_here()
    need, zeros = needs[rank]
    if all(_held(n, cells) for (n, _), cells in zip(needs, x.layout.owned)):
        # no halo anywhere (tiled by batch, say): no message, every rank has its inputs
        local = windows.outputs(boxes[rank], x.local[tiling.to_local(need, x.box)], zeros)
    else:
        local = _with_halos(x, windows, boxes[rank], need, zeros)
    return x.derive(local, Layout(boxes, (x.shape[0], out_len, kernel.shape[2])),
                    name=str(name) if name not in (None, "") else None)


def _held(need: tiling.Box, cells: list[tiling.Box]) -> bool:
    """Whether the (disjoint) ``cells`` a rank owns hold all of ``need``."""
    if tiling.is_empty(need):
        return True
    parts = [tiling.intersect(need, cell) for cell in cells]
    return sum(math.prod(tiling.box_shape(p)) for p in parts if p is not None) == \
        math.prod(tiling.box_shape(need))


class _Windows:
    """Which inputs the outputs of a tile need, and those outputs computed."""

    def __init__(self, stride: int, dilation: int, pad_left: int, reach: int, length: int,
                 kernel: np.ndarray) -> None:
        self.stride, self.dilation, self.pad_left = stride, dilation, pad_left
        self.reach, self.length, self.kernel = reach, length, kernel

    def inputs(self, out_box: tiling.Box) -> tuple[tiling.Box, tuple[int, int]]:
        """The input box the outputs ``out_box`` read, and the zeros they read beyond
        the array (left, right)."""
        (b0, b1), (o0, o1), channels = out_box[0], out_box[1], self.kernel.shape[1]
        if o1 <= o0:
            return ((b0, b1), (0, 0), (0, channels)), (0, 0)
        start = o0 * self.stride - self.pad_left
        stop = (o1 - 1) * self.stride - self.pad_left + self.reach
        lo = max(start, 0)
        return (((b0, b1), (lo, max(min(stop, self.length), lo)), (0, channels)),
                (max(-start, 0), max(stop - self.length, 0)))

    def convolved(self, segment: np.ndarray) -> np.ndarray:
        """The outputs whose windows tile ``segment`` (from its first element on)."""
        return np.asarray(conv1d(segment, self.kernel, "valid", self.stride, self.dilation))

    def outputs(self, out_box: tiling.Box, segment: np.ndarray,
                zeros: tuple[int, int]) -> np.ndarray:
        """The outputs ``out_box`` from their inputs ``segment`` (the zeros beyond the
        array not included)."""
        (b0, b1), (o0, o1) = out_box[0], out_box[1]
        if o1 <= o0:    # no output here: the dtype the others' conv1d gives
            return np.zeros((b1 - b0, 0, self.kernel.shape[2]),
                            np.result_type(as_float_array(segment, "the input"), self.kernel))
        if zeros != (0, 0):
            segment = np.pad(segment, ((0, 0), zeros, (0, 0)))
        return self.convolved(segment)

    def inner(self, out_box: tiling.Box, held: tuple[int, int]) -> tuple[int, int]:
        """The outputs of ``out_box`` whose windows lie inside the input span ``held``."""
        o0, o1 = out_box[1]
        lo = max(o0, -(-(held[0] + self.pad_left) // self.stride))
        hi = min(o1, (held[1] + self.pad_left - self.reach) // self.stride + 1)
        return lo, max(lo, hi)


def _with_halos(x: DistributedArray, windows: _Windows, out_box: tiling.Box,
                need: tiling.Box, zeros: tuple[int, int]) -> np.ndarray:
    """Collective: this rank's outputs when some rank needs a halo.  The outputs
    whose windows lie in the part of ``need`` this rank holds are computed while the
    halos travel; the rest (at the tile's edges) once they are here."""
    o0, o1 = out_box[1]
    stride, pad_left, reach = windows.stride, windows.pad_left, windows.reach
    with overlapped_fetch.fetching(x.local, x.layout, [need]) as arrivals:
        # a local piece with all the batch and channels: the span of lengths held here
        whole = [p for p in arrivals.local if p.box[0] == need[0] and p.box[2] == need[2]]
        held = whole[0].box[1] if len(whole) == 1 and o1 > o0 else (0, 0)
        lo, hi = windows.inner(out_box, held) if held != (0, 0) else (o0, o0)
        if hi > lo:
            with overlapped_fetch.local_work():
                start = lo * stride - pad_left - held[0]
                inner = windows.convolved(
                    whole[0].value[:, start:(hi - 1) * stride - pad_left + reach - held[0]])
        segment = arrivals.assembled([need], x.dtype)[0]
    if hi <= lo:
        return windows.outputs(out_box, segment, zeros)
    padded = np.pad(segment, ((0, 0), zeros, (0, 0))) if zeros != (0, 0) else segment
    left = windows.convolved(padded[:, :(lo - 1 - o0) * stride + reach]) if lo > o0 else None
    right = windows.convolved(padded[:, (hi - o0) * stride:(o1 - 1 - o0) * stride + reach]) \
        if o1 > hi else None
    return np.concatenate([p for p in (left, inner, right) if p is not None], axis=1)
