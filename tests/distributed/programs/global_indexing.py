"""Global subscripts, stores and structure ops of tiled arrays against NumPy (issue 28
item 1, part B), for any number of ranks.

Every array is tiled several ways: by rows, by rows unevenly with an empty tile on
rank 0, ``sym`` blocks, by columns, and by rows with overlapping tiles.  Inside
``@Phylanx`` functions and from Python, each result must be NumPy's for the whole
array: a tiled result tile by tile and gathered, a plain one identical on every rank.
Bad indices must raise the same located ``PhylanxIndexError`` on every rank.  Prints
'OK <rank>' at the end.
"""
import numpy as np  # noqa: F401 - the decorated functions call np.*

from phylanx import Phylanx
from phylanx import distributed as dist
from phylanx.distributed import DistributedArray
from phylanx.errors import PhylanxIndexError
from phylanx.runtime import nodes

r, n = dist.find_here(), dist.num_localities()
# rules that communicate run in program order when there is more than one locality
assert ("__subscript" in nodes.ORDERED) == (n > 1) and ("cumsum" in nodes.ORDERED) == (n > 1)


def same_everywhere(value, what):
    text = repr(np.asarray(value).tolist()) + str(np.asarray(value).dtype)
    texts = dist.all_gather(text).result()
    assert len(set(texts)) == 1, (what, texts)


def check(got, want, what, tiled=None):
    """``got`` is NumPy's ``want``: a tiled array tile by tile, a plain value alike on
    every rank.  ``tiled``: whether the result must stay tiled (None: either)."""
    if tiled is not None:
        assert (type(got) is DistributedArray) == tiled, (what, r, type(got))
    if type(got) is DistributedArray:
        assert got.shape == np.shape(want), (what, got.shape, np.shape(want))
        box = tuple(slice(s, e) for s, e in got.box)
        np.testing.assert_allclose(got.local, np.asarray(want)[box], rtol=1e-12,
                                   err_msg=f"{what} rank {r}")
        whole = got.gather()
    else:
        same_everywhere(got, what)
        whole = got
    assert np.shape(whole) == np.shape(want), (what, np.shape(whole), np.shape(want))
    assert np.asarray(whole).dtype == np.asarray(want).dtype, (what, np.asarray(whole).dtype,
                                                              np.asarray(want).dtype)
    np.testing.assert_allclose(whole, want, rtol=1e-12, err_msg=f"{what} rank {r}")


def layouts(whole, name):
    """The same array tiled several ways (uneven, empty and overlapping tiles)."""
    out = [dist.tiled(whole, "row", name=name + "_row")]
    rows = whole.shape[0]
    if n > 1:   # rank 0 empty, the others uneven row blocks
        cuts = np.linspace(0, rows, n).astype(int)
        spans = [(0, 0)] + [(int(cuts[k]), int(cuts[k + 1])) for k in range(n - 1)]
        s, e = spans[r]
        box = [["rows", s, e]] if whole.ndim == 1 else \
            [["rows", s, e]] + [[k, 0, m] for k, m in zip(("columns", "pages"),
                                                            whole.shape[1:])]
        if whole.ndim == 1:
            box = [["columns", s, e]]
        out.append(dist.annotate(whole[s:e].copy(), name + "_empty", ["tile", *box]))
    if whole.ndim == 2:
        out.append(dist.tiled(whole, "sym", name=name + "_sym"))
        out.append(dist.tiled(whole, "column", name=name + "_col"))
    out.append(dist.tiled(whole, "row", 1, name=name + "_overlap"))
    return out


@Phylanx
def element(x, i, j):
    return x[i, j]


@Phylanx
def row(x, i):
    return x[i]


@Phylanx
def stepped(x):
    return x[1:-1:2]


@Phylanx
def reversed_column(x):
    return x[::-1, 1]


@Phylanx
def column(x, j):
    return x[:, j]


@Phylanx
def masked(x):
    return x[x > 3.5]


@Phylanx
def picked(x, index):
    return x[index]


@Phylanx
def store_element(x, v):
    x[1, 2] = v
    return x


@Phylanx
def store_masked(x):
    x[x > 5.5] = 0.5
    return x


@Phylanx
def store_rows(x, v):
    x[1:4] = v
    return x


@Phylanx
def store_picked(x, index, v):
    x[index] = v
    return x


@Phylanx
def joined(x, p):
    return np.concatenate((x, p, x))


@Phylanx
def joined_columns(x, p):
    return np.concatenate((x, p), axis=1)


@Phylanx
def stacks(x):
    return [np.vstack((x, x)), np.hstack((x, x)), np.stack((x, x)), np.stack((x, x), axis=1)]


