"""The IR's layout facts from the distributed layer's own rules (issue 28 item 2).

``ir/specialise.py`` asks :func:`propagate` for the facts of every equation with an
operand of kind ``darray`` (``ir/layouts.py`` holds the hook).  The answer comes from
the functions the ``DISTRIBUTION`` rules decide with at run time, applied to stand-ins
that carry a shape, a dtype and a layout but no data (a distributed array whose tile is
empty, a zero-stride plain array): so the layout known before running is the one the
value will have.

* element-wise primitives (rule ``tilewise``): ``broadcasting.result_layout``, the
  driver chosen by the bytes it moves;
* reductions with literal ``axis``/``keepdims``: ``global_reductions.result_layout``
  (tiled without the reduced axes when no tile splits them, else plain);
* ``dot_general`` (``@``, ``np.dot``, ``.dot``, ``np.matmul``):
  ``global_products.result_layout`` (row-tiled lhs: rows; column-tiled rhs: columns;
  a split contraction: the summed plain result);
* ``transpose``: ``layout_ops.transposed_layout``.

The shape and dtype are NumPy's (``ir/shapes.py`` on the global shapes).  Anything
else is unknown (None): a subscript, a primitive taking the gather fallback, operands
whose layout or constant options are unknown.

:func:`communication` says, for the same equations and from the same decisions, what
the rule will send between the ranks (``ir/layouts.COMMUNICATION``): element-wise,
``fetch`` when ``broadcasting.fetched_operands`` names an operand, else ``none``;
products by ``global_products.product_path`` (own rows or columns: ``none``; a split
contraction with the other operand's parts at hand: ``all_gather``; else ``dot_d``);
reductions ``none`` when no tile splits a reduced axis, else ``all_gather``;
transposes ``none``.  On one tile per operand nothing is ever sent.  With it, the bytes
moved summed over the ranks (``moved``): a fetch's, the parts of the operands each rank
reads from the cells other ranks own (``broadcasting.fetched_bytes``); an
all_gather's, ``p (p - 1)`` times the partial result (the result's size); unknown for
``dot_d``.  A primitive without a rule that always takes the gather fallback
(``gather_fallback.always_gathers``) says ``gather`` (every rank receives every other
rank's tiles: ``gather_fallback.gathered_bytes``); its result's layout is not
propagated yet.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import PhylanxError
from ..ir import layouts
from ..ir.core import Eqn, Facts
from ..ir.shapes import UNKNOWN, facts_of
from ..primitives.rules import DISTRIBUTION
from .darray import DistributedArray
from .tiles import Layout

_PY_SAMPLES = {"float64": 0.0, "int64": 0, "bool": False, "complex128": 0j}


def stand_in(f: Facts, value: Any) -> Any:
    """A value with ``f``'s shape, dtype and layout that holds no data, or UNKNOWN."""
    if f.kind == "darray":
        decoded = layouts.decode(f.layout) if f.layout is not None else None
        if decoded is None or f.shape is None or None in f.shape or f.dtype is None:
            return UNKNOWN
        boxes, key1d = decoded
        return DistributedArray(np.zeros(0, f.dtype), Layout(boxes, f.shape, key1d), "ir")
    if value is not UNKNOWN and type(value) in (int, float, bool):
        return value
    if f.kind == "array" and f.shape is not None and None not in f.shape and f.dtype:
        return np.broadcast_to(np.zeros((), f.dtype), f.shape)
    if f.kind == "scalar" and f.dtype in _PY_SAMPLES:
        return _PY_SAMPLES[f.dtype]
    return UNKNOWN


def _as_array(f: Facts) -> Facts:
    return Facts(f.shape, f.dtype, "array") if f.kind == "darray" else f


