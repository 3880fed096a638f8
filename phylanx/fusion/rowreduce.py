"""Fused reductions along the last axis: ``np.sum(f(...), axis=-1)`` one row at a time.

A region ending in ``sum`` or ``mean`` with a literal ``axis`` (``regions.py``) is fused
here when, at run time, that axis is the last of the (broadcast) operands' shape and
they have at least two axes: k-means' ``np.sum(points * points, axis=1)``, a row norm, a
softmax denominator.  NumPy writes the whole element-wise intermediate and then reads
it back in short rows (its reduction along a short contiguous axis costs several times
the element-wise work); the kernel computes each row's elements and adds them in
registers::

    for each row r (in parallel):
        acc = 0
        for each element i of the row:  acc += f(x[i], y[i], ...)
        out[r] = acc            (mean: acc / m)

Operands are arrays of the result's shape (read in place when C-contiguous) and
numbers; a broadcast operand (a row, a column) and any other axis are
``strided.py``'s (:class:`~.strided.AxisReduction` chooses per evaluation);
``keepdims`` gives the trailing axis of length one.  The policy, the check against NumPy and the
timed turns are :class:`~.hot.FusedRegion`'s; the check allows each row's value to
differ by 4096 ulps of the sum of its terms' magnitudes (the kernel adds in sequence
in float64, NumPy pairwise in the dtype).  An empty row: NumPy.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..kernels.compiling import KERNEL_LOCK, Settings
from ..runtime.nodes import Node
from . import codegen
from .hot import (
    FusedRegion,
    _Kernel,
    _prepare,
    _scalar_or_sample,
    _tolerance,
    least_precise,
)
from .regions import Region


class RowsKernel(_Kernel):
    """A compiled row reduction: ``kernel(out, rows, m, L0, ...)`` fills ``out``."""

    def __call__(self, shape: Any, n: int, args: list) -> np.ndarray:
        self.calls += 1
        out_shape, rows, m = shape
        out = np.empty(rows, dtype=self.result_dtype)
        with KERNEL_LOCK:
            self.kernel(out, rows, m, *args)
        return out.reshape(out_shape)


class RowReduction(FusedRegion):
    """The fusing closure of a region ending in a reduction along a literal axis."""

    kernel_class = RowsKernel

    def __init__(self, region: Region, node: Node, axis: int, keepdims: bool):
        super().__init__(region, node)
        self.axis, self.keepdims = axis, keepdims
        self.wrong_axis = False

    def __repr__(self) -> str:
        state = ("cold", "hot", "off")[self.state]
        return f"<RowReduction {self.region.describe()} axis {self.axis} {state}>"

    def enabled(self) -> bool:
        return Settings.rows

    def hot(self, frame: list) -> Any:
        self.wrong_axis = False
        result = super().hot(frame)
        if self.wrong_axis:
            # not the last axis of these operands: the tree's own closures from now on
            # (a chain below is then fused by itself, ``fused_regions``)
            self.retire()
        return result

    def prepare(self, values: list) -> tuple | None:
        made = _prepare(values)
        if made is None:
            return None
        sig, args, shape, n = made
        if len(shape) < 2 or self.axis not in (-1, len(shape) - 1):
            self.wrong_axis = True
            return None
        if n == 0 or any(type(v) is np.ndarray and v.ndim and v.shape != shape
                         and v.size != 1 for v in values):
            # a broadcast operand would be copied to the full shape on every call (before
            # a kernel even exists): that copy costs what the fusion saves (a user's row
            # norm of x - w ran 18 ms against NumPy's 11)
            return None
        m = shape[-1]
        out_shape = shape[:-1] + ((1,) if self.keepdims else ())
        return sig, args, (out_shape, n // m, m), n

    def make_plan(self, sig: tuple, args: list, values: list, record: list,
                  result: Any) -> tuple | None:
        roles = [s[0] for s in sig]
        plan = codegen.plan_rows(self.region, roles, [_scalar_or_sample(v, r) for v, r in
                                                      zip(values, roles)], record)
        if isinstance(plan, str) or not isinstance(result, np.ndarray):
            return None
        samples = tuple(a[:1] if r == "a" else a for a, r in zip(args, roles))
        return plan, (np.empty(1, result.dtype), 1, 1) + samples

    def disagreement(self, fused: Any, expected: Any, record: list, entry: Any,
                     values: list) -> str | None:
        if not isinstance(expected, np.ndarray) or fused.shape != expected.shape \
                or fused.dtype != expected.dtype:
            return f"{fused.dtype}{fused.shape} instead of " \
                   f"{getattr(expected, 'dtype', '?')}{getattr(expected, 'shape', '')}"
        got, want = fused.reshape(-1), expected.reshape(-1)
        if want.dtype.kind != "f":
            bad = np.flatnonzero(got != want)
        else:
            terms = np.abs(np.asarray(record[-1], dtype=np.float64))
            size = terms.reshape(-1, terms.shape[-1]).sum(axis=1)
            if self.region.root.name == "mean":
                size /= terms.shape[-1]
            with np.errstate(invalid="ignore"):
                bound = _tolerance(least_precise(record, want.dtype)) * np.maximum(
                    size, np.finfo(want.dtype).tiny)
                close = (got == want) | (np.isnan(got) & np.isnan(want)) | (
                    np.abs(got.astype(np.float64) - want) <= bound)
            bad = np.flatnonzero(~close)
        if not bad.size:
            return None
        return f"row {int(bad[0])}: {got[bad[0]]!r} instead of {want[bad[0]]!r}"
