"""Random index expressions on randomly tiled arrays against NumPy (issue 28 item 1).

``python global_index_property.py SEED CASES`` under ``mpiexec -n k``: hypothesis
(seeded with SEED, no shrinking: every rank must draw the same cases, and rank 0's
draw is broadcast so that they do) generates a 1-3-d array, a tiling with random cut
points (uneven, empty and overlapping tiles) and an index: ints (negative too, and
out of range now and then), slices with any step, ``None``, ``...``, 1-d index
arrays and masks, full-shape masks (plain or tiled).  ``x[key]`` from Python and inside
``@Phylanx`` must equal NumPy's ``whole[key]`` (or raise its IndexError, located, on
every rank), and ``x[key] = v`` must change the array as NumPy's assignment does.
A failing case prints its number and case; the job ends.  Prints 'OK <rank> <cases>'.
"""
import sys

import numpy as np
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


def cut_points(draw, length, parts):
    inner = sorted(draw(st.lists(st.integers(0, length), min_size=parts - 1,
                                 max_size=parts - 1)))
    edges = [0, *inner, length]
    return [(edges[i], edges[i + 1]) for i in range(parts)]


@st.composite
def cases(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=ndim, max_size=ndim)))
    axis = draw(st.integers(0, ndim - 1))          # the split axis
    spans = cut_points(draw, shape[axis], n)
    overlap = draw(st.booleans())
    boxes = []
    for s, e in spans:
        if overlap and e > s:
            s, e = max(0, s - 1), min(shape[axis], e + 1)
        boxes.append(tuple((s, e) if k == axis else (0, m) for k, m in enumerate(shape)))
    order = draw(st.permutations(range(n)))
    key = draw(index_keys(shape))
    value_kind = draw(st.sampled_from(["scalar", "array"]))
    return shape, [boxes[i] for i in order], key, value_kind


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
    shape, boxes, (kind, key, tiled_mask), value_kind = agreed(case)
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