def propagate(eqn: Eqn, facts: list[Facts], values: list) -> Facts | None:
    """The facts of ``eqn``'s value, one of its operands a distributed array."""
    plain = facts_of(eqn, [_as_array(f) for f in facts], values)   # NumPy's shape, dtype
    if plain is None or plain.shape is None:
        return None
    try:
        layout = _layout(eqn, facts, values)
    except PhylanxError:       # the rule would raise (operands that do not combine)
        return None
    if layout is None:
        return None
    if layout == "plain":
        return plain
    if layout.shape != plain.shape:   # pragma: no cover - a rule and NumPy disagree
        return None
    return Facts(plain.shape, plain.dtype, "darray",
                 layouts.encode(layout.boxes, layout.split_axes(), layout.key1d))


def _runs_tilewise(primitive: str, rule: Any) -> bool:
    """True if a tiled operand of ``primitive`` is computed tile by tile: its rule is
    ``tilewise``, or it has none and is element-wise (``darray._dispatch`` runs such a
    kernel tile by tile too: ``power``, ``log1p``, ``logaddexp`` ...)."""
    from ..primitives.registry import lookup
    from .primitives.dist_matrixops.elementwise import tilewise
    if rule is tilewise:
        return True
    spec = lookup(primitive)
    return rule is None and spec is not None and spec.elementwise and not spec.special


def _layout(eqn: Eqn, facts: list[Facts], values: list) -> Any:
    from .broadcasting import result_layout as elementwise_layout
    from .primitives.dist_matrixops import global_products, global_reductions
    from .primitives.dist_matrixops.global_view import transpose
    from .primitives.dist_matrixops.layout_ops import transposed_layout
    kw = eqn.param("kw")
    operands = [stand_in(f, v) for f, v in zip(facts, values)]
    rule = DISTRIBUTION.get(eqn.prim)
    if _runs_tilewise(eqn.prim, rule) and kw is None:
        if any(x is UNKNOWN for x in operands):
            return None
        return elementwise_layout(operands)[1]
    if eqn.prim == "dot_general" and len(operands) == 2:
        if any(x is UNKNOWN for x in operands):
            return None
        a, b = operands
        name = eqn.param("rule")
        layout = global_products.result_layout(name, np.asarray(a) if type(a) is not
                                               DistributedArray else a,
                                               np.asarray(b) if type(b) is not
                                               DistributedArray else b)
        return elementwise_layout(operands)[1] if layout == "elementwise" else layout
    if eqn.prim == "transpose" and kw is None and len(operands) == 1 \
            and rule is transpose and type(operands[0]) is DistributedArray:
        return transposed_layout(operands[0])[0]
    if getattr(rule, "__module__", None) == global_reductions.__name__ \
            and eqn.prim != "__npnorm":
        return _reduction_layout(eqn.prim, kw, operands, values)
    return None


def _distinct_tiled(eqn: Eqn, operands: list) -> list:
    """The tiled operands' stand-ins, one per variable (the runtime gathers an array
    passed twice once)."""
    seen, found = set(), []
    for atom, x in zip(eqn.ins, operands):
        key = getattr(atom, "id", id(x))
        if type(x) is DistributedArray and key not in seen:
            seen.add(key)
            found.append(x)
    return found


def _reduction_options(kw: Any, operands: list, values: list) -> tuple | None:
    """(axis, keepdims) of a reduction with a tiled first operand, None if its
    options are not those two or not known."""
    names = kw if kw is not None else ("",) * len(values)
    positional = [v for n, v in zip(names, values) if not n]
    named = {n: v for n, v in zip(names, values) if n}
    if len(positional) > 3 or not set(named) <= {"axis", "keepdims"} \
            or type(operands[0]) is not DistributedArray or names[0]:
        return None
    options = dict(zip(("axis", "keepdims"), positional[1:])) | named
    axis, keepdims = options.get("axis"), options.get("keepdims", False)
    if axis is UNKNOWN or keepdims is UNKNOWN:
        return None
    return axis, keepdims


def _reduction_layout(name: str, kw: Any, operands: list, values: list) -> Any:
    from .primitives.dist_matrixops import global_reductions
    options = _reduction_options(kw, operands, values)
    if options is None:
        return None
    return global_reductions.result_layout(name, operands[0], *options)


