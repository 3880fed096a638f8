"""Element-wise primitives on tiled operands: the ``DISTRIBUTION`` rules (reference §4.3).

Every element-wise primitive flagged ``distributable`` gets its rule here (the other
``distributable`` ones: ``global_view.py``, ``global_subscripts.py``,
``global_structure.py``).  Element-wise ones
(``__add``, ``sqrt``, ``maximum``, comparisons ...) run their own kernel tile by tile
(``darray.elementwise``): a scalar or plain array operand is broadcast against the
*global* shape (each tile gets its part, the regression "1155 wrong broadcast"),
and the result keeps the layout with the next generation (``x`` -> ``x/1``).
``expand_dims`` inserts an axis into the tiles and the layout.

The rules are applied by ``darray.dispatch``, which the runtime calls instead of the
kernel when an operand is a DistributedArray (dispatch by operand kind).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ....errors import PhylanxAxisError, PhylanxValueError
from ....primitives.dtypes import to_int
from ....primitives.registry import lookup
from ....primitives.rules import DISTRIBUTION
from ...darray import DistributedArray, elementwise
from ...tiles import Layout


def tilewise(impl: Any, args: list) -> Any:
    """The rule of every element-wise primitive: its kernel, tile by tile."""
    return elementwise(impl, args)


def expand_dims_rule(impl: Any, args: list) -> Any:
    """``expand_dims`` of a tiled array: the tiles and the layout gain a length-1 axis."""
    a = args[0]
    if type(a) is not DistributedArray or len(args) != 2:
        raise PhylanxValueError("expand_dims of a distributed array needs the array first")
    axis = to_int(args[1], "axis")
    ndim = a.ndim + 1
    if not -ndim <= axis < ndim:
        raise PhylanxAxisError(f"axis {axis} is out of bounds for the {ndim}-d result")
    if ndim > 3:
        raise PhylanxValueError("expand_dims of a 3-d distributed array would give a 4-d "
                                "one; distributed arrays are 1-d to 3-d")
    axis %= ndim
    boxes = [b[:axis] + ((0, 1),) + b[axis:] for b in a.layout.boxes]
    shape = a.shape[:axis] + (1,) + a.shape[axis:]
    return a.derive(np.expand_dims(a.local, axis), Layout(boxes, shape))


DISTRIBUTION.defrule("expand_dims", expand_dims_rule)
for _name in DISTRIBUTION.expected():
    if lookup(_name).elementwise and _name not in DISTRIBUTION.names():
        DISTRIBUTION.defrule(_name, tilewise)
