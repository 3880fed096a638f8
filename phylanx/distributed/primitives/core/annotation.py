"""``annotate_d``: a local array becomes one tile of a distributed array (reference §4.2).

The localities exchange their tiles' spans (an all_gather) and check them together,
so a bad annotation on one locality raises the same located error on all of them.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ....errors import PhylanxError, PhylanxValueError
from ....primitives.dtypes import to_int
from ....primitives.registry import primitive
from ....values import plain_array
from ... import storages, tiles, tiling
from ...darray import DistributedArray
from .._support import ORDERED, lockstep

_NO_ORACLE = "builds one locality's tile of a distributed array"


@primitive("annotate_d", "annotate_d(_1_target, _2_name, __arg(_3_args, nil))",
           flags=ORDERED, takes_tiled=True, no_oracle=_NO_ORACLE,
           example='shape_d(annotate_d([1, 2, 3], "a", list("tile", list("columns", 0, 3))))',
           result="list(3)")
@lockstep
def annotate_d(target, name, args=None):
    """Make ``target`` this locality's tile of the distributed array ``name``.

    ``args``: ``list("tile", list("columns", c0, c1) [, list("rows", r0, r1)]
    [, list("pages", p0, p1)])`` (global half-open spans, one per dimension), optionally
    wrapped as ``list("args", list("locality", id, n), list("tile", ...))``; nil means
    the tile is the whole array.  All localities exchange their spans (all_gather) and
    check them: the same ``name``, one span per dimension, spans matching the tile's
    shape, one key for vectors, and in every dimension spans covering [0, n) without
    gaps (overlaps allowed).
    """
    name = str(name)
    problem, box, key, claim = None, None, None, None
    local = target
    try:
        local = _as_tile(target)
        spec = args
        if isinstance(spec, (list, tuple)) and spec and spec[0] == "args":
            for item in spec[1:]:
                if isinstance(item, (list, tuple)) and item and item[0] == "locality":
                    if len(item) != 3:
                        raise PhylanxValueError("list(\"locality\", id, n) needs two numbers")
                    claim = (to_int(item[1], "locality id"), to_int(item[2], "localities"))
                elif isinstance(item, (list, tuple)) and item and item[0] == "tile":
                    spec = item
                    break
            else:
                raise PhylanxValueError("list(\"args\", ...) has no list(\"tile\", ...)")
        if spec is None:
            box = tuple((0, n) for n in local.shape)
        else:
            box, key = tiling.parse_tile(spec, local.ndim)
    except PhylanxError as e:
        problem = e.message
    # the name says which array the tile belongs to: ranks naming it differently made
    # tiles of different arrays into one (an error only at a later exchange, unnamed)
    # (asked before the array exists, which holds the tile: storages.py)
    held, every_held = storages.held(local), []
    layout = tiles.establish(local, box, key, problem, f"array {name!r}", claim,
                             declared={"name": name}, final=True, same_overlaps=True,
                             extra=held, extras=every_held)
    return DistributedArray(local, layout, name, storage=storages.agreed(every_held, name))


def _as_tile(value: Any) -> np.ndarray:
    if isinstance(value, DistributedArray):
        return value.local
    if isinstance(value, (list, tuple)):
        value = np.asarray(value)
    if not isinstance(value, np.ndarray):
        raise PhylanxValueError(f"a tile must be a 1-d, 2-d or 3-d array, got "
                                f"{type(value).__name__}")
    return plain_array(value)     # a masked tile is an error on every rank, not its values
