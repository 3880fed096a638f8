"""Element-wise regions whose operands broadcast or are strided views, read in place.

``hot.py``'s flat loop reads operands as contiguous vectors of the output's size, so
an operand broadcast along some axis (``x - mu[None, :]``) or a strided view (the
slices of a stencil, ``u[1:-1, :-2]``) had to be copied to the full shape on every
call, a copy its timed turns did not even see.  Here such an evaluation runs a loop
over the full shape that indexes every operand by its own strides (``np.broadcast_to``
views: stride 0 on broadcast axes)::

    for i0 in prange(d0):                      # in parallel (or serially)
        for i1 in range(d1):
            out[i0, i1] = f(L0[i0, i1], L1[i0, i1], ...)

Evaluations whose operands are all contiguous and of the full shape keep the flat loop
(:class:`StridedMap` chooses per evaluation, by the operands' layout); the policy, the
check against NumPy and the timed turns are :class:`~.hot.FusedRegion`'s.
:func:`fused_regions` gives every region found by ``regions.py`` its fusing closure.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..kernels.compiling import KERNEL_LOCK, Plan, Settings
from . import codegen
from .hot import FusedRegion, _Kernel, _prepare
from .regions import Region, reduction_options, region_at
from .strided import AxisReduction, LayoutPlan, full_shape, in_place, strided_operands


def plan_map(region: Region, roles: list[str], leaf_values: list, record: list,
             ndim: int) -> Plan | str:
    """The element-wise loop over an ``ndim``-d output, or why these operands do not
    fuse."""
    index = ", ".join(f"i{a}" for a in range(ndim))
    made = codegen.body_lines(region, roles, leaf_values, record, index=index)
    if isinstance(made, str):
        return made
    lines, reduction, _ = made
    if reduction is not None:
        return "a reduction"
    dims = ", ".join(f"d{a}" for a in range(ndim))
    params = ", ".join(f"L{i}" for i in range(len(leaf_values)))

    def source(name: str, parallel: bool) -> str:
        src = [codegen.kernel_head(parallel).rstrip(),
               f"def {name}(out, {dims}, {params}):",
               "    for i0 in prange(d0):"]
        src += ["    " * (a + 1) + f"for i{a} in range(d{a}):" for a in range(1, ndim)]
        depth = "    " * (ndim + 1)
        src += [depth + line for line in lines]
        src.append(depth + f"out[{index}] = t{region.root.index}")
        return "\n".join(src) + "\n"
    return LayoutPlan(codegen.two_loops(source).source, None, "map")


class MapKernel(_Kernel):
    """A compiled strided element-wise loop: ``kernel(out, d0, ..., L0, ...)``."""

    def __call__(self, shape: tuple, n: int, args: list) -> np.ndarray:
        self.calls += 1
        out = np.empty(shape, dtype=self.out_dtype)
        with KERNEL_LOCK:
            self.kernel(out, *shape, *args)
        return out


class StridedMap(FusedRegion):
    """The fusing closure of an element-wise region: the flat loop when every operand
    is contiguous and of the full shape, else the strided loop."""

    def __init__(self, region: Region, node):
        super().__init__(region, node)
        self.kernel_class = self.make_kernel

    def prepare(self, values: list) -> tuple | None:
        shape = full_shape(values)
        if shape is None:
            return None
        if in_place(values, shape):
            made = _prepare(values)
            return None if made is None else (((("flat",),) + made[0]),) + made[1:]
        made = strided_operands(values, shape)
        if made is None:
            return None
        sig, args = made
        return (("map", len(shape)),) + sig, args, shape, int(np.prod(shape))

    def make_plan(self, sig: tuple, args: list, values: list, record: list,
                  result: Any) -> tuple | None:
        if sig[0][0] == "flat":
            made = super().make_plan(sig[1:], args, values, record, result)
            if made is None:
                return None
            plan, samples = made
            return LayoutPlan(plan.source, plan.reduction, "flat"), samples
        if not isinstance(result, np.ndarray):
            return None
        roles = [s[0] for s in sig[1:]]
        samples = [v if r == "v" else a for v, a, r in zip(values, args, roles)]
        plan = plan_map(self.region, roles, samples, record, sig[0][1])
        if isinstance(plan, str):
            return None
        ndim = sig[0][1]
        return plan, (np.empty((1,) * ndim, result.dtype),) + (1,) * ndim + tuple(args)

    def make_kernel(self, planned, kernels) -> _Kernel:
        """The kernel object for a compiled plan of either layout."""
        return (MapKernel if planned.plan.layout == "map" else _Kernel)(planned, kernels)


def fused_regions(region: Region) -> list[FusedRegion]:
    """The fusing closures of a region found by ``regions.find_regions``: an
    element-wise one (``stridedmap.StridedMap``, setting ``fusion``), or one ending in a
    reduction (:class:`AxisReduction`: setting ``fusion`` for the whole array,
    ``fusion_rows`` along an axis).  Under a reduction along an axis, or one keeping its
    dimensions, the element-wise chain it reduces is also fused by itself (setting
    ``fusion``): it runs when the reduction's closure gives the node back (mostly small
    evaluations, or slower than NumPy)."""
    root = region.root
    if not root.reduction:
        return [StridedMap(region, root.node)] if Settings.enabled else []
    axis, keepdims = reduction_options(root)
    made: list[FusedRegion] = []
    if Settings.enabled if axis is None else Settings.rows:
        made.append(AxisReduction(region, root.node, axis, keepdims))
    chain = [x for kind, x in root.args if kind == "op"]
    if Settings.enabled and chain and (axis is not None or keepdims):
        below = region_at(chain[0].node)
        if below is not None and len(below.ops) >= 2:
            made.append(StridedMap(below, below.root.node))
    return made
