"""Element-wise operations on tiled arrays with NumPy's broadcasting, tile by tile.

The operands (tiled arrays with their *global* shapes, plain arrays, lists, scalars)
must broadcast together by NumPy's rule; the result has the broadcast shape and is
tiled like one tiled operand, the *driver*: its boxes, widened to the whole axis
wherever the driver has length 1 (or no axis) and the result does not.  Each rank
computes its tile from its parts of the operands:

* a plain operand (the same on every rank) is sliced to the tile's box, read through
  broadcasting (an axis of length 1 is taken whole): a plain ``(m,)`` vector against a
  row-tiled ``(n, m)`` array is used whole, a plain ``(n, 1)`` column is cut to the
  tile's rows;
* another tiled operand gives the part of it the tile needs: sliced from its own tile
  when every rank holds its part (decided from the layouts, the same on every rank),
  else fetched from the ranks that own it (``tiles.fetch``, a collective).

**Choosing the driver (the cost model).**  Candidates are the tiled operands with the
result's shape (none is widened, so no rank computes another's elements), or all tiled
operands if none has it.  Each candidate costs the elements the others must fetch
under its layout: for every rank and every other tiled operand, the elements of the
part that rank needs that its own tile of that operand does not hold.  The cheapest
wins; ties go to the first operand.  So ``x + y`` with ``x`` row-tiled and ``y`` tiled
like ``x`` moves nothing, and a row-tiled ``x`` with a column-tiled ``y`` moves one of
them (about ``(P - 1) / P`` of its elements): the same either way, the first keeps its
layout.  Every rank computes the costs from the layouts all ranks hold: the same choice.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import distributed as api
from ..errors import PhylanxValueError
from . import lockstep, tiles, tiling
from .darray import DistributedArray
from .tiles import Layout


def _shape(value: Any) -> tuple[int, ...]:
    if type(value) is DistributedArray:
        return value.shape
    if type(value) is np.ndarray:
        return value.shape
    if _is_sequence(value):
        return np.shape(np.asarray(value))
    return ()


def _is_sequence(value: Any) -> bool:
    # (a tuple too: passed whole, one that broadcast to the tile but not to the global
    # shape gave every tile the same rows)
    return type(value) in (list, tuple) and bool(value) and not isinstance(value[0], str)


def _widened(box: tiling.Box, shape: tuple[int, ...], result: tuple[int, ...]) -> tiling.Box:
    """The result's box computed from an operand's ``box`` (its ``shape``): axes the
    operand lacks or has of length 1 are taken whole."""
    lead = len(result) - len(shape)
    return tuple((0, n) if j < lead or shape[j - lead] != n else box[j - lead]
                 for j, n in enumerate(result))


def _part(box: tiling.Box, shape: tuple[int, ...], result: tuple[int, ...]) -> tiling.Box:
    """The part of an operand of ``shape`` that the result's ``box`` reads."""
    lead = len(result) - len(shape)
    return tuple((0, 1) if n == 1 and result[lead + j] != 1 else box[lead + j]
                 for j, n in enumerate(shape))


def _inside(part: tiling.Box, tile: tiling.Box) -> bool:
    return tiling.is_empty(part) or all(ts <= s and e <= te
                                        for (s, e), (ts, te) in zip(part, tile))


def _volume(box: tiling.Box) -> int:
    return 0 if tiling.is_empty(box) else int(np.prod(tiling.box_shape(box)))


def _missing(part: tiling.Box, tile: tiling.Box) -> int:
    common = tiling.intersect(part, tile)
    return _volume(part) - (0 if common is None else _volume(common))


def _boxes(driver: DistributedArray, result: tuple[int, ...]) -> list[tiling.Box]:
    return [_widened(b, driver.shape, result) for b in driver.layout.boxes]


def _cost(driver: DistributedArray, others: list[DistributedArray],
          result: tuple[int, ...]) -> int:
    boxes = _boxes(driver, result)
    return sum(_missing(_part(box, t.shape, result), t.layout.boxes[r])
               for t in others for r, box in enumerate(boxes))


def choose_driver(operands: list[DistributedArray], result: tuple[int, ...]
                  ) -> DistributedArray:
    """The tiled operand whose layout the result takes (module docstring)."""
    candidates = [a for a in operands if a.shape == result] or operands
    if len(operands) == 1:
        return operands[0]
    costs = [_cost(d, [a for a in operands if a is not d], result) for d in candidates]
    return candidates[costs.index(min(costs))]


def result_shape(args: Any) -> tuple[int, ...]:
    shapes = [_shape(a) for a in args]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        tiled = [a.shape for a in args if type(a) is DistributedArray]
        raise PhylanxValueError(
            f"operands of shapes {', '.join(map(str, shapes))}: one does not broadcast "
            f"against the others (NumPy's rule, with the distributed arrays' global "
            f"shapes {', '.join(map(str, tiled))})") from None
    if len(shape) > 3:
        raise PhylanxValueError(f"the element-wise result would be {len(shape)}-d "
                                f"(shape {shape}); distributed arrays are 1-d to 3-d")
    return shape


