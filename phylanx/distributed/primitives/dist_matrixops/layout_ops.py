"""Layout changes of tiled arrays (reference §4.3): ``transpose_d``, ``retile_d``,
``all_gather_d``, and our ``local_tile`` (the explicit local view).

Transposes need no communication: every rank
knows every tile's box, so each computes the new layout by itself.  ``retile_d``
fetches the parts of its new tile from their owners; ``all_gather_d`` gathers.
"""
from __future__ import annotations

import numpy as np

from .... import distributed as api
from ....errors import PhylanxError, PhylanxValueError
from ....primitives.dtypes import to_int
from ....primitives.registry import primitive
from ... import tiles, tiling
from ...darray import DistributedArray, as_tiled
from ...tiles import Layout
from .._support import ORDERED, lockstep, placement
from .._support import tiling_type as check_tiling_type

_LOCAL = {"no_oracle": "works on the tiles' layout (tested under mpiexec)"}


@primitive("transpose_d", "transpose_d(_1)", "transpose_d(_1, _2)", flags=ORDERED,
           takes_tiled=True, **_LOCAL,
           example='shape_d(transpose_d(constant_d(1, list(4, 3))))', result="list(3, 4)")
@lockstep(local=True)
def transpose_d(a, axes=None):
    """Transpose of a distributed array, named ``<name>_transposed``.

    The local tile is transposed and the spans permuted (rows <-> columns; a
    vector's orientation flips).  The result is NumPy's view: its tile is a view of
    ``a``'s, so a store into either is seen by the other (before, a copy: ``xt = x.T;
    x += 1; xt @ r`` gave the stale product)."""
    a = as_tiled(a, "the argument")
    layout, perm = transposed_layout(a, axes)
    local = a.local.view() if a.ndim == 1 else np.transpose(a.local, perm)
    return a.derive(local, layout, suffix="_transposed")


def transposed_layout(a, axes=None) -> tuple[Layout, tuple[int, ...]]:
    """(the layout of ``transpose_d(a, axes)``, the permutation): the spans permuted; a
    vector's orientation flips."""
    if a.ndim == 1:
        key = "rows" if a.layout.key1d == "columns" else "columns"
        return Layout(a.layout.boxes, a.shape, key), (0,)
    perm = tuple(range(a.ndim))[::-1] if axes is None else \
        tuple(to_int(x, "axes") % a.ndim for x in axes)
    if sorted(perm) != list(range(a.ndim)):
        raise PhylanxValueError(f"axes {list(perm)} are not a permutation of the "
                                f"{a.ndim} axes")
    boxes = [tuple(b[p] for p in perm) for b in a.layout.boxes]
    return Layout(boxes, tuple(a.shape[p] for p in perm)), perm


@primitive("retile_d",
           "retile_d(_1_a, __arg(_2_tiling_type, \"sym\"), __arg(_3_intersection, nil), "
           "__arg(_4_numtiles, num_localities()), __arg(_5_new_tiling, nil))",
           flags=ORDERED, takes_tiled=True, **_LOCAL,
           example='shape_d(retile_d(constant_d(1, list(4, 3)), "row"))', result="list(4, 3)")
@lockstep
def retile_d(a, tiling_type="sym", intersection=None, numtiles=None, new_tiling=None):
    """Redistribute a distributed array to a new tiling, named ``<name>_retiled``.

    The tiling is sym, row, column, page (with overlap ``intersection``), or ``user``
    with ``new_tiling`` this locality's new ``list("tile", ...)``.  Each locality
    fetches its new tile's parts from their owners."""
    a = as_tiled(a, "the argument")
    problem, box, key = None, None, a.layout.key1d
    kind = str(tiling_type or "sym")
    try:
        if kind == "user" or new_tiling is not None:
            if new_tiling is None:
                raise PhylanxValueError("tiling_type \"user\" needs new_tiling, this "
                                        "locality's list(\"tile\", ...)")
            spec = new_tiling
            if isinstance(spec, (list, tuple)) and spec and spec[0] == "args":
                spec = next((i for i in spec[1:] if isinstance(i, (list, tuple))
                             and i and i[0] == "tile"), None)
            box, parsed_key = tiling.parse_tile(spec, a.ndim)
            key = parsed_key or key
        else:
            _, count = placement(None, numtiles)
            if count != api.num_localities():
                raise PhylanxValueError(f"numtiles {count} differs from the number of "
                                        f"localities ({api.num_localities()})")
            box = tiling.tile_boxes(a.shape, count, check_tiling_type(kind),
                                    intersection)[api.find_here()]
        if any(e > n for (_, e), n in zip(box, a.shape)):
            raise PhylanxValueError(f"the new tile {list(box)} leaves the array of shape "
                                    f"{a.shape}")
    except PhylanxError as e:
        problem = e.message
    placeholder = None if problem else np.empty(tiling.box_shape(box), np.int8)
    layout = tiles.establish(placeholder, box, key, problem, f"retiling {a.full_name!r}")
    if layout.shape != a.shape:
        raise PhylanxValueError(f"the new tiles make an array of shape {layout.shape}, not "
                                f"{a.shape}")
    local = tiles.fetch(a.local, a.layout, [box])[0]
    return a.derive(local, layout, suffix="_retiled")


@primitive("all_gather_d", "all_gather_d(_1_local_result)", flags=ORDERED, takes_tiled=True,
           no_oracle="gathers the tiles of all localities",
           example='all_gather_d(annotate_d([1, 2], "g", list("tile", list("columns", 0, 2))))',
           result="[1, 2]")
@lockstep
def all_gather_d(local_result):
    """The whole distributed array on every locality, as a plain array.

    A plain array is returned as it is."""
    if isinstance(local_result, DistributedArray):
        return tiles.gather(local_result.local, local_result.layout, final=True)
    return local_result


@primitive("local_tile", "local_tile(_1)", takes_tiled=True, extension=True,
           no_oracle="this locality's tile of a distributed array",
           example='local_tile(annotate_d([1, 2], "t", list("tile", list("columns", 0, 2))))',
           result="[1, 2]")
def local_tile(a):
    """This locality's tile of a distributed array, as a plain array.

    The explicit local view: other primitives never take a tile for the whole array
    (without a distribution rule they refuse a distributed array).  A plain array is
    returned as it is."""
    if isinstance(a, DistributedArray):
        return a.local
    return a
