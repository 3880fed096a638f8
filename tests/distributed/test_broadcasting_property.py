"""Laws of the tile-by-tile element-wise rule (``distributed/broadcasting.py``), for any
number of localities, checked in one process by playing every rank in turn.

For random broadcastable shapes, random tilings (row, column, sym; uneven; with more
ranks than rows, so tiles are empty) and a random choice of which operands are tiled:
the result tile each rank computes from its parts of the operands equals NumPy's
broadcast result cut to that rank's box; the boxes make up the result's shape; and the
driver has the result's shape whenever a tiled operand does.  The MPI runs
(``programs/global_semantics.py``) check the same with real ranks."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx.distributed import broadcasting, tiling
from phylanx.distributed.darray import DistributedArray
from phylanx.distributed.tiles import Layout


def layout_of(shape, ranks, kind, zeroed=False):
    """``zeroed``: empty tiles written (0, 0) on every axis (``v[:, None]``'s,
    ``concatenate``'s form) instead of with the other axes' spans (``annotate``'s)."""
    layout = _layout_of(shape, ranks, kind)
    if not zeroed:
        return layout
    boxes = [tuple((0, 0) for _ in b) if tiling.is_empty(b) else b for b in layout.boxes]
    return Layout(boxes, layout.shape, layout.key1d)


def _layout_of(shape, ranks, kind):
    kind = kind if len(shape) == 2 or kind == "row" else "row"
    axis = {"row": 0, "column": 1}.get(kind)
    if axis is not None and shape[axis] < ranks:
        # fewer rows than ranks: the last ranks' tiles are empty (as annotations allow)
        spans = [(min(r, shape[axis]), min(r + 1, shape[axis])) for r in range(ranks)]
        spans[-1] = (spans[-1][0], shape[axis])
        boxes = [tuple(s if a == axis else (0, n) for a, n in enumerate(shape)) for s in spans]
    elif kind == "sym" and min(shape) < ranks:
        boxes = [tuple((0, n) for n in shape)] + [tuple((0, 0) for _ in shape)] * (ranks - 1)
    else:
        boxes = tiling.tile_boxes(shape, ranks, kind)
    return Layout(boxes, shape, "columns" if len(shape) == 1 else None)


@st.composite
def cases(draw):
    ranks = draw(st.integers(1, 4))
    ndim = draw(st.integers(1, 2))
    result = tuple(draw(st.integers(1, 6)) for _ in range(ndim))
    count = draw(st.integers(1, 3))
    shapes = []
    for _ in range(count):
        k = draw(st.integers(1, ndim))
        shapes.append(tuple(n if draw(st.booleans()) else 1 for n in result[ndim - k:]))
    shapes[0] = result if draw(st.booleans()) else shapes[0]
    tiled = [draw(st.booleans()) for _ in shapes]
    tiled[draw(st.integers(0, count - 1))] = True
    kinds = [draw(st.sampled_from(["row", "column", "sym"])) for _ in shapes]
    return ranks, shapes, tiled, kinds, draw(st.integers(0, 2**31 - 1))


@settings(max_examples=150, deadline=None)
@given(cases())
def test_each_ranks_tile_is_numpys_result_cut_to_its_box(case):
    ranks, shapes, tiled, kinds, seed = case
    rng = np.random.default_rng(seed)
    wholes = [rng.normal(size=s) for s in shapes]
    result_shape = np.broadcast_shapes(*shapes)
    want = wholes[0]
    for w in wholes[1:]:
        want = want * 2.0 + w
    operands = [DistributedArray(None, layout_of(s, ranks, k), f"t{i}") if t else w
                for i, (s, t, k, w) in enumerate(zip(shapes, tiled, kinds, wholes))]
    tiles_ = [a for a in operands if isinstance(a, DistributedArray)]
    assert broadcasting.result_shape(operands) == result_shape
    driver = broadcasting.choose_driver(tiles_, result_shape)
    if any(a.shape == result_shape for a in tiles_):
        assert driver.shape == result_shape
    boxes = broadcasting._boxes(driver, result_shape)
    assert tiling.check_layout(boxes) == result_shape or any(tiling.is_empty(b) for b in boxes)
    covered = np.zeros(result_shape, bool)
    for box in boxes:
        parts = [w[tuple(slice(*p) for p in broadcasting._part(box, w.shape, result_shape))]
                 for w in wholes]
        got = parts[0]
        for p in parts[1:]:
            got = got * 2.0 + p
        np.testing.assert_array_equal(got, want[tuple(slice(s, e) for s, e in box)])
        covered[tuple(slice(s, e) for s, e in box)] = True
    assert covered.all()


def test_the_driver_is_the_operand_that_moves_least():
    # x tiled by rows, y by columns, z like x: z + y + x keeps the rows (two operands
    # local), whichever comes first
    shape = (8, 6)
    x = DistributedArray(None, layout_of(shape, 4, "row"), "x")
    y = DistributedArray(None, layout_of(shape, 4, "column"), "y")
    z = DistributedArray(None, layout_of(shape, 4, "row"), "z")
    assert broadcasting.choose_driver([y, x, z], shape) is x
    assert broadcasting.choose_driver([y, x], shape) is y          # a tie: the first
    row = DistributedArray(None, layout_of((6,), 4, "row"), "r")
    assert broadcasting.choose_driver([row, x], shape) is x        # the result's shape


@st.composite
def aligned_cases(draw):
    ranks = draw(st.integers(1, 4))
    shape = tuple(draw(st.integers(1, 6)) for _ in range(draw(st.integers(1, 2))))
    kind = draw(st.sampled_from(["row", "column", "sym"]))
    # operands: tiled alike ("t"; "e": an equal layout, another object), a number, a 0-d
    # array; or one that breaks the alignment ("row": a plain row, "other": another tiling)
    roles = draw(st.lists(st.sampled_from(["t", "e", "number", "0d", "row", "other"]),
                          min_size=1, max_size=4))
    return (ranks, shape, kind, ["t"] + roles, draw(st.integers(0, 2**31 - 1)),
            draw(st.booleans()), draw(st.booleans()))


@settings(max_examples=100, deadline=None)
@given(aligned_cases())
def test_the_aligned_shortcut_is_the_general_path(case):
    """``broadcasting.elementwise``'s shortcut for operands on one layout gives what the
    general path (cost model, parts) gives on every rank: the same tile, name,
    generation and layout; operands it does not cover take the general path.  Empty
    tiles are written either way (``tiling.py``), each tile's array of its box's shape."""
    import phylanx.distributed as api
    ranks, shape, kind, roles, seed, zeroed, other_zeroed = case
    rng = np.random.default_rng(seed)
    layout = layout_of(shape, ranks, kind, zeroed)
    other = layout_of(shape, ranks, "column" if kind != "column" else "row", other_zeroed)
    values = {"number": 0.5, "0d": np.array(1.5), "row": rng.normal(size=shape[-1:])}
    real = api.find_here
    try:
        for rank in range(ranks):
            api.find_here = lambda rank=rank: rank
            operands = []
            for i, role in enumerate(roles):
                if role in ("t", "e", "other"):
                    lay = {"t": layout, "e": Layout(layout.boxes, layout.shape, layout.key1d),
                           "other": other}[role]
                    local = rng.normal(size=tiling.box_shape(lay.boxes[rank]))
                    operands.append(DistributedArray(local, lay, f"a{i}", i))
                else:
                    operands.append(values[role])
            aligned = broadcasting.aligned_driver(operands)
            covered = all(r in ("t", "e", "number", "0d") or (r == "other" and other == layout)
                          for r in roles)
            assert (aligned is operands[0]) == covered, roles
            if not covered:
                continue          # (the general path may fetch: a collective)

            def fn(*xs):
                out = xs[0]
                for x in xs[1:]:
                    out = out * 2.0 - x
                return out
            want = broadcasting.general_elementwise(fn, operands)
            general = broadcasting.result_layout
            broadcasting.result_layout = None      # the shortcut never asks the cost model
            try:
                got = broadcasting.elementwise(fn, operands)
            finally:
                broadcasting.result_layout = general
            assert (got.name, got.generation, got.layout) == \
                (want.name, want.generation, want.layout)
            np.testing.assert_array_equal(got.local, want.local)
            assert got.local.shape == tiling.box_shape(got.layout.boxes[rank])
    finally:
        api.find_here = real


def test_an_empty_tile_of_any_box_shape_gives_an_empty_part():
    """An empty tile may be written with the array's other spans (``annotate_d``: rows
    (0, 0), columns (0, 5)) or with every span (0, 0) (``v[:, None]`` of a 1-d array
    with an empty tile, ``concatenate``); either way its rank computes an empty part of
    the result.  ``x > v[:, None]`` with rank 0's tiles empty sliced v's (0, 0) tile for
    the (0, 1) part x's tile needs and failed on rank 0 alone, ending the job (user49)."""
    import phylanx.distributed as api
    rng = np.random.default_rng(49)
    x, column = rng.normal(size=(7, 5)), rng.normal(size=(7, 1))
    x_layout = Layout([((0, 0), (0, 5)), ((0, 4), (0, 5)), ((4, 7), (0, 5))], (7, 5), None)
    c_layout = Layout([((0, 0), (0, 0)), ((0, 4), (0, 1)), ((4, 7), (0, 1))], (7, 1), None)
    real = api.find_here
    try:
        for rank in range(3):
            api.find_here = lambda rank=rank: rank

            tx, tc = (DistributedArray(whole[tuple(slice(*s) for s in lay.boxes[rank])], lay,
                                       name)
                      for whole, lay, name in ((x, x_layout, "x"), (column, c_layout, "c")))
            for operands, plain in (((tx, tc), (x, column)), ((tc, tx), (column, x)),
                                    ((tc, x[0]), (column, x[0]))):
                got = broadcasting.general_elementwise(np.subtract, list(operands))
                want = np.subtract(*plain)[tuple(slice(*s) for s in got.layout.boxes[rank])]
                assert got.local.shape == want.shape, (rank, got.local.shape, want.shape)
                np.testing.assert_array_equal(got.local, want)
    finally:
        api.find_here = real