def aligned_driver(args: Any) -> DistributedArray | None:
    """The first tiled operand when every tiled operand has its shape and boxes and
    every other one is used whole by every tile (a number, a 0-d array: shape ``()``), else None.
    Then the general path's every choice is known without computing it: the result
    has the driver's shape and layout, every candidate driver costs 0 (each rank's part
    of an operand laid out alike is its own tile), so the first is chosen, nothing is
    fetched, and each tile reads the operands' own tiles whole."""
    driver = None
    for a in args:
        if type(a) is DistributedArray:
            if driver is None:
                driver = a
            elif a.layout is not driver.layout and (a.layout.boxes != driver.layout.boxes
                                                    or a.shape != driver.shape):
                return None     # (a 1-d operand's orientation key may differ)
        elif (type(a) is np.ndarray and a.ndim > 0) or _is_sequence(a):
            return None
    return driver


def elementwise(fn: Any, args: Any) -> Any:
    """``fn`` tile by tile with NumPy's broadcasting (module docstring).  The result
    has the driver's name, next generation."""
    driver = aligned_driver(args)
    if driver is not None:
        # (the common case, a chain on one layout: the general path's answer, found
        # without its cost model and parts; test_broadcasting_property checks they agree)
        out = fn(*[a.local if type(a) is DistributedArray else a for a in args])
        return _tile_result(out, driver, driver.layout, driver.box)
    return general_elementwise(fn, args)


def _tile_result(out: Any, driver: DistributedArray, layout: Layout,
                 box: tiling.Box) -> DistributedArray:
    want = tiling.box_shape(box)
    if isinstance(out, np.generic) and int(np.prod(want)) == 1:
        out = np.asarray(out).reshape(want)
    if not isinstance(out, np.ndarray) or out.shape != want:
        raise PhylanxValueError(f"the element-wise result of a tile of shape {want} has "
                                f"shape {np.shape(out)}")
    return driver.derive(out, layout)


def general_elementwise(fn: Any, args: Any) -> Any:
    """:func:`elementwise` by the cost model, for any operands (module docstring)."""
    args = list(args)
    operands = [a for a in args if type(a) is DistributedArray]
    driver, layout = result_layout(args)
    shape, boxes = layout.shape, layout.boxes
    box = boxes[api.find_here()]
    # the parts other tiled operands must fetch: decided from the layouts alone, so
    # every rank fetches (a collective) or none does
    remote = fetched_operands(operands, driver, layout)
    fetched = {}
    if remote:
        with lockstep.operation(lockstep.label_of("elementwise", tuple(operands))):
            for a in remote:
                fetched[id(a)] = tiles.fetch(a.local, a.layout, [_part(box, a.shape, shape)])[0]
    local_args = []
    for a in args:
        if type(a) is DistributedArray:
            if id(a) in fetched:
                local_args.append(fetched[id(a)])
            else:
                part = _part(box, a.shape, shape)
                if tiling.is_empty(part):
                    # (an empty tile's box may be (0, 0) on every axis, ``v[:, None]``'s,
                    # so slicing it cannot give a part of length 1 on a broadcast axis)
                    local_args.append(np.empty(tiling.box_shape(part), a.local.dtype))
                else:
                    local_args.append(a.local[tiling.to_local(part, a.box)]
                                      if a is not driver or part != a.box else a.local)
        elif type(a) is np.ndarray and a.ndim > 0:
            local_args.append(a[tuple(slice(*p) for p in _part(box, a.shape, shape))])
        elif _is_sequence(a):
            whole = np.asarray(a)
            local_args.append(whole[tuple(slice(*p) for p in _part(box, whole.shape, shape))])
        else:
            local_args.append(a)
    return _tile_result(fn(*local_args), driver, layout, box)


def fetched_operands(operands: list[DistributedArray], driver: DistributedArray,
                     layout: Layout) -> list[DistributedArray]:
    """The tiled operands some rank must fetch parts of (a collective) to compute its
    tile of ``layout``, decided from the layouts alone: every rank fetches or none does
    (the IR's communication facts use it too)."""
    shape, boxes = layout.shape, layout.boxes
    return [a for a in operands if a is not driver and not all(
        _inside(_part(b, a.shape, shape), a.layout.boxes[r]) for r, b in enumerate(boxes))]


def fetched_bytes(operands: list[DistributedArray], driver: DistributedArray,
                  layout: Layout) -> int:
    """The bytes the fetches of :func:`fetched_operands` read from other ranks, summed
    over the ranks: each rank's part of the operand, less the cells it owns itself
    (``tiles.fetch`` reads every other cell from its owner)."""
    total = 0
    for a in fetched_operands(operands, driver, layout):
        for rank, box in enumerate(layout.boxes):
            part = _part(box, a.shape, layout.shape)
            for owner, cells in enumerate(a.layout.owned):
                if owner == rank:
                    continue
                for cell in cells:
                    common = tiling.intersect(part, cell)
                    total += 0 if common is None else _volume(common) * a.dtype.itemsize
    return total


def result_layout(args: Any) -> tuple[DistributedArray, Layout]:
    """(the driver, the result's layout) of an element-wise operation on ``args``,
    decided from the shapes and layouts alone (the IR's layout facts use it too:
    ``layout_facts.py``)."""
    operands = [a for a in args if type(a) is DistributedArray]
    shape = result_shape(args)
    driver = choose_driver(operands, shape)
    if shape == driver.shape:
        return driver, driver.layout
    return driver, Layout(_boxes(driver, shape), shape,
                          driver.layout.key1d if len(shape) == 1 else None)


__all__ = ["aligned_driver", "choose_driver", "elementwise", "fetched_bytes",
           "fetched_operands", "general_elementwise", "result_layout", "result_shape"]
