"""Creating tiled arrays (reference §4.2-4.3): ``constant_d``, ``random_d``,
``identity_d``, ``diag_d`` (``annotate_d`` is in ``core/``, ``file_read_csv_d`` in
``fileio/``, the original's categories), and the rule of ``__fresh_rows_of`` (a table
no other name holds, allocated with the row tiling of the array whose rows it has:
:func:`fresh_rows_rule`, no message).

Each returns this locality's tile as a ``DistributedArray``; building it is
collective (an all_gather of the tiles' boxes checks the layout), so every rank
must call these in the same order.  A problem on any rank raises the same located
error on every rank.  In a single process they return the whole array as one tile.
"""
from __future__ import annotations

import numpy as np

from .... import distributed as api
from ....errors import PhylanxError, PhylanxValueError
from ....primitives.array_args import as_shape
from ....primitives.dtypes import to_dtype, to_int, to_shape
from ....primitives.registry import primitive
from ....primitives.rules import DISTRIBUTION
from ... import tiles, tiling
from ...darray import DistributedArray, as_tiled
from ...tiles import Layout
from .._support import ORDERED, auto_name, create, lockstep, placement
from .._support import tiling_type as check_tiling_type

_NO_ORACLE = "builds one locality's tile of a distributed array"


@primitive("constant_d",
           "constant_d(_1_value, _2_shape, __arg(_3_tile_index, find_here()), "
           "__arg(_4_numtiles, num_localities()), __arg(_5_name, \"\"), "
           "__arg(_6_tiling_type, \"sym\"), __arg(_7_intersection, nil), "
           "__arg(_8_dtype, \"float64\"))",
           flags=ORDERED, no_oracle=_NO_ORACLE,
           example="shape_d(constant_d(1, list(4, 2)))", result="list(4, 2)")
@lockstep
def constant_d(value, shape, tile_index=None, numtiles=None, name="", tiling_type="sym",
               intersection=None, dtype="float64"):
    """This locality's tile of a ``shape`` array filled with ``value``.

    ``tiling_type``: sym, row, column or page (reference §4.2); ``intersection``: tiles
    overlap by that many elements (an int, or one per dimension); tile ``tile_index``
    of ``numtiles``.  Unnamed arrays are called ``full_array_<k>``.
    """
    dt = to_dtype(dtype, "float64")
    fill = np.asarray(value).astype(dt)
    return create(auto_name(name, "full_array"), to_shape(shape), tile_index,
                  numtiles, tiling_type, intersection,
                  lambda box: np.full(tiling.box_shape(box), fill, dt),
                  declared={"value": fill})


@primitive("random_d",
           "random_d(_1_shape, __arg(_2_tile_index, find_here()), "
           "__arg(_3_numtiles, num_localities()), __arg(_4_name, \"\"), "
           "__arg(_5_tiling_type, \"sym\"), __arg(_6_mean, 0.0), __arg(_7_std, 1.0))",
           flags=ORDERED, side_effects=True, no_oracle=_NO_ORACLE,
           example="shape_d(random_d(list(3, 2)))", result="list(3, 2)")
@lockstep
def random_d(shape, tile_index=None, numtiles=None, name="", tiling_type="sym", mean=0.0,
             std=1.0):
    """This locality's tile of a ``shape`` array of normal(``mean``, ``std``) numbers.

    Every tile draws from its own stream, derived from phylanx's generator
    (``set_seed``) and the tile index: reproducible, and different on every tile.
    """
    from ....primitives.matrixops import random_numbers
    seed = int(random_numbers._rng.integers(2 ** 62))   # the same on every rank
    index, _ = placement(tile_index, numtiles)

    def make(box):
        rng = np.random.default_rng([seed, index])
        return rng.normal(float(mean), float(std), tiling.box_shape(box))
    # mean and std are the whole array's: agreed like the shape (a rank drawing with
    # its own would hold a tile of another distribution, a silent mix; arrays: compared
    # by their bytes, so a NaN agrees with itself)
    return create(auto_name(name, "random_array"), to_shape(shape), tile_index,
                  numtiles, tiling_type, None, make,
                  declared={"mean": np.asarray(float(mean)),
                            "std": np.asarray(float(std))})


@primitive("identity_d",
           "identity_d(_1_sz, __arg(_2_tile_index, find_here()), "
           "__arg(_3_numtiles, num_localities()), __arg(_4_name, \"\"), "
           "__arg(_5_tiling_type, \"sym\"), __arg(_6_dtype, nil))",
           flags=ORDERED, no_oracle=_NO_ORACLE,
           example="shape_d(identity_d(3))", result="list(3, 3)")
@lockstep
def identity_d(sz, tile_index=None, numtiles=None, name="", tiling_type="sym", dtype=None):
    """This locality's tile of the ``sz`` x ``sz`` identity matrix (sym/row/column)."""
    n = to_int(sz, "sz")
    dt = to_dtype(dtype, "float64")

    def make(box):
        (r0, r1), (c0, c1) = box
        local = np.zeros((r1 - r0, c1 - c0), dt)
        for i in range(max(r0, c0), min(r1, c1)):
            local[i - r0, i - c0] = 1
        return local
    return create(auto_name(name, "identity_array"), (n, n), tile_index,
                  numtiles, tiling_type, None, make)