@Phylanx
def extrema(x):
    return [np.argmax(x), np.argmin(x), np.argmax(x, axis=0), np.argmin(x, axis=1)]


@Phylanx
def chosen(x):
    return np.where(x > 4.0, x, -1.0)


@Phylanx
def indices_of(x):
    return np.where(x > 4.0)


@Phylanx
def running(x):
    return [np.cumsum(x, axis=0), np.cumsum(x, axis=1), np.cumsum(x)]


@Phylanx
def running1(x):
    return np.cumsum(x)


@Phylanx
def ordered(x):
    return [np.sort(x, axis=0), np.sort(x, axis=1), np.argsort(x, axis=0, kind="stable"),
            np.argsort(x, axis=1, kind="stable"), np.sort(x, axis=None)]


@Phylanx
def independent(x):
    # independent reads the scheduler could run concurrently once it measured them as
    # expensive: their collectives must still come in program order on every rank
    a = x[0, 0] + x[1, 1] * 2
    b = x[2, 2] + x[3, 0] * 3
    c = np.argmax(x) + np.cumsum(x, axis=0)[4, 1]
    return [a + x[5, 2], b - x[6, 1], c, x[6, 0] * x[0, 2]]


@Phylanx
def ordered_along(x, axis):
    return np.sort(x, axis=axis)


@Phylanx
def running_along(x, axis):
    return np.cumsum(x, axis=axis)


@Phylanx
def argmax_along(x, axis):
    return np.argmax(x, axis=axis)


def index_error(fn, *args):
    try:
        got = fn(*args)
    except PhylanxIndexError as e:
        assert e.loc is not None and e.loc.line > 0, str(e)
        same_everywhere(str(e), "error")
        return
    raise AssertionError(f"{fn.__name__} gave {got!r} on rank {r}")


rows = 2 * n + 5
# ties (the first occurrence wins) and a spread of values
whole = np.round(np.sin(np.arange(rows * 4.0)).reshape(rows, 4) * 4, 1) + 3
whole[rows - 1, 3] = whole.max()     # a tie with an earlier maximum
plain = np.arange(rows * 2.0).reshape(rows, 2)
for x in layouts(whole, "x"):
    what = x.name
    check(element(x, 1, 2), whole[1, 2], what + " x[1, 2]")
    check(element(x, -1, -2), whole[-1, -2], what + " x[-1, -2]")
    check(row(x, rows - 2), whole[rows - 2], what + " x[i]")
    check(stepped(x), whole[1:-1:2], what + " x[1:-1:2]")
    check(reversed_column(x), whole[::-1, 1], what + " x[::-1, 1]")
    check(column(x, 3), whole[:, 3], what + " x[:, 3]",
          tiled=0 in x.layout.split_axes())
    check(masked(x), whole[whole > 3.5], what + " x[x > 3.5]")
    check(picked(x, [rows - 1, 0, 2, 0]), whole[[rows - 1, 0, 2, 0]], what + " x[[...]]")
    check(picked(x, whole[:, 0] > 3), whole[whole[:, 0] > 3], what + " x[row mask]")
    # from Python
    check(x[2, 1], whole[2, 1], what + " python x[2, 1]")
    check(x[1:, ::2], whole[1:, ::2], what + " python x[1:, ::2]")
    check(x[[3, 1], -1], whole[[3, 1], -1], what + " python x[[3, 1], -1]")
    check(x[None, 0], whole[None, 0], what + " python x[None, 0]")
    check(x[..., 1], whole[..., 1], what + " python x[..., 1]")
    check(x.T, whole.T, what + " python x.T")     # (was an AttributeError)
    check(x.transpose(1, 0)[2], whole.T[2], what + " python x.transpose(1, 0)[2]")
    # structure
    check(joined(x, plain[:, :1].repeat(4, 1)), np.concatenate((whole, plain[:, :1].repeat(4, 1),
                                                                whole)), what + " concatenate")
    check(joined_columns(x, plain), np.concatenate((whole, plain), axis=1),
          what + " concatenate axis 1")
    for got, want, k in zip(stacks(x), [np.vstack((whole, whole)), np.hstack((whole, whole)),
                                        np.stack((whole, whole)),
                                        np.stack((whole, whole), axis=1)], range(4)):
        check(got, want, what + f" stack {k}")
    for got, want, k in zip(extrema(x), [np.argmax(whole), np.argmin(whole),
                                         np.argmax(whole, axis=0), np.argmin(whole, axis=1)],
                            range(4)):
        check(got, want, what + f" arg extremum {k}")
    check(chosen(x), np.where(whole > 4.0, whole, -1.0), what + " where")
    for got, want in zip(indices_of(x), np.where(whole > 4.0)):
        check(got, want, what + " where(c)", tiled=False)
    for got, want, k in zip(running(x), [np.cumsum(whole, axis=0), np.cumsum(whole, axis=1),
                                         np.cumsum(whole)], range(3)):
        check(got, want, what + f" cumsum {k}")
    for got, want, k in zip(ordered(x), [np.sort(whole, axis=0), np.sort(whole, axis=1),
                                         np.argsort(whole, axis=0, kind="stable"),
                                         np.argsort(whole, axis=1, kind="stable"),
                                         np.sort(whole, axis=None)], range(5)):
        check(got, want, what + f" sort {k}")
    # bad indices: NumPy's IndexError on every rank, located
    index_error(element, x, rows, 0)
    index_error(element, x, 0, -5)
    index_error(picked, x, np.ones(rows + 1, bool))
    index_error(picked, x, [0, rows])
    index_error(store_picked, x, [rows + 3], 1.0)

