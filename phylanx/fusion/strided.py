"""Fused reductions of broadcast operands, read in place through their strides.

A region ending in ``sum``, ``mean``, ``amax`` or ``amin`` (``regions.py``) over one
axis, a tuple of axes (``axis=(1, 2)``, any order, ``keepdims`` too: reduced axes that
are not next to each other are moved after the kept ones by transposing the operands'
views, no copy) or the whole array, whose operands broadcast against each other (``x[:, None, :]
- c[None]``), is computed here by one kernel that indexes every operand by the full
(broadcast) shape: ``np.broadcast_to`` gives a view with stride 0 on the broadcast
axes, and numba reads it in place, so no operand is copied to the full size and the
element-wise intermediate is never written.  For axis ``a`` of a shape split as
``outer + (reduced,) + inner``, the generated loop runs in memory order::

    for p in prange(prod(outer)):               # in parallel (or serially)
        out[p, ...] = start                     # 0, or -inf/+inf for max/min
        for r in range(reduced):
            for j... in inner:                  # accumulate in place, row after row
                out[p, j...] += f(L0[i..., r, j...], L1[i..., r, j...], ...)

(with no inner axes the accumulator is a register, ``out[p] = acc`` once).  The whole
array (``axis=None``) is reduced as per-row partials over the first axis (``outer`` the
first axis), combined by NumPy.  Sums and means accumulate in float64 (int64 for
integers) and are cast to NumPy's result dtype once: a float32 sum is then its float64
sum rounded once, within a few ulps of the terms' magnitude of NumPy's pairwise float32
sum; max/min keep the operand dtype and let NaN win, as NumPy does.

Operands all C-contiguous and of the full shape keep the contiguous kernels
(``rowreduce.py`` along the last axis, ``hot.py`` for the whole array without
``keepdims``) unless the reduction is a max/min, which only this kernel computes.
The policy, the check against NumPy and the timed turns are
:class:`~.hot.FusedRegion`'s; the check allows each output element 4096 ulps (of the
result dtype) of the sum of its finite terms' magnitudes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..kernels.compiling import KERNEL_LOCK, Plan, Settings, array_key
from ..runtime.nodes import Node
from . import codegen
from .hot import _Kernel, _prepare, _tolerance, disagreement, least_precise, scalar_key
from .regions import Region
from .rowreduce import RowReduction, RowsKernel


@dataclass(frozen=True)
class LayoutPlan(Plan):
    """A plan and the layout it was made for: ``"flat"`` (``hot.py``'s whole-array
    loop), ``"rows"`` (``rowreduce.py``) or ``"strided"`` (this module, accumulating
    in ``acc_dtype``)."""

    layout: str = "strided"
    acc_dtype: Any = None
    direct: bool = False        # out is the result (see plan_strided)


def normal_axes(axis: int | tuple | None, ndim: int) -> tuple[int, ...] | None | str:
    """The reduced axes of an ``ndim``-d operand, sorted, each in ``range(ndim)``: None
    for the whole array (``axis=None``, or a tuple naming every axis), ``"bad"`` for an
    axis out of range or named twice (NumPy raises the located error)."""
    if axis is None:
        return None
    axes = (axis,) if type(axis) is int else axis
    if any(not -ndim <= a < ndim for a in axes):
        return "bad"
    normal = sorted(a % ndim for a in axes)
    if len(set(normal)) != len(normal):
        return "bad"
    if ndim and len(normal) == ndim and type(axis) is tuple:
        return None
    return tuple(normal)


class Layout:
    """How one evaluation's shape splits around the reduced axes: ``outer + reduced +
    inner``.  Reduced axes next to each other split the shape in place; others are
    moved after the kept ones (``order``: the operands' views are transposed, no copy),
    so every output element is one loop over its reduced axes."""

    def __init__(self, shape: tuple, axes: tuple[int, ...] | None, keepdims: bool):
        ndim = len(shape)
        self.whole = axes is None
        self.order = None
        if axes is None:
            # per-row partials over the first axis (a 1-d array: one serial sum)
            first, last = (1, ndim) if ndim >= 2 else (0, ndim)
        elif axes == tuple(range(axes[0], axes[-1] + 1)):
            first, last = axes[0], axes[-1] + 1
        else:
            kept = [a for a in range(ndim) if a not in axes]
            self.order = tuple(kept) + axes
            shape = tuple(shape[a] for a in self.order)
            first, last = len(kept), ndim
        self.shape = shape
        self.outer, self.reduced, self.inner = shape[:first], shape[first:last], shape[last:]
        self.count = math.prod(self.reduced)
        if axes is None:
            self.result_shape = (1,) * ndim if keepdims else ()
        elif keepdims:
            self.result_shape = tuple(1 if a in axes else d for a, d in
                                      enumerate(shape if self.order is None else
                                                _unpermute(shape, self.order)))
        else:
            self.result_shape = self.outer + self.inner

    def key(self) -> tuple:
        return ("strided", len(self.outer), len(self.reduced), len(self.inner), self.whole)


def _unpermute(shape: tuple, order: tuple) -> tuple:
    """The shape before ``order`` was applied to it."""
    original = [0] * len(order)
    for position, axis in enumerate(order):
        original[axis] = shape[position]
    return tuple(original)


def plan_strided(region: Region, roles: list[str], leaf_values: list, record: list,
                 split: tuple[int, int, int], direct: bool) -> Plan | str:
    """The kernel plan for ``split`` = (outer, reduced, inner) axis counts, or why not;
    ``direct``: each output element is final when its loop ends (no inner axes, not
    partials of the whole array), so a mean divides there and ``out`` is the result."""
    n_outer, n_reduced, n_inner = split
    outer = [f"i{a}" for a in range(n_outer)]
    reduced = [f"r{a}" for a in range(n_reduced)]
    inner = [f"j{a}" for a in range(n_inner)]
    index = ", ".join(outer + reduced + inner)
    cell = "acc" if not inner else "out[" + ", ".join(["p"] + inner) + "]"
    made = codegen.body_lines(region, roles, leaf_values, record, index=index, acc=cell,
                              wide32=True)
    if isinstance(made, str):
        return made
    lines, reduction, init = made
    if reduction is None:
        return "no reduction"
    dims = [f"d{a}" for a in range(n_outer + n_reduced + n_inner)]
    params = ", ".join(f"L{i}" for i in range(len(leaf_values)))
    d_outer, d_reduced, d_inner = (dims[:n_outer], dims[n_outer:n_outer + n_reduced],
                                   dims[n_outer + n_reduced:])

    def loops(names, sizes, depth):
        return [" " * 4 * (depth + k) + f"for {v} in range({d}):"
                for k, (v, d) in enumerate(zip(names, sizes))]

    def source(name: str, parallel: bool) -> str:
        src = [f"{codegen.kernel_head(parallel).rstrip()}",
               f"def {name}(out, {', '.join(dims)}, {params}):",
               f"    for p in prange({' * '.join(d_outer) or '1'}):"]
        for a in range(n_outer):        # p -> the outer indices (each assigned once:
            later = " * ".join(d_outer[a + 1:])   # numba's parfors refuse a reassigned one)
            index = f"p // ({later})" if later else "p"
            src.append(f"        i{a} = {index}" + (f" % {d_outer[a]}" if a else ""))
        if inner:
            src += loops(inner, d_inner, 2)
            src.append(" " * 4 * (2 + n_inner) + f"{cell} = {init}")
        else:
            src.append(f"        acc = {init}")
        src += loops(reduced + inner, d_reduced + d_inner, 2)
        depth = 2 + n_reduced + n_inner
        src += [" " * 4 * depth + line for line in lines]
        if not inner:
            scale = f" / ({' * '.join(d_reduced)})" if direct and reduction == "mean" else ""
            src.append(f"        out[p] = acc{scale}")
        return "\n".join(src) + "\n"
    return LayoutPlan(codegen.two_loops(source).source, reduction)


def full_shape(values: list) -> tuple | None:
    """The shape the operands broadcast to, or None (no array, or they do not: the
    NumPy path raises the located error)."""
    shapes = [v.shape for v in values if type(v) is np.ndarray and v.ndim]
    if not shapes:
        return None
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        return None


def in_place(values: list, shape: tuple) -> bool:
    """True if every array operand of more than one element is C-contiguous and of the
    full shape: the flat kernels read it without a copy."""
    return all(v.shape == shape and v.flags.c_contiguous for v in values
               if type(v) is np.ndarray and v.size != 1)


def strided_operands(values: list, shape: tuple) -> tuple[tuple, list] | None:
    """(signature entries, kernel arguments) reading every array operand at the full
    shape's indices: a view (``np.broadcast_to``: stride 0 on broadcast axes), never a
    copy; one-element arrays and numbers as scalars.  None if a kernel takes none."""
    sig, args = [], []
    for v in values:
        if type(v) is np.ndarray:
            if v.dtype not in codegen.ALLOWED_DTYPES:
                return None
            if v.size == 1:
                args.append(v.reshape(-1)[0])
                sig.append(("s", v.dtype.str))
                continue
            arg = v if v.shape == shape else np.broadcast_to(v, shape)
            args.append(arg)
            sig.append(("v", array_key(arg), arg.flags.c_contiguous))
        else:
            s = scalar_key(v)
            if s is None:
                return None
            args.append(v)
            sig.append(s)
    return tuple(sig), args


class StridedKernel(_Kernel):
    """A compiled strided reduction: ``kernel(out, d0, ..., L0, ...)`` fills ``out``
    (accumulator dtype), finished here (whole-array partials combined, mean divided,
    cast to NumPy's result dtype)."""

    def __init__(self, planned, kernels):
        super().__init__(planned, kernels)
        self.acc_dtype = planned.plan.acc_dtype
        self.direct = planned.plan.direct

    def __call__(self, layout: Layout, n: int, args: list) -> Any:
        self.calls += 1
        out = np.empty((math.prod(layout.outer),) + layout.inner, dtype=self.acc_dtype)
        with KERNEL_LOCK:
            self.kernel(out, *layout.shape, *args)
        reduction = self.reduction
        if layout.whole:
            if reduction == "amax":
                value = np.max(out)
            elif reduction == "amin":
                value = np.min(out)
            else:
                value = out.sum()
                if reduction == "mean":
                    value = value / n
            with np.errstate(over="ignore"):   # a float32 overflow is inf, as NumPy's
                value = self.result_dtype.type(value)
            if layout.result_shape:
                return np.full(layout.result_shape, value)
            return value if issubclass(self.result_type, np.generic) \
                else self.result_type(value)
        if not self.direct:
            if reduction == "mean":
                out /= layout.count
            with np.errstate(over="ignore"):
                out = out.astype(self.result_dtype, copy=False)
        if not layout.result_shape:          # a 1-d operand's only axis: NumPy's scalar
            return out.reshape(-1)[0]
        return out.reshape(layout.result_shape)


def accumulator(reduction: str, dtype: np.dtype) -> np.dtype:
    """The dtype ``out`` accumulates in (see :func:`codegen.body_lines`)."""
    if reduction in codegen.EXTREMES:
        return dtype
    if reduction == "mean" or dtype.kind == "f":
        return np.dtype(np.float64)
    return np.dtype(np.int64)


class AxisReduction(RowReduction):
    """The fusing closure of a region ending in a reduction over one axis or all:
    the contiguous kernels when every operand is contiguous and of the full shape,
    else the strided one (chosen per evaluation, by the operands' layout)."""

    def __init__(self, region: Region, node: Node, axis: int | None, keepdims: bool):
        super().__init__(region, node, axis, keepdims)
        self.kernel_class = self.make_kernel

    def __repr__(self) -> str:
        state = ("cold", "hot", "off")[self.state]
        return f"<AxisReduction {self.region.describe()} axis {self.axis} {state}>"

    def enabled(self) -> bool:
        return Settings.enabled if self.axis is None else Settings.rows

    def prepare(self, values: list) -> tuple | None:
        shape = full_shape(values)
        if shape is None or 0 in shape:
            return None                   # empty: NumPy's value or NumPy's error
        if in_place(values, shape) and self.region.root.name not in codegen.EXTREMES \
                and type(self.axis) is not tuple:
            if self.axis is None and not self.keepdims:
                made = _prepare(values)   # the whole-array loop of hot.py (a scalar)
                return None if made is None else (((("flat",),) + made[0]),) + made[1:]
            if self.axis in (-1, len(shape) - 1) and len(shape) >= 2:
                made = super().prepare(values)
                return None if made is None else (((("rows",),) + made[0]),) + made[1:]
        axes = normal_axes(self.axis, len(shape))
        if axes == "bad":
            return None
        layout = Layout(shape, axes, self.keepdims)
        made = strided_operands(values, shape)
        if made is None:
            return None
        sig, args = made
        if layout.order is not None:
            args = [a.transpose(layout.order) if r[0] == "v" else a
                    for a, r in zip(args, sig)]
            sig = tuple(r[:2] + (a.flags.c_contiguous,) if r[0] == "v" else r
                        for a, r in zip(args, sig))
        return (layout.key(),) + sig, args, layout, math.prod(shape)

    def hot(self, frame: list) -> Any:
        return super(RowReduction, self).hot(frame)   # any axis: never the wrong one

    def make_plan(self, sig: tuple, args: list, values: list, record: list,
                  result: Any) -> tuple | None:
        kind = sig[0][0]
        if kind in ("flat", "rows"):
            owner = super() if kind == "rows" else super(RowReduction, self)
            made = owner.make_plan(sig[1:], args, values, record, result)
            if made is None:
                return None
            plan, samples = made
            return LayoutPlan(plan.source, plan.reduction, kind), samples
        _, n_outer, n_reduced, n_inner, whole = sig[0]
        roles = [s[0] for s in sig[1:]]
        samples = [v if r == "v" else a for v, a, r in zip(values, args, roles)]
        direct = not n_inner and not whole
        plan = plan_strided(self.region, roles, samples, record,
                            (n_outer, n_reduced, n_inner), direct)
        if isinstance(plan, str) or not isinstance(result, (np.ndarray, np.generic)):
            return None
        operand = np.asarray(record[len(self.region.ops)])
        # a direct kernel stores each element once, in NumPy's result dtype
        acc_dtype = result.dtype if direct else accumulator(plan.reduction, operand.dtype)
        plan = LayoutPlan(plan.source, plan.reduction, "strided", acc_dtype, direct)
        return plan, (np.empty((1,) * (1 + n_inner), acc_dtype),) + (1,) * (
            n_outer + n_reduced + n_inner) + tuple(args)

    def make_kernel(self, planned, kernels) -> _Kernel:
        """The kernel object for a compiled plan of any of the three layouts."""
        kind = {"strided": StridedKernel, "rows": RowsKernel}.get(planned.plan.layout, _Kernel)
        return kind(planned, kernels)

    def disagreement(self, fused: Any, expected: Any, record: list, entry: Any,
                     values: list) -> str | None:
        if isinstance(entry, RowsKernel):
            return super().disagreement(fused, expected, record, entry, values)
        if not isinstance(entry, StridedKernel):
            return disagreement(fused, expected, record, entry.reduction)
        return strided_disagreement(fused, expected, record, self.region.root.name,
                                    self.axis, self.keepdims)


def strided_disagreement(fused: Any, expected: Any, record: list, reduction: str,
                         axis: int | None, keepdims: bool) -> str | None:
    """None if a strided kernel's result agrees with NumPy's: same type, dtype and
    shape, NaN where NumPy has NaN, and each element within 4096 ulps (of its dtype) of
    the sum (max/min: the largest) of its finite terms' magnitudes (a non-finite
    element must be NumPy's exactly)."""
    if type(fused) is not type(expected) or np.shape(fused) != np.shape(expected) \
            or getattr(fused, "dtype", None) != getattr(expected, "dtype", None):
        return (f"{type(fused).__name__} {getattr(fused, 'dtype', '')}{np.shape(fused)} "
                f"instead of {type(expected).__name__} {getattr(expected, 'dtype', '')}"
                f"{np.shape(expected)}")
    got = np.asarray(fused).reshape(-1)
    want = np.asarray(expected).reshape(-1)
    if want.dtype.kind != "f":
        bad = np.flatnonzero(got != want)
    else:
        terms = np.abs(np.asarray(record[-1], dtype=np.float64))
        # non-finite terms give non-finite results, which must match exactly
        terms[~np.isfinite(terms)] = 0.0
        extreme = reduction in codegen.EXTREMES
        with np.errstate(invalid="ignore", over="ignore"):
            size = (np.max if extreme else np.sum)(terms, axis=axis, keepdims=True)
            if reduction == "mean":
                size = size / (terms.size if axis is None else
                               int(np.prod(np.take(terms.shape, axis))))
            size = size.reshape(-1)
            if size.size != want.size:          # the whole array, kept dimensions
                size = np.full(want.shape, size[0])
            bound = _tolerance(least_precise(record, want.dtype)) * np.maximum(
                size, np.finfo(want.dtype).tiny)
            close = (got == want) | (np.isnan(got) & np.isnan(want)) | (
                np.abs(got.astype(np.float64) - want) <= bound)
        bad = np.flatnonzero(~close)
    if not bad.size:
        return None
    return f"element {int(bad[0])}: {got[bad[0]]!r} instead of {want[bad[0]]!r}"