def communication(eqn: Eqn, facts: list[Facts], values: list
                  ) -> tuple[str, int | None] | None:
    """What ``eqn``'s distribution rule sends between the ranks and the bytes it moves,
    summed over the ranks (module docstring), or None where that is unknown before
    running (the bytes alone may be unknown: None)."""
    try:
        kind = _communication(eqn, facts, values)
    except PhylanxError:       # the rule would raise (operands that do not combine)
        return None
    if kind is None:
        return None
    tiled = [f for f in facts if f.kind == "darray"]
    ranks = max(len(layouts.decode(f.layout)[0]) for f in tiled)
    if ranks == 1 or kind == "none":
        return "none", 0       # (one locality: every "collective" is local)
    if type(kind) is tuple:
        return kind            # ("fetch", bytes), ("gather", bytes)
    if kind == "all_gather":
        # every rank receives the others' partial results, each of the result's size
        plain = facts_of(eqn, [_as_array(f) for f in facts], values)
        if plain is None or plain.shape is None or None in plain.shape or not plain.dtype:
            return kind, None
        dtype, gathers = np.dtype(plain.dtype), 1
        if eqn.prim in ("var", "std"):
            # each rank's mean and sum of squared deviations, in one message, in float32
            # at least (global_reductions.moments)
            dtype, gathers = np.promote_types(dtype, np.float32), 2
        elif eqn.prim == "mean":
            dtype = np.promote_types(dtype, np.float32)     # (its sums: float32 at least)
        size = int(np.prod(plain.shape)) * dtype.itemsize
        return kind, gathers * ranks * (ranks - 1) * size
    return kind, None


def _elementwise_communication(operands: list) -> Any:
    from .broadcasting import fetched_bytes, fetched_operands, result_layout
    driver, layout = result_layout(operands)
    tiled = [a for a in operands if type(a) is DistributedArray]
    if not fetched_operands(tiled, driver, layout):
        return "none"
    return "fetch", fetched_bytes(tiled, driver, layout)


def _communication(eqn: Eqn, facts: list[Facts], values: list) -> Any:
    from .primitives.dist_matrixops import global_products, global_reductions
    from .primitives.dist_matrixops.global_view import transpose
    kw = eqn.param("kw")
    operands = [stand_in(f, v) for f, v in zip(facts, values)]
    if any(x is UNKNOWN for x in operands):
        return None
    rule = DISTRIBUTION.get(eqn.prim)
    if _runs_tilewise(eqn.prim, rule) and kw is None:
        return _elementwise_communication(operands)
    if eqn.prim == "dot_general" and len(operands) == 2:
        a, b = (x if type(x) is DistributedArray else np.asarray(x) for x in operands)
        path = global_products.product_path(eqn.param("rule"), a, b)
        if path == "elementwise":
            return _elementwise_communication(operands)
        return {"rows": "none", "columns": "none", "summed": "all_gather",
                "dot_d": "dot_d"}.get(path)
    if eqn.prim == "transpose" and kw is None and len(operands) == 1 \
            and rule is transpose and type(operands[0]) is DistributedArray:
        return "none"
    if rule is None:          # (the fallback gathers whatever the keywords)
        from .gather_fallback import always_gathers, gathered_bytes
        if always_gathers(eqn.prim):
            return "gather", gathered_bytes(_distinct_tiled(eqn, operands))
    if getattr(rule, "__module__", None) == global_reductions.__name__ \
            and eqn.prim != "__npnorm":
        options = _reduction_options(kw, operands, values)
        if options is None:
            return None
        a, axes = operands[0], global_reductions._axes(options[0], operands[0].ndim)
        if global_reductions.whole_along(a, axes):
            return "none"
        return "all_gather" if global_reductions._plain_case(a, axes) else None
    return None


layouts.register(propagate, communication)
