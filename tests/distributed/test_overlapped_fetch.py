"""``overlapped_fetch`` in one process: the remote pieces are handed out in the order
they complete (wait-any), and the pieces' contributions add up to the same bits
whatever order they come in."""
from __future__ import annotations

import threading

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from phylanx.distributed import overlapped_fetch
from phylanx.distributed.overlapped_fetch import Arrivals, OrderedSum
from phylanx.runtime.futures import external


def test_remote_pieces_come_in_the_order_they_complete():
    futures = {i: external() for i in range(1, 4)}
    parts = [(0, ((0, 1),)), (0, ((1, 2),)), (0, ((2, 3),)), (0, ((3, 4),))]
    arrivals = Arrivals(parts, {0: np.zeros(1)}, futures)
    assert [p.index for p in arrivals.local] == [0]
    pieces = arrivals.arrived()
    futures[3].set_result(np.full(1, 3.0))
    assert next(pieces).index == 3           # the one done, not the first asked for
    threading.Timer(0.05, futures[1].set_result, (np.full(1, 1.0),)).start()
    assert next(pieces).index == 1           # waited for: the next one to complete
    futures[2].set_result(np.full(1, 2.0))
    last = next(pieces)
    assert (last.index, last.box, float(last.value[0])) == (2, ((2, 3),), 2.0)
    assert list(pieces) == []


def test_the_wanted_boxes_assembled_from_local_and_remote_pieces():
    whole = np.arange(12.0).reshape(3, 4)
    remote = external()
    arrivals = Arrivals([(0, ((0, 3), (0, 2))), (0, ((0, 3), (2, 4)))],
                        {0: whole[:, :2]}, {1: remote})
    remote.set_result(whole[:, 2:].copy())
    np.testing.assert_array_equal(arrivals.assembled([((0, 3), (0, 4))], whole.dtype)[0],
                                  whole)


def _sum_in(order, values, regions, shape):
    out = np.zeros(shape)
    total = OrderedSum(out, regions)
    for i in order:
        total.add(i, values[i])
    return out


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_contributions_add_to_the_same_bits_in_any_order(data):
    # overlapping regions (a split contraction: every piece adds to the same rows)
    count = data.draw(st.integers(2, 6))
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16)))
    regions = {i: ((0, 3), (int(rng.integers(0, 2)), 4)) for i in range(count)}
    values = {i: rng.normal(size=(3, 4 - regions[i][1][0])) * 10.0 ** rng.integers(-8, 8)
              for i in range(count)}
    order = data.draw(st.permutations(range(count)))
    got = _sum_in(order, values, regions, (3, 4))
    want = _sum_in(range(count), values, regions, (3, 4))
    assert got.tobytes() == want.tobytes()
    # and it is the sum (the oracle: NumPy's, in the parts' order)
    oracle = np.zeros((3, 4))
    for i in range(count):
        oracle[:, regions[i][1][0]:] += values[i]
    np.testing.assert_array_equal(got, oracle)


def test_disjoint_regions_are_written_as_they_come():
    out = np.zeros(4)
    total = OrderedSum(out, {0: ((0, 2),), 1: ((2, 4),)})
    total.add(1, np.array([3.0, 4.0]))
    np.testing.assert_array_equal(out, [0.0, 0.0, 3.0, 4.0])     # not held back
    total.add(0, np.array([1.0, 2.0]))
    np.testing.assert_array_equal(out, [1.0, 2.0, 3.0, 4.0])


def test_one_locality_hands_out_views_of_the_tile():
    tile = np.arange(6.0).reshape(2, 3)
    from phylanx.distributed.tiles import Layout
    layout = Layout([((0, 2), (0, 3))], (2, 3))
    with overlapped_fetch.fetching(tile, layout, [((0, 2), (1, 3)), ((1, 1), (0, 3))]) as got:
        assert [(p.wanted, p.box) for p in got.local] == [(0, ((0, 2), (1, 3)))]
        assert np.shares_memory(got.local[0].value, tile)    # no copy
        assert list(got.arrived()) == []


def test_products_of_disjoint_pieces_are_computed_into_the_result():
    # dot_d of a row-tiled and a column-tiled matrix (one locality): each piece's
    # product goes straight into its columns of the result, no product buffer of the
    # result's size copied in; the result is NumPy's
    import tracemalloc

    from phylanx import distributed as dist
    from phylanx.ops import dot_d
    rng = np.random.default_rng(11)
    a, b = rng.normal(size=(300, 200)), rng.normal(size=(200, 250))
    ta, tb = dist.tiled(a, "row", name="fetch_a"), dist.tiled(b, "column", name="fetch_b")
    dot_d(ta, tb)       # (the first call's compilation is not what is measured)
    tracemalloc.start()
    try:
        got = dot_d(ta, tb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    np.testing.assert_allclose(np.asarray(got), a @ b, rtol=1e-12, atol=1e-12)
    out_bytes = a.shape[0] * b.shape[1] * 8
    assert peak < out_bytes * 1.5, (peak, out_bytes)
