"""The tiling arithmetic of reference §4.2 (``phylanx/distributed/tiling.py``), single process.

Laws checked with hypothesis: tiles cover the array without gaps, the union is the
whole, owned cells partition it, sym/row/column blocks differ by at most one
along a split axis, overlaps grow interior tiles on both sides and edge tiles
inward only.  Then the original's documented special cases.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx.distributed import tiling
from phylanx.errors import PhylanxValueError


def coverage(boxes, shape):
    count = np.zeros(shape, int)
    for box in boxes:
        count[tuple(slice(s, e) for s, e in box)] += 1
    return count


@st.composite
def tiled_shapes(draw):
    ndim = draw(st.integers(1, 3))
    kinds = {1: ["sym"], 2: ["sym", "row", "column"], 3: ["sym", "row", "column", "page"]}
    kind = draw(st.sampled_from(kinds[ndim]))
    numtiles = draw(st.integers(1, 9))
    shape = tuple(draw(st.integers(1, 12)) for _ in range(ndim))
    return shape, numtiles, kind


@settings(max_examples=300, deadline=None)
@given(tiled_shapes())
def test_tiles_cover_the_array_once_and_sizes_differ_by_at_most_one(case):
    shape, numtiles, kind = case
    try:
        boxes = tiling.tile_boxes(shape, numtiles, kind)
    except PhylanxValueError as e:
        assert "fewer elements than tiles" in e.message
        counts = tiling.grid(shape, numtiles, kind)
        assert any(n < c for n, c in zip(shape, counts))
        return
    assert len(boxes) == numtiles
    assert np.array_equal(coverage(boxes, shape), np.ones(shape, int))   # union, no gaps
    assert tiling.check_layout(boxes) == shape
    for ax in range(len(shape)):
        sizes = {e - s for s, e in (b[ax] for b in boxes)}
        assert max(sizes) - min(sizes) <= 1, (ax, sizes)
    counts = tiling.grid(shape, numtiles, kind)
    assert int(np.prod(counts)) == numtiles


@settings(max_examples=200, deadline=None)
@given(tiled_shapes(), st.integers(0, 3))
def test_overlap_grows_inner_sides_and_owned_cells_partition(case, extra):
    shape, numtiles, kind = case
    try:
        plain = tiling.tile_boxes(shape, numtiles, kind)
        boxes = tiling.tile_boxes(shape, numtiles, kind, extra)
    except PhylanxValueError:
        return
    counts = tiling.grid(shape, numtiles, kind)
    for p, b in zip(plain, boxes):
        for ax, ((ps, pe), (bs, be)) in enumerate(zip(p, b)):
            if counts[ax] == 1:
                assert (bs, be) == (ps, pe)
            else:
                assert bs == (ps - extra if ps > 0 else 0)
                assert be == (pe + extra if pe < shape[ax] else shape[ax])
    assert coverage(boxes, shape).min() >= 1
    owned = tiling.owned_cells(boxes, shape)
    cells = [c for mine in owned for c in mine]
    assert np.array_equal(coverage(cells, shape), np.ones(shape, int))
    for rank, mine in enumerate(owned):
        for cell in mine:
            assert tiling.intersect(cell, boxes[rank]) == cell


@pytest.mark.parametrize("shape, numtiles, kind, counts", [
    ((6, 4), 2, "sym", (2, 1)), ((4, 6), 2, "sym", (1, 2)), ((4, 4), 2, "sym", (2, 1)),
    ((8, 8), 4, "sym", (2, 2)), ((9, 4), 6, "sym", (3, 2)), ((4, 9), 6, "sym", (2, 3)),
    ((10, 3), 5, "sym", (5, 1)), ((6, 6), 3, "row", (3, 1)), ((6, 6), 3, "column", (1, 3)),
    ((4, 5, 6), 2, "sym", (1, 1, 2)), ((4, 5, 6), 4, "sym", (1, 2, 2)),
    ((6, 5, 4), 4, "sym", (2, 2, 1)), ((4, 4, 4), 8, "sym", (2, 2, 2)),
    ((3, 4, 6), 6, "sym", (1, 2, 3)), ((6, 2, 2), 3, "page", (3, 1, 1)),
    ((2, 6, 2), 3, "row", (1, 3, 1)), ((7,), 3, "sym", (3,)),
])
def test_grid_follows_the_original(shape, numtiles, kind, counts):
    assert tiling.grid(shape, numtiles, kind) == counts


def test_documented_examples():
    assert tiling.split(10, 3) == [(0, 4), (4, 7), (7, 10)]
    # the CSV test of the original: 30 rows, 2 tiles, intersection 2
    assert [b[0] for b in tiling.tile_boxes((30, 4), 2, "sym", 2)] == [(0, 17), (13, 30)]
    # tiles numbered row-major
    assert tiling.tile_boxes((4, 4), 4) == [((0, 2), (0, 2)), ((0, 2), (2, 4)),
                                            ((2, 4), (0, 2)), ((2, 4), (2, 4))]
    assert tiling.tile_boxes((6, 4), 3, "row", (1, 0)) == [((0, 3), (0, 4)), ((1, 5), (0, 4)),
                                                           ((3, 6), (0, 4))]


@pytest.mark.parametrize("call, words", [
    (lambda: tiling.split(2, 3), "fewer elements than tiles"),
    (lambda: tiling.tile_boxes((2, 2), 4, "row"), "fewer elements than tiles"),
    (lambda: tiling.tile_boxes((4,), 2, "page"), "page"),
    (lambda: tiling.tile_boxes((2, 2, 2, 2), 1), "1-d, 2-d or 3-d"),
    (lambda: tiling.tile_boxes((), 1), "1-d, 2-d or 3-d"),
    (lambda: tiling.tile_boxes((4, 4), 2, "diagonal"), "unknown tiling_type"),
    (lambda: tiling.tile_boxes((6,), 6, "sym", 2), "leave the array"),
    (lambda: tiling.tile_boxes((6, 6), 2, "row", (1, 2, 3)), "intersection has 3"),
    (lambda: tiling.check_layout([((0, 2),), ((3, 5),)]), "gap"),
    (lambda: tiling.check_layout([((1, 2),), ((2, 5),)]), "gap"),
    (lambda: tiling.check_layout([((0, 2), (0, 2)), ((2, 4), (2, 4))]), "no tile"),
    (lambda: tiling.parse_tile(["tile", ["columns", 0, 2]], 2), "one span per dimension"),
    (lambda: tiling.parse_tile(["tile", ["pages", 0, 2]], 1), "'rows' or 'columns'"),
    (lambda: tiling.parse_tile(["tile", ["rows", 2, 1], ["columns", 0, 1]], 2), "valid range"),
])
def test_bad_tilings_raise(call, words):
    with pytest.raises(PhylanxValueError, match=words):
        call()


def test_annotations_parse_in_any_order_and_round_trip():
    a = tiling.parse_tile(["tile", ["columns", 0, 3], ["rows", 2, 4]], 2)
    b = tiling.parse_tile(["tile", ["rows", 2, 4], ["columns", 0, 3]], 2)
    assert a == b == (((2, 4), (0, 3)), None)
    assert tiling.parse_tile(tiling.format_tile(a[0]), 2) == a
    assert tiling.parse_tile(["tile", ["rows", 1, 1]], 1) == (((1, 1),), "rows")
    assert tiling.check_layout([((0, 3),), ((2, 2),), ((2, 5),)]) == (5,)   # empty, overlap