@primitive("diag_d",
           "diag_d(_1_arr, __arg(_2_k, 0), __arg(_3_tiling_type, \"sym\"), "
           "__arg(_4_tile_index, find_here()), __arg(_5_numtiles, num_localities()))",
           flags=ORDERED, takes_tiled=True, no_oracle=_NO_ORACLE,
           example='shape_d(diag_d(annotate_d([1, 2], "v", list("tile", list("columns", 0, 2)))'
                   ', 1))', result="list(3, 3)")
@lockstep
def diag_d(arr, k=0, tiling_type="sym", tile_index=None, numtiles=None):
    """This locality's tile of the matrix with the distributed vector ``arr`` on diagonal k.

    Like numpy.diag; the vector parts a tile needs are fetched from
    their owners.  The result is named ``<arr>_diag``."""
    v = as_tiled(arr, "arr")
    if v.ndim != 1:
        raise PhylanxValueError(f"diag_d needs a distributed vector, got a {v.ndim}-d array")
    k = to_int(k, "k")
    n = v.shape[0] + abs(k)
    problem, box, need = None, None, (0, 0)
    try:
        index, count = placement(tile_index, numtiles)
        boxes = tiling.tile_boxes((n, n), count, check_tiling_type(tiling_type))
        if not 0 <= index < count:
            raise PhylanxValueError(f"tile_index {index} is out of range (0 to {count - 1})")
        box = boxes[index]
        (r0, r1), (c0, c1) = box
        # vector index j sits at (j + max(-k, 0), j + max(k, 0))
        lo = max(r0 - max(-k, 0), c0 - max(k, 0), 0)
        hi = min(r1 - max(-k, 0), c1 - max(k, 0), v.shape[0])
        need = (lo, max(lo, hi))
    except PhylanxError as e:
        problem = e.message
    tiles.agree(problem, f"diagonal of {v.full_name!r}")
    part = tiles.fetch(v.local, v.layout, [(need,)])[0]
    (r0, r1), (c0, c1) = box
    local = np.zeros((r1 - r0, c1 - c0), v.dtype)
    for j in range(*need):
        local[j + max(-k, 0) - r0, j + max(k, 0) - c0] = part[j - need[0]]
    layout = tiles.establish(local, box, None, None, f"diagonal of {v.full_name!r}",
                             final=True)
    return v.derive(local, layout, suffix="_diag", new_memory=True)




def _row_spans(x: DistributedArray) -> list | None:
    """Every rank's rows of ``x`` when its tiles are whole-width row blocks in rank
    order that cover the rows once, else None.  An empty tile holds the rows (e, e),
    e the rows before it, however its box is written (``tiling.py``: (0, 0) on every
    axis or the other axes' spans; an annotated table and a derived one alike)."""
    whole, spans, end = tuple((0, n) for n in x.shape[1:]), [], 0
    for box in x.layout.boxes:
        if tiling.is_empty(box):
            spans.append((end, end))
        elif box[1:] != whole or box[0][0] != end:
            return None
        else:
            spans.append(box[0])
            end = box[0][1]
    return spans if end == x.shape[0] else None


def fresh_rows_rule(impl, args: list):
    """``__fresh_rows_of(x, shape, value, dtype)`` with a tiled ``x``: the table
    allocated with ``x``'s row blocks (each rank fills its rows; the layout is ``x``'s,
    which every rank holds alike: no message), when ``x`` is tiled by whole rows and the
    table has 1 to 3 axes; otherwise the plain table (the kernel, ``x`` unused).  A tiled
    shape, value or dtype: declined (the gather fallback)."""
    x, rest = args[0], args[1:]
    if type(x) is not DistributedArray or any(type(a) is DistributedArray for a in rest):
        return NotImplemented
    dims = as_shape(rest[0])
    spans = _row_spans(x)
    if spans is None or not 1 <= len(dims) <= 3 or dims[0] != x.shape[0]:
        return impl(None, *rest)
    here = spans[api.find_here()]
    value = rest[1]
    if np.ndim(value) >= len(dims) and np.shape(value)[np.ndim(value) - len(dims)] != 1:
        # a fill value reaching the rows axis (np.full((n, k), w[:, None])): this
        # rank's rows of it (a value NumPy cannot broadcast: the plain table raises it)
        if np.ndim(value) != len(dims) or np.shape(value)[0] != dims[0]:
            return impl(None, *rest)
        value = np.asarray(value)[here[0]:here[1]]
    local = np.asarray(impl(None, (here[1] - here[0], *dims[1:]), value, *rest[2:]))
    boxes = [((s, e), *((0, n) for n in dims[1:])) for s, e in spans]
    key1d = ("rows" if x.ndim > 1 else x.layout.key1d) if len(dims) == 1 else None
    # (the table is memory of its own: a store into it changes no view of x)
    return x.derive(local, Layout(boxes, tuple(dims), key1d), suffix="_table",
                    new_memory=True)


DISTRIBUTION.defrule("__fresh_rows_of", fresh_rows_rule)
