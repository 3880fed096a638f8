"""Random index expressions on randomly tiled arrays against NumPy (issue 28 item 1).

``python global_index_property.py SEED CASES`` under ``mpiexec -n k``: hypothesis
(seeded with SEED, no shrinking: every rank must draw the same cases, and rank 0's
draw is broadcast so that they do) generates a 1-3-d array, a tiling with random cut
points (uneven, empty and overlapping tiles) and an index: ints (negative too, and
out of range now and then), slices with any step, ``None``, ``...``, 1-d index
arrays and masks, full-shape masks (plain or tiled).  ``x[key]`` from Python and inside
``@Phylanx`` must equal NumPy's ``whole[key]`` (or raise its IndexError, located, on
every rank), and ``x[key] = v`` must change the array as NumPy's assignment does.
On drawn data with ties, along a drawn axis (or none): ``argmax``/``argmin``,
``cumsum``, ``sort``/``argsort``, ``concatenate`` with a plain array, ``where``.
A failing case prints its number and case; the job ends.  Prints 'OK <rank> <cases>'.
"""
import sys

import numpy as np  # noqa: F401 - the decorated functions call np.*
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from phylanx import Phylanx
from phylanx import distributed as dist
from phylanx.distributed import DistributedArray, tiling
from phylanx.errors import PhylanxIndexError

r, n = dist.find_here(), dist.num_localities()
SEED = int(sys.argv[1]) if len(sys.argv) > 1 else 0
CASES = int(sys.argv[2]) if len(sys.argv) > 2 else 60
done = [0]


@Phylanx
def subscript(x, key):
    return x[key]


@Phylanx
def structure(x, p, axis):
    return [np.argmax(x, axis=axis), np.argmin(x, axis=axis), np.cumsum(x, axis=axis),
            np.sort(x, axis=axis), np.argsort(x, axis=axis, kind="stable"),
            np.concatenate((x, p, x), axis=axis), np.where(x > 2, x, p), np.where(x > 2)]


def numpy_structure(x, p, axis):
    return [np.argmax(x, axis=axis), np.argmin(x, axis=axis), np.cumsum(x, axis=axis),
            np.sort(x, axis=axis), np.argsort(x, axis=axis, kind="stable"),
            np.concatenate((x, p, x), axis=axis), np.where(x > 2, x, p), np.where(x > 2)]


def cut_points(draw, length, parts):
    inner = sorted(draw(st.lists(st.integers(0, length), min_size=parts - 1,
                                 max_size=parts - 1)))
    edges = [0, *inner, length]
    return [(edges[i], edges[i + 1]) for i in range(parts)]


@st.composite
def cases(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=ndim, max_size=ndim)))
    grid = [1] * ndim
    if ndim >= 2 and n >= 4 and n % 2 == 0 and draw(st.booleans()):   # blocks
        first, second = draw(st.permutations(range(ndim)))[:2]
        grid[first], grid[second] = 2, n // 2
    else:
        grid[draw(st.integers(0, ndim - 1))] = n
    spans = [cut_points(draw, shape[k], grid[k]) for k in range(ndim)]
    boxes = [tuple(spans[k][i] for k, i in enumerate(index)) for index in np.ndindex(*grid)]
    if draw(st.booleans()):     # overlap: grow the non-empty spans by one
        boxes = [tuple((max(0, s - 1), min(shape[k], e + 1)) if e > s else (s, e)
                       for k, (s, e) in enumerate(box)) for box in boxes]
    order = draw(st.permutations(range(n)))
    key = draw(index_keys(shape))
    value_kind = draw(st.sampled_from(["scalar", "array"]))
    values = np.array(draw(st.lists(st.integers(0, 4), min_size=int(np.prod(shape)),
                                    max_size=int(np.prod(shape))))).reshape(shape)
    axis = draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1)))
    return shape, [boxes[i] for i in order], key, value_kind, values, axis


def component(length):
    bound = st.one_of(st.none(), st.integers(-length - 2, length + 2))
    return st.one_of(
        st.integers(-length, length - 1),
        st.integers(-length - 2, length + 1),            # out of range now and then
        st.builds(slice, bound, bound, st.sampled_from([None, 1, 2, 3, -1, -2])),
        st.lists(st.integers(-length, length - 1), min_size=0, max_size=4).map(
            lambda v: np.array(v, np.intp)),
        st.lists(st.booleans(), min_size=length, max_size=length).map(np.array),
    )


