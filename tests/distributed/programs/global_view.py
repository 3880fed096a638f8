"""A tiled array means the whole array, for any number of ranks (issue 26 item 2).

Inside ``@Phylanx`` functions and PhySL, every rank gets the global NumPy answer
(``x.shape[0]``, ``len(x)``, ``x + 1``, ``transpose``, ``np.sum(x)``, ``np.dot(x, w)``,
``x @ w`` by their rules, ``x[0]`` by the subscript rule, the rest through the gather
fallback) or, for a primitive with side effects,
the same located ``PhylanxDistributionError``, never its tile's value; Python-side
NumPy on a tiled array is global too.  Arrays are tiled unevenly (rows ``2n + 1``)
and with an empty tile on rank 0.  Prints 'OK <rank>' at the end.
"""
import warnings

import numpy as np

import phylanx
from phylanx import Phylanx
from phylanx import distributed as dist
from phylanx.distributed import PhylanxDistributionError
from phylanx.errors import PhylanxValueError

r, n = dist.find_here(), dist.num_localities()


@Phylanx
def sizes(x):
    return [x.shape[0], x.shape[1], len(x), x.size, x.ndim]


@Phylanx
def shifted(x):
    return x + 1


@Phylanx
def total(x):
    return np.sum(x)


@Phylanx
def product(x, w):
    return np.dot(x, w)


@Phylanx
def matmul(x, w):
    return x @ w


@Phylanx
def first_row(x):
    return x[0]


@Phylanx
def flipped(x):
    return x.T


def refused(fn, *args, words=()):
    try:
        got = fn(*args)
    except PhylanxDistributionError as e:
        text = str(e)
        assert e.loc is not None and e.loc.line > 0, text
        assert "all_gather_d" in text and "local_tile" in text, text
        for w in words:
            assert w in text, (w, text)
        return e.loc.line
    raise AssertionError(f"{fn.__name__} gave {got!r} on rank {r} instead of refusing")


whole = np.arange(3.0 * (2 * n + 1)).reshape(2 * n + 1, 3)
bounds = [(0, 0)] + [(0 if k == 1 else k + 1, k + 2) for k in range(1, n)] if n > 1 \
    else [(0, 2 * n + 1)]
if n > 1:   # rank 0 empty, rank 1 rows [0, 3), rank k rows [k + 1, k + 2): 2n + 1 rows
    bounds[-1] = (bounds[-1][0], 2 * n + 1)
r0, r1 = bounds[r]
empty = dist.annotate(whole[r0:r1], "e", ["tile", ["rows", r0, r1], ["columns", 0, 3]])
col = ((1.0,), (2.0,))
mask = np.array([[True], [False]])
for x in (dist.tiled(whole, "row", name="x"), empty, dist.tiled(whole, "sym", name="s")):
    assert sizes(x) == sizes.python(whole), (r, sizes(x))
    got = shifted(x)
    assert isinstance(got, dist.DistributedArray) and np.array_equal(got.gather(), whole + 1)
    got = flipped(x)
    assert isinstance(got, dist.DistributedArray) and np.array_equal(got.gather(), whole.T)
    # primitives with rules give the global answer, the others gather (with a warning)
    assert np.isclose(total(x), whole.sum()), (r, total(x))
    for fn in (product, matmul):
        got = fn(x, np.ones(3))
        assert np.allclose(got.gather() if isinstance(got, dist.DistributedArray) else got,
                           whole @ np.ones(3)), (r, fn.__name__)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = first_row(x)
    assert np.array_equal(got, whole[0]), (r, got)
    assert len(caught) <= 1 and all(w.category is dist.PhylanxPerformanceWarning
                                    for w in caught), caught
    # side effects are refused: every rank would repeat them
    refused(lambda a: phylanx.evaluate('lambda(a, file_write("/nonexistent/f", a))', a), x,
            words=["file_write"])
    assert phylanx.evaluate("lambda(a, sum_d(a))", x) == whole.sum()
    assert np.array_equal(phylanx.evaluate("lambda(a, local_tile(a))", x), x.local)
    # Python side: global
    assert x.shape == whole.shape and len(x) == len(whole)
    assert np.sum(x) == whole.sum() and np.array_equal(np.asarray(x), whole)
    # operands NumPy refuses against the global shape, which broadcast to some tiles
    # (2 rows): every rank refuses, at the user's line (tuples and where= masks were
    # passed whole to each tile, whose 2 rows took them silently)
    for what, fn in {"tuple": lambda x=x: x + col, "list": lambda x=x: x + [[1.0], [2.0]],
                     "where": lambda x=x: np.add(x, 1.0, where=mask),
                     "PhySL tuple": lambda x=x: phylanx.evaluate("lambda(a, b, a + b)", x, col)
                     }.items():
        try:
            got = fn()
        except PhylanxValueError as e:
            assert e.loc is not None and e.loc.file in (__file__, "<evaluate>"), (what, e)
            assert "does not broadcast" in str(e), (what, e)
        else:
            raise AssertionError(f"{what}: rank {r} gave {got!r} instead of refusing")
    # ... and those it takes: the same answer as NumPy's
    row = tuple(range(3))
    assert np.array_equal((x + row).gather(), whole + row)
    keep = whole > 4
    got = np.add(x, 1.0, where=keep)
    assert np.array_equal(got.gather()[keep], (whole + 1.0)[keep])

# np.matmul / @ on tiled arrays in Python is a product, not a tile-by-tile operation
# (with square tiles it used to give each tile's own product, silently)
sq = np.arange(float(4 * n * n)).reshape(2 * n, 2 * n)
a = dist.tiled(sq, "sym", name="q")
got = a @ a
assert type(got) is np.ndarray and np.allclose(got, sq @ sq), (r, got)
dist.barrier().result()
print(f"OK {r}")
