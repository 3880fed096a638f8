"""The two ways an empty tile's box is written (``distributed/tiling.py``: the other axes'
spans, as ``annotate`` keeps them, or (0, 0) on every axis, as derived layouts write it)
lead every consumer of boxes to the same decision (issue 28, dist50): a table over the
forms, a 7 x 5 array on three ranks with rank 0's or the middle rank's tile empty,
single process (the decisions are the layouts'; each rank's local work is played by
setting ``find_here``).  Before: a fresh table over an array whose empty tile was
(0, 0) on every axis was plain (each column store a gather), a row reduction of it
and a mask tiled the other way took the communicating paths.
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import distributed as api
from phylanx.distributed import tiling
from phylanx.distributed.darray import DistributedArray
from phylanx.distributed.primitives.dist_matrixops import creation, global_reductions
from phylanx.distributed.primitives.dist_matrixops import global_subscripts as subscripts
from phylanx.distributed.tiles import Layout

SHAPE = (7, 5)
ROWS = {"rank 0 empty": [(0, 0), (0, 3), (3, 7)], "middle empty": [(0, 3), (3, 3), (3, 7)],
        "one tile holds all": [(0, 0), (0, 7), (7, 7)]}


def boxes(rows: list, form: str) -> list:
    """Row blocks of SHAPE, the empty one written the ``form`` way."""
    out = []
    for s, e in rows:
        if e > s:
            out.append(((s, e), (0, SHAPE[1])))
        elif form == "other spans kept":
            out.append(((s, e), (0, SHAPE[1])))
        elif form == "other spans kept, rows at 0":
            out.append(((0, 0), (0, SHAPE[1])))
        else:
            out.append(((0, 0), (0, 0)))
    return out


FORMS = ("other spans kept", "other spans kept, rows at 0", "(0, 0) on every axis")


def tiled(rows: list, form: str, rank: int = 0, ndim: int = 2) -> DistributedArray:
    bs = boxes(rows, form)
    if ndim == 1:
        bs = [(b[0],) if not tiling.is_empty(b) or form != FORMS[2] else ((0, 0),) for b in bs]
    layout = Layout(bs, SHAPE[:ndim], "rows" if ndim == 1 else None)
    return DistributedArray(np.zeros(tiling.box_shape(bs[rank])), layout, "t")


def decisions(rows: list, form: str, other: str) -> dict:
    """Every consumer's decision for the layout written ``form`` (a mask ``other``)."""
    x = tiled(rows, form)
    found = {"row spans of a fresh table": creation._row_spans(x),
             "split axes": x.layout.split_axes(),
             "owned cells": x.layout.owned,
             "whole rows": subscripts._whole_rows(x)}
    mask = tiled(rows, other, ndim=1)
    mask.local = mask.local.astype(bool)
    found["row mask"] = subscripts._row_mask(x, (mask,)) is not None
    for axes in ((0,), (1,), (0, 1)):
        local = global_reductions.whole_along(x, axes)
        found[f"local reduction over {axes}"] = local
        if local and len(axes) < 2:
            for keep in (False, True):
                # (equal but for how the empty tiles are written: as the operand's)
                layout = global_reductions.reduced_layout(x, axes, keep)
                found[f"layout over {axes}, keepdims {keep}"] = (layout.shape, [
                    None if tiling.is_empty(b) else b for b in layout.boxes])
    return found


@pytest.mark.parametrize("where", sorted(ROWS))
@pytest.mark.parametrize("form", FORMS[1:])
def test_every_consumer_decides_alike_for_either_form(where, form):
    rows = ROWS[where]
    want = decisions(rows, FORMS[0], FORMS[0])
    got = decisions(rows, form, FORMS[0])
    assert got == want
    assert decisions(rows, FORMS[0], form) == want      # (the mask written the other way)
    assert want["row spans of a fresh table"] == rows
    assert want["local reduction over (1,)"]
    assert want["row mask"] == (where != "one tile holds all")    # (else: not split)
    # along the rows: the all_gather, even when one tile holds every row
    assert not want["local reduction over (0,)"]
    assert not want["local reduction over (0, 1)"]      # the empty tile is not the whole


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("reduce", [np.sum, np.max, np.mean])
@pytest.mark.parametrize("where, axis", [("rank 0 empty", 1), ("middle empty", 1),
                                         ("one tile holds all", 1)])
@pytest.mark.parametrize("keep", [False, True])
def test_an_empty_tile_reduces_to_an_empty_tile_of_its_box(form, reduce, where, axis, keep,
                                                           monkeypatch):
    """Each rank's local reduction (played in turn): the empty tile's result has its
    box's shape and NumPy's dtype (NumPy's max refuses a (0, 0) tile along either
    axis), and the tiles make up NumPy's answer."""
    whole = np.arange(35.0).reshape(SHAPE) % 6 - 2
    rows = ROWS[where]
    parts = []
    for rank in range(3):
        monkeypatch.setattr(api, "find_here", lambda rank=rank: rank)
        x = tiled(rows, form, rank)
        x.local = whole[tuple(slice(s, e) for s, e in x.layout.boxes[rank])].copy()
        assert global_reductions.whole_along(x, (axis,))
        got = global_reductions._local(x, (axis,), keep,
                                       lambda t: reduce(t, axis=axis, keepdims=keep))
        box = got.layout.boxes[rank]
        assert got.local.shape == tiling.box_shape(box)
        assert got.local.dtype == reduce(whole, axis=axis).dtype
        parts.append(got.local)
    want = reduce(whole, axis=axis, keepdims=keep)
    np.testing.assert_array_equal(
        np.asarray(got.layout.shape), np.asarray(want.shape))
    assembled = np.zeros(want.shape)
    for box, part in zip(got.layout.boxes, parts):
        if not tiling.is_empty(box):
            assembled[tuple(slice(s, e) for s, e in box)] = part
    np.testing.assert_array_equal(assembled, want)