@st.composite
def index_keys(draw, shape):
    if draw(st.integers(0, 5)) == 0:       # a full-shape mask, plain or tiled
        mask = np.array(draw(st.lists(st.booleans(), min_size=int(np.prod(shape)),
                                      max_size=int(np.prod(shape))))).reshape(shape)
        return ("mask", mask, draw(st.booleans()))
    count = draw(st.integers(1, len(shape)))
    key = [draw(component(shape[k])) for k in range(count)]
    if draw(st.booleans()):
        key.insert(draw(st.integers(0, len(key))), None)
    if draw(st.booleans()) and len(key) < len(shape) + 1:
        key.insert(draw(st.integers(0, len(key))), Ellipsis)
    return ("tuple", tuple(key), False)


def as_physl(key):
    """``key`` as an argument of a decorated function (a slice with both bounds as a
    ``range``, which a subscript reads as the slice), or None if it has no such form
    (``...``, a slice with an open bound)."""
    if type(key) is not tuple:
        return key
    out = []
    for k in key:
        if k is Ellipsis:
            return None
        if type(k) is slice:
            if k.start is None or k.stop is None:
                return None
            k = range(k.start, k.stop, k.step or 1)
        out.append(k)
    return tuple(out)


def agreed(value):
    """Rank 0's value on every rank."""
    return dist.broadcast(value if r == 0 else None, 0).result()


def same_everywhere(text, what):
    texts = dist.all_gather(text).result()
    assert len(set(texts)) == 1, (what, texts)


def compare(got, want, what):
    if type(got) is DistributedArray:
        box = tuple(slice(s, e) for s, e in got.box)
        assert np.array_equal(got.local, np.asarray(want)[box]), (what, got.local)
        got = got.gather()
    else:
        same_everywhere(repr(np.asarray(got).tolist()), what)
    assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == want.dtype, \
        (what, np.shape(got), np.shape(want))
    assert np.array_equal(got, want), (what, got, want)


def tiled(whole, boxes, name):
    box = boxes[r]
    return dist.annotate(whole[tuple(slice(s, e) for s, e in box)].copy(), name,
                         tiling.format_tile(box))


@seed(SEED)
@settings(max_examples=CASES, database=None, deadline=None, phases=[Phase.generate],
          suppress_health_check=list(HealthCheck))
@given(cases())
def check(case):
    shape, boxes, (kind, key, tiled_mask), value_kind, values, axis = agreed(case)
    what = f"case {done[0]}: shape {shape}, boxes {boxes}, key {kind} {key!r}"
    try:
        whole = np.arange(float(np.prod(shape))).reshape(shape) * 0.5
        x = tiled(whole, boxes, f"p{done[0]}")
        index = key if kind == "tuple" else (tiled(key, boxes, f"m{done[0]}") if tiled_mask
                                             else key)
        numpy_key = key
        try:
            want = whole[numpy_key]
        except IndexError:
            want = None
        reads = [("python", lambda: x[index])]
        physl = as_physl(index)
        if physl is not None:
            reads.append(("@Phylanx", lambda: subscript(x, physl)))
        for how, read in reads:
            try:
                got = read()
            except PhylanxIndexError as e:
                assert want is None, (what, how, str(e))
                assert how == "python" or (e.loc is not None and e.loc.line > 0), str(e)
                same_everywhere(str(e), what)
                continue
            assert want is not None, (what, how, "no IndexError", got)
            compare(got, np.asarray(want), f"{what} {how}")
        # structure ops on data with ties, along a random axis (or flattened)
        t = tiled(values, boxes, f"v{done[0]}")
        other = values[::-1].copy()
        for k, (got, expected) in enumerate(zip(structure(t, other, axis),
                                                numpy_structure(values, other, axis))):
            if isinstance(expected, tuple):
                assert len(got) == len(expected), (what, k)
                for g, e in zip(got, expected):
                    compare(g, e, f"{what} structure {k}, axis {axis}")
            else:
                compare(got, np.asarray(expected), f"{what} structure {k}, axis {axis}")
        if want is None:
            return
        # the store: NumPy's assignment on a copy
        expected = whole.copy()
        value = -1.0 if value_kind == "scalar" else -np.arange(1.0, np.size(want) + 1).reshape(
            np.shape(want))
        expected[numpy_key] = value
        y = tiled(whole, boxes, f"s{done[0]}")
        y[index] = value
        compare(y, expected, f"{what} store")
    except Exception:
        print(f"[rank {r}] FAILED {what}", flush=True)
        raise
    finally:
        done[0] += 1
        dist.barrier("global_index_property").result()


check()
print(f"OK {r} {done[0]}")