# stores (each on a fresh tiling)
for make in range(len(layouts(whole, "probe"))):
    def fresh(tag, make=make):
        return layouts(whole, f"s{make}{tag}")[make]
    want = whole.copy()
    want[1, 2] = -7.0
    check(store_element(fresh("a"), -7.0), want, "store x[1, 2]")
    want = whole.copy()
    want[want > 5.5] = 0.5
    check(store_masked(fresh("b")), want, "store x[mask]")
    want = whole.copy()
    want[1:4] = np.arange(4.0)
    check(store_rows(fresh("c"), np.arange(4.0)), want, "store x[1:4]")
    want = whole.copy()
    want[[4, 0, 4]] = 9.0
    check(store_picked(fresh("d"), [4, 0, 4], 9.0), want, "store x[[4, 0, 4]]")
    y = fresh("e")
    want = whole.copy()
    want[::2, 1] = -1.0
    y[::2, 1] = -1.0
    check(y, want, "python store x[::2, 1]")
    y = fresh("f")
    want = whole.copy()
    want[want < 2] = want[want < 2] * 10
    y[y.gather() < 2] = whole[whole < 2] * 10
    check(y, want, "python store x[mask] = array")

    # a tiled value: laid out like the selection (tile by tile) or not (gathered)
    y, z = fresh("g"), fresh("h")
    want = whole.copy()
    want[:, 0] = whole[:, 1]
    y[:, 0] = z[:, 1]
    check(y, want, "store x[:, 0] = tiled column")
    other = dist.tiled(whole[:3] * 2, "column", name=f"o{make}")
    want[2:5] = whole[:3] * 2
    y[2:5] = other
    check(y, want, "store x[2:5] = tiled rows")

# the scheduler may spawn measured-expensive independent nodes: still in order
x = dist.tiled(whole, "row", name="conc")
want = [float(v) for v in independent.python(whole)]
for _ in range(40):
    assert [float(v) for v in independent(x)] == want, (r, independent(x), want)

# 3-d, tiled by pages
cube = np.round(np.cos(np.arange(2.0 * n * 3 * 4)).reshape(2 * n, 3, 4) * 3, 1)
for c in (dist.tiled(cube, "page", name="cube"), dist.tiled(cube, "sym", name="cubes")):
    check(c[1, :, ::-1], cube[1, :, ::-1], c.name + " c[1, :, ::-1]")
    check(c[:, 2], cube[:, 2], c.name + " c[:, 2]")
    check(c[c > 1.5], cube[cube > 1.5], c.name + " c[c > 1.5]")
    check(c[-1, -1, -1], cube[-1, -1, -1], c.name + " c[-1, -1, -1]")
    check(picked(c, [1, 0]), cube[[1, 0]], c.name + " c[[1, 0]]")
    for axis in (None, 0, 1, 2):
        check(ordered_along(c, axis), np.sort(cube, axis=axis), f"{c.name} sort {axis}")
        check(running_along(c, axis), np.cumsum(cube, axis=axis), f"{c.name} cumsum {axis}")
        check(argmax_along(c, axis), np.argmax(cube, axis=axis), f"{c.name} argmax {axis}")

# vectors
vector = np.round(np.cos(np.arange(3.0 * n + 2)) * 5, 1)
for v in layouts(vector, "v"):
    check(picked(v, 3), vector[3], v.name + " v[3]")
    check(picked(v, -1), vector[-1], v.name + " v[-1]")
    check(stepped(v), vector[1:-1:2], v.name + " v[1:-1:2]",
          tiled=0 in v.layout.split_axes())
    check(masked(v), vector[vector > 3.5], v.name + " v[v > 3.5]")
    check(running1(v), np.cumsum(vector), v.name + " cumsum")
    check(v[::-3], vector[::-3], v.name + " python v[::-3]")
    index_error(picked, v, 3 * n + 2)

print(f"OK {r}", flush=True)
