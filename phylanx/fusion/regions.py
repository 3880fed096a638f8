"""Fusable regions of an execution tree, and their plain NumPy evaluation.

A *region* is a maximal subtree of eager element-wise primitives that have a fusing
rule (``fusion/rules.py``), optionally ended by a reduction (``sum`` or ``mean`` with no
initial or dtype, and a literal axis (an int or a tuple of ints) and keepdims if any: a
whole-array one fused by
``hot.py``, one along the last axis by ``rowreduce.py``), with at least two operations
in it.  Its *leaves* are the children that are not part of it: any node (a variable, a
``dot``, a function call, a literal).  :func:`find_regions` lists the regions of a
freshly compiled tree; :func:`interpret` evaluates a region's operations on its leaf
values with the very kernels the unfused nodes call, in the same order, recording
every intermediate: the oracle of a fused kernel, and the fallback when one cannot run.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..primitives import registry
from ..primitives.rules import FUSION
from ..runtime.nodes import Node, call

#: reductions that may end a region: name -> its non-data slots, nil but for the
#: literal axis and keepdims of :data:`REDUCTION_LITERALS`
REDUCTIONS: dict[str, tuple[int, ...]] = {name: (1, 2, 3, 4)
                                          for name in ("sum", "mean", "amax", "amin")}
#: slot -> the type a reduction's literal there may have (axis, keepdims); an axis may
#: also be a tuple of int literals (:func:`_literal_axes`)
REDUCTION_LITERALS = {1: int, 2: bool}


@dataclass(eq=False)
class Op:
    """One primitive application inside a region."""

    node: Node
    name: str                       # the primitive (spec name)
    impl: Any                       # the kernel the unfused node calls
    rule: Any                       # FuseRule, or None for a reduction
    args: list = field(default_factory=list)   # ("op", Op) | ("leaf", i) | ("param", v)
    index: int = 0                  # position in Region.ops (post-order)

    @property
    def reduction(self) -> bool:
        return self.rule is None


def reduction_options(op: Op) -> tuple[int | tuple[int, ...] | None, bool]:
    """(axis, keepdims) of a reduction operation (nil axis: the whole array; a tuple:
    several axes)."""
    literals = [x for kind, x in op.args if kind == "param"]
    literals += [None] * (2 - len(literals))
    return literals[0], bool(literals[1])


@dataclass(eq=False)
class Region:
    root: Op
    ops: list[Op]                   # post-order: operands before their users
    leaves: list[Node]

    def describe(self) -> str:
        """``exp·__add·__div at line 3`` style text for messages."""
        names = "·".join(op.name for op in self.ops)
        loc = self.root.node.loc
        where = f" at {loc.file}:{loc.line}:{loc.col}" if loc is not None and loc.line > 0 \
            else ""
        return f"{names}{where}"


def _classify(node: Node) -> tuple[str, Any, Any, dict[int, Any]] | None:
    """(spec name, impl, rule or None, params) if ``node`` can be a region operation."""
    if node.is_const or node.primitive.startswith(("access-", "define-", "call-")):
        return None
    spec = registry.lookup(node.primitive)
    if spec is None or spec.lazy or spec.special or spec.side_effects or spec.impl is None:
        return None
    if registry.dtype_suffix(node.primitive) is not None:
        return None
    children = node.children
    if spec.name in REDUCTIONS:
        slots = REDUCTIONS[spec.name]
        if not 1 <= len(children) <= 1 + len(slots):
            return None
        params = {}
        for i in range(1, len(children)):      # omitted trailing slots are nil too
            child = children[i]
            if i == 1 and (axes := _literal_axes(child)) is not None:
                params[i] = axes
                continue
            if not child.is_const or (child.value is not None and
                                      type(child.value) is not REDUCTION_LITERALS.get(i)):
                return None
            params[i] = child.value
        return spec.name, spec.impl, None, params
    rule = FUSION.get(spec.name)
    if rule is None or not rule.fuses:
        return None
    params = {}
    for i, allowed in rule.params.items():
        if i >= len(children):
            continue
        child = children[i]
        if not child.is_const or not any(_same(child.value, a) for a in allowed):
            return None
        params[i] = child.value
    ndata = len(children) - len(params)
    low, high = rule.arity
    if ndata < low or (high is not None and ndata > high):
        return None
    impl = spec.impl
    if len(children) == 2 and "binary" in spec.flags:
        impl = spec.flags["binary"]      # what compile_primitive chose for the node
    return spec.name, impl, rule, params


def _literal_axes(node: Node) -> tuple[int, ...] | None:
    """The axes of a tuple of int literals (``sum(axis=(1, 2))``: the frontend's
    ``tuple(1, 2)``), or None if ``node`` is not one."""
    if node.primitive != "tuple" or not node.children:
        return None
    if not all(c.is_const and type(c.value) is int for c in node.children):
        return None
    return tuple(c.value for c in node.children)


def _same(value: Any, allowed: Any) -> bool:
    if allowed is None or value is None:
        return value is allowed
    return type(value) in (int, float) and value == allowed


def _build(node: Node, info, ops: list[Op], leaves: list[Node], cache) -> Op:
    name, impl, rule, params = info
    op = Op(node, name, impl, rule)
    for i, child in enumerate(node.children):
        if i in params:
            op.args.append(("param", params[i]))
            continue
        cinfo = cache(child)
        if cinfo is not None and cinfo[2] is not None:      # element-wise: inside
            op.args.append(("op", _build(child, cinfo, ops, leaves, cache)))
        else:                                               # anything else: a leaf
            op.args.append(("leaf", len(leaves)))
            leaves.append(child)
    op.index = len(ops)
    ops.append(op)
    return op


def unique_nodes(roots: list[Node]):
    """Every node under ``roots`` once (a function body is reached from its lambda too)."""
    seen: set[int] = set()
    for top in roots:
        for node in top.walk():
            if id(node) not in seen:
                seen.add(id(node))
                yield node


def _classifier():
    """``_classify`` with a cache for one search (a node is asked about as a root and
    as its parent's operand)."""
    known: dict[int, Any] = {}

    def cache(n: Node):
        if id(n) not in known:
            known[id(n)] = _classify(n)
        return known[id(n)]
    return cache


def region_at(node: Node) -> Region | None:
    """The element-wise region rooted at ``node`` (one operation is enough, no
    reduction): the value a row pass computes per element, or None."""
    cache = _classifier()
    info = cache(node)
    if info is None or info[2] is None:
        return None
    ops: list[Op] = []
    leaves: list[Node] = []
    root = _build(node, info, ops, leaves, cache)
    return Region(root, ops, leaves)


def find_regions(roots: list[Node]) -> list[Region]:
    """The regions of the trees under ``roots`` (function bodies included)."""
    cache = _classifier()
    regions = []
    for node in unique_nodes(roots):
        info = cache(node)
        if info is None:
            continue
        parent = node.parent
        pinfo = cache(parent) if parent is not None else None
        # an element-wise operand of an operation (element-wise or reduction)
        inside_parent = (pinfo is not None and info[2] is not None
                         and any(c is node for c in parent.children))
        if inside_parent:
            continue                     # part of the parent's region
        ops: list[Op] = []
        leaves: list[Node] = []
        root = _build(node, info, ops, leaves, cache)
        if len(ops) >= 2:
            regions.append(Region(root, ops, leaves))
    return regions


def interpret(region: Region, leaf_values: list, record: list | None = None) -> Any:
    """The region's value computed by its operations' own kernels (NumPy).

    ``record``, if given, receives each operation's result at ``op.index`` (and, for a
    reduction, its operand under ``len(ops)``).  A failing kernel goes through
    :func:`~phylanx.runtime.nodes.call`: futures waited for and tiled operands dispatched
    before it runs, its error located at its node.
    """
    def run(op: Op) -> Any:
        values = []
        for kind, x in op.args:
            if kind == "op":
                values.append(run(x))
            elif kind == "leaf":
                values.append(leaf_values[x])
            else:
                values.append(x)
        result = call(op.node, op.impl, values)   # (tiled operands dispatched by kind)
        if record is not None:
            record[op.index] = result
            if op.reduction:
                record[len(region.ops)] = values[0]
        return result
    return run(region.root)
