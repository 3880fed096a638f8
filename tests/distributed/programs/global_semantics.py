"""NumPy's answer for the whole of tiled arrays, for any number of ranks (issue 28 item 1).

Reductions over any axes, element-wise operations broadcasting against plain arrays,
scalars and differently tiled arrays, products in every tiling combination (all four
spellings), and the gather fallback of primitives without a rule, on arrays tiled by
rows, columns, blocks, unevenly with an empty tile and with overlapping tiles; every
result is compared with NumPy on the whole arrays.  Then a seeded random sweep
(``SEED CASES`` arguments; the same draws on every rank) of reductions, element-wise
expressions and products over random shapes and tilings.  Incompatible shapes are the
same located error on every rank.  A loop with three independent reductions per
iteration (a summed ``x.T @ r``, a sum and a ``std`` over the tiled axis), every tiling:
NumPy's answer, and on row tiles with several ranks the three collectives of every
iteration (one all_gather each) are started by their statements and waited for at their
join (``runtime/started.py``), none on one rank.  ``for row in x`` iterates the global
rows, as ``enumerate(x)``.  Prints 'OK <rank>' at the end.
"""
import sys
import warnings

import numpy as np

import phylanx
from phylanx import Phylanx
from phylanx import distributed as dist
from phylanx.errors import PhylanxError
from phylanx.runtime import comm_order

r, n = dist.find_here(), dist.num_localities()
warnings.simplefilter("error", dist.PhylanxPerformanceWarning)
# rules communicate: with several ranks every rank communicates in program order
assert comm_order.enabled() == (n > 1), (r, comm_order.enabled())


def whole(value):
    return value.gather() if isinstance(value, dist.DistributedArray) else value


def check(got, want, what):
    g = whole(got)
    assert np.shape(g) == np.shape(want), (what, r, np.shape(g), np.shape(want))
    np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12, err_msg=f"{what} on rank {r}")


def uneven(a, name):
    """Rows split unevenly, rank 0's tile empty (one rank: the whole)."""
    rows = a.shape[0]
    cuts = [0, 0] + [round(rows * k / (n - 1)) for k in range(1, n)] if n > 1 else [0, rows]
    r0, r1 = cuts[r], cuts[r + 1]
    spans = [["rows", r0, r1]] + [[key, 0, m] for key, m in zip(("columns", "pages"),
                                                              a.shape[1:])]
    if a.ndim == 1:
        spans = [["columns", r0, r1]]
    return dist.annotate(a[r0:r1].copy(), name, ["tile", *spans])


def tilings(a, name):
    """The same array tiled every way."""
    out = {"row": dist.tiled(a, "row", name=name + "_r"),
           "uneven": uneven(a, name + "_u"),
           "overlap": dist.tiled(a, "row", intersection=1, name=name + "_o")}
    if a.ndim == 2:
        out["column"] = dist.tiled(a, "column", name=name + "_c")
        out["sym"] = dist.tiled(a, "sym", name=name + "_s")
    return out


rng = np.random.default_rng(11)
A = rng.normal(size=(2 * n + 3, 5))
V = rng.normal(size=2 * n + 3)


# -- reductions ---------------------------------------------------------------------
@Phylanx
def reductions(x):
    return [np.sum(x), np.sum(x, axis=0), np.sum(x, axis=1), np.sum(x, axis=(0, 1)),
            np.mean(x, axis=0, keepdims=True), np.mean(x, axis=1), x.max(), np.amin(x, axis=0),
            np.prod(x, axis=1), np.var(x), np.std(x, axis=0, ddof=1), np.var(x, axis=1),
            np.all(x > -10, axis=0), np.any(x > 1), np.linalg.norm(x),
            np.linalg.norm(x, axis=0), np.max(x, axis=1, keepdims=True)]


for how, x in tilings(A, "a").items():
    for k, (got, want) in enumerate(zip(reductions(x), reductions.python(A))):
        check(got, want, f"reduction {k} of {how}")
    # the reduced axis is not split: the result stays tiled, no communication
    if how in ("row", "uneven"):
        got = reductions(x)[2]
        assert isinstance(got, dist.DistributedArray), (how, got)
        assert [b[0] for b in got.layout.boxes] == [b[0] for b in x.layout.boxes]
# float16 means are summed in float32 and the quotient cast, as NumPy's (``_mean``): the
# partial sums of a split axis were summed and combined in float16, up to 20 units in
# the last place off (user49)
HALF = (np.random.default_rng(49).normal(size=(37, 6)) * 3 + 1).astype(np.float16)
for how, x in tilings(HALF, "half").items():
    for axis in (None, 0, 1):
        got = whole(phylanx.evaluate("lambda(a, k, mean(a, k))", x, axis))
        want = np.mean(HALF, axis=axis)
        assert np.asarray(got).dtype == np.float16, (how, axis, np.asarray(got).dtype)
        np.testing.assert_array_max_ulp(got, want, maxulp=1)
for how, v in tilings(V, "v").items():
    check(np.asarray(phylanx.evaluate("lambda(a, list(sum(a), mean(a), std(a), amax(a)))", v),
                     dtype=float), [V.sum(), V.mean(), V.std(), V.max()], f"vector {how}")


# -- element-wise with broadcasting -------------------------------------------------------
@Phylanx
def broadcasting(x, row, column, s):
    return [x + row, x * column, s - x, np.maximum(x, 0.5), (x - row) / (column + 3.0)]


row, column = rng.normal(size=5), rng.normal(size=(A.shape[0], 1))
for how, x in tilings(A, "b").items():
    for k, (got, want) in enumerate(zip(broadcasting(x, row, column, 2.5),
                                        broadcasting.python(A, row, column, 2.5))):
        assert isinstance(got, dist.DistributedArray), (how, k)
        check(got, want, f"broadcast {k} of {how}")
    # tiled against tiled: other layouts, and tiled operands that broadcast
    for other_how, y in tilings(A * 2, "c").items():
        check(phylanx.evaluate("lambda(a, b, a * b - a)", x, y), A * (A * 2) - A,
              f"{how} with {other_how}")
    tiled_row = dist.tiled(row, name="trow")
    tiled_column = dist.tiled(column, "row", name="tcol")
    check(phylanx.evaluate("lambda(a, b, c, a + b * c)", x, tiled_row, tiled_column),
          A + row * column, f"{how} with a tiled row and column")
    check(phylanx.evaluate("lambda(b, c, b + c)", tiled_row, tiled_column), row + column,
          "tiled row + tiled column")



# a column made of a 1-d array with rank 0's tile empty (``v[:, None]``: that tile's box is
# (0, 0) on both axes) against every tiling: rank 0 sliced its (0, 0) tile for a (0, 1)
# part, failed alone and ended the job (user49)
@Phylanx
def minus_column(x, v):
    return np.where(x > v[:, None], x - v[:, None], v[:, None] * 2.0)


V_EMPTY_FIRST = uneven(V, "vcol")
for how, x in tilings(A, "e").items():
    check(minus_column(x, V_EMPTY_FIRST), minus_column.python(A, V), f"x - v[:, None] {how}")

# -- products in every tiling combination ---------------------------------------------------
W = rng.normal(size=(5, 3))
LEFT = rng.normal(size=(2, A.shape[0]))


@Phylanx
def spellings(x, w):
    return [x @ w, np.dot(x, w), x.dot(w), np.matmul(x, w)]


@Phylanx
def normal_equations(x, r):
    return x.T @ r


for how, x in tilings(A, "p").items():
    results = spellings(x, W)
    for got in results:
        check(got, A @ W, f"x @ w of {how}")
    if how in ("row", "uneven", "overlap"):       # row-tiled x @ w stays row-tiled
        assert all(isinstance(g, dist.DistributedArray) and
                   [b[0] for b in g.layout.boxes] == [b[0] for b in x.layout.boxes]
                   for g in results), how
    for other_how, y in tilings(V, "q").items():
        check(normal_equations(x, y), A.T @ V, f"x.T @ r of {how} and {other_how}")
        check(phylanx.evaluate("lambda(a, b, dot(a, b))", y, y), V @ V, f"v.v {other_how}")
    check(normal_equations(x, V), A.T @ V, f"x.T @ plain r of {how}")
    check(normal_equations(x, x), A.T @ A, f"x.T @ x of {how}")
    check(phylanx.evaluate("lambda(a, b, dot(b, a))", x, LEFT), LEFT @ A, f"plain @ {how}")

# -- the gather fallback: NumPy's answer, re-tiled, one warning per source line ------------


@Phylanx
def gathered(x):
    # (sort and cumsum have rules of their own: global_structure.py)
    return [np.cumprod(x, axis=1), np.median(x), np.flip(x, 0)]


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for how, x in tilings(A, "g").items():
        got, want = gathered(x), gathered.python(A)
        for k, (g, w) in enumerate(zip(got, want)):
            check(g, w, f"gathered {k} of {how}")
        assert isinstance(got[0], dist.DistributedArray) and got[0].layout == x.layout, how
        assert not isinstance(got[1], dist.DistributedArray)
names = sorted(str(w.message).split(": ")[1].split(" ")[0] for w in caught)
assert names == ["cumprod", "flip", "median"], names      # once per line

# ``for row in x`` iterates the global rows, as ``enumerate(x)`` and NumPy do (it was a
# located TypeError while enumerate gathered, user49): order-sensitive sums, every
# tiling (the uneven one has rank 0's tile empty), a 1-d array's elements too
@Phylanx
def row_loop(x):
    s = 0.0
    for row in x:
        s = s * 0.5 + np.sum(row * np.arange(1.0, row.shape[0] + 1.0))
    return s


@Phylanx
def enumerated_loop(x):
    s = 0.0
    for k, row in enumerate(x):
        s = s * 0.5 + np.sum(row * np.arange(1.0, row.shape[0] + 1.0)) + k
    return s


@Phylanx
def element_loop(v):
    s = 0.0
    for e in v:
        s = s * 0.5 + e
    return s


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for how, x in tilings(A, "it").items():
        check(row_loop(x), row_loop.python(A), f"for row in {how}")
        check(enumerated_loop(x), enumerated_loop.python(A), f"enumerate {how}")
    for how, v in tilings(V, "iv").items():
        check(element_loop(v), element_loop.python(V), f"for e in {how}")
assert {"for_each", "__enumerate"} <= {str(w.message).split(": ")[1].split(" ")[0]
                                      for w in caught}, [str(w.message) for w in caught]

# -- NumPy's functions of the operators (np.power, np.divide, np.mod: the frontend gives
# Python numbers NumPy's types, ``__npoperand``): tile by tile, no gather (a gather would
# warn: PhylanxPerformanceWarning is an error here); a bool array squared is int64
def numpy_operators(a, w):
    return np.power(np.abs(a), w) + np.divide(a, 2) - np.mod(a, 3)


for how, x in tilings(A, "npo").items():
    check(Phylanx(numpy_operators)(x, 2.0), numpy_operators(A, 2.0), f"np operators {how}")
bools = Phylanx(lambda b: np.power(b, 2))(dist.tiled(A > 0, "row", name="npb"))
assert bools.dtype == np.power(A > 0, 2).dtype, bools.dtype
check(bools, np.power(A > 0, 2), "np.power of bools")

# -- bad input: the same located error on every rank, no hang -----------------------------
x = dist.tiled(A, "row", name="bad")
for code, args, words in (("a + b", (x, np.ones(4)), "does not broadcast"),
                          ("dot(a, b)", (x, np.ones(4)), "not aligned"),
                          ("matmul(b, a)", (x, np.ones((3, 3))), "not aligned"),
                          ("a * b", (x, dist.tiled(np.ones((3, 3)), name="other")),
                           "does not broadcast")):
    try:
        got = phylanx.evaluate(f"lambda(a, b, {code})", *args)
    except PhylanxError as e:
        assert e.loc is not None and words in str(e), (code, e)
        texts = dist.all_gather(str(e)).result()
        assert len(set(texts)) == 1, texts
    else:
        raise AssertionError(f"{code}: rank {r} gave {whole(got)!r}")


def bad(what, make, words):
    """``make()`` (fresh bad input, as a new user writes it) raises one located error,
    the same text on every rank, saying ``words``; no hang, no result of another shape."""
    try:
        got = make()
    except PhylanxError as e:
        assert e.loc is not None and words in str(e), (what, str(e))
        texts = dist.all_gather(str(e)).result()
        assert len(set(texts)) == 1, (what, texts)
    else:
        raise AssertionError(f"{what}: rank {r} gave {whole(got)!r}")


def store_row(a, v):
    a[1] = v
    return a


bad("fewer rows than tiles", lambda: dist.tiled(np.ones((n - 1, 3)), "row", name="few"),
    "fewer elements than tiles")
bad("an axis out of range", lambda: Phylanx(lambda a: np.sum(a, axis=2))(x), "axis 2")
bad("columns that differ", lambda: Phylanx(lambda a, b: np.concatenate((a, b)))(
    x, dist.tiled(np.ones((5, 2)), "row", name="narrow")), "must match exactly")
bad("a stored row too long", lambda: Phylanx(store_row)(x, np.ones(4)), "broadcast")
if n > 1:
    # ranks naming one array differently (before: accepted; an error, unnamed, only at
    # the array's first exchange, or none if it never took part in one again)
    bad("names that differ", lambda: dist.tiled(np.ones((4, 3)), "row", name=f"mine{r}"),
        "name differs: rank 0: 'mine0'; rank 1: 'mine1'")
    bad("annotated names that differ", lambda: dist.annotate(
        np.ones((1, 3)), f"yours{r}", ["tile", ["rows", r, r + 1], ["columns", 0, 3]]),
        "name differs")
    bad("tiles of different dimensions", lambda: dist.annotate(
        np.ones(3) if r == 0 else np.ones((0, 3)), "dims",
        ["tile", ["columns", 0, 3]] if r == 0 else ["tile", ["rows", 0, 0], ["columns", 0, 3]]),
        "number of dimensions")
    # a rank count cannon_product_d cannot use (not a square): every rank, at once
    square = dist.tiled(np.ones((4, 4)), "sym", name="square")
    if round(n ** 0.5) ** 2 != n:
        bad("cannon on a non-square rank count",
            lambda: phylanx.evaluate("lambda(a, cannon_product_d(a, a))", square),
            "square number of localities")

# an integer base to a plain negative exponent: NumPy raises for the whole array, so every
# rank does, also one whose tile meets no negative element (rank 0's empty tile, the
# columns of the plain row without its -1) (it got a result there: the job ended)
I = np.arange(A.size).reshape(A.shape) % 4
int_powers = Phylanx(lambda a, w: np.power(a, w))
for how, t in tilings(I, "ipw").items():
    for e in (np.array([-1, 2, 2, 2, 2]), -2):
        bad(f"an integer base to a negative power ({how}, {e!r})",
            lambda t=t, e=e: int_powers(t, e), "negative integer exponent")
check(int_powers(tilings(I, "ipw2")["uneven"], np.int64(2)), I ** 2,
      "an integer base to a power, rank 0's tile empty")

# -- collectives started where their operand is ready, waited for where read ----------------


def two_reductions_numpy(x, y, w, steps):
    for _ in range(steps):
        p = x @ w
        g = x.T @ (p - y)       # a summed product: one all_gather
        m = np.sum(p * p)       # a sum over the tiled axis: one all_gather
        v = np.std(p, ddof=1)   # mean and squared deviations: one all_gather too
        z = w * 0.5 + 1.0       # independent local work, while all three are in flight
        w = z - 0.01 * g + 0.001 * m + 0.001 * v
    return w


two_reductions = Phylanx(two_reductions_numpy)      # (the undecorated: the oracle)


class CountStarts:
    """Counts the collectives left in flight by a statement (``runtime/started.py``),
    and the all_gathers started (``gathers``)."""

    def __enter__(self):
        from phylanx.runtime import started
        self.count, self.cls, self.init = 0, started.Started, started.Started.__init__
        self.gathers, self.engine = 0, dist._mpi() and dist._mpi().collectives

        def counted(this, finish):
            self.count += 1
            self.init(this, finish)
        self.cls.__init__ = counted
        if self.engine is not None:
            self.all_gather = self.engine.all_gather

            def gathered(*args, **kwargs):
                self.gathers += 1
                return self.all_gather(*args, **kwargs)
            self.engine.all_gather = gathered
        return self

    def __exit__(self, *exc):
        self.cls.__init__ = self.init
        if self.engine is not None:
            del self.engine.all_gather


STEPS = 3
W5 = rng.normal(size=5)
LABELS = tilings(V, "sv")
for how, x in tilings(A, "st").items():
    other_how = how if how in LABELS else "row"     # (the labels: 1-d tilings only)
    with CountStarts() as starts:
        got = two_reductions(x, LABELS[other_how], W5, STEPS)
    check(got, two_reductions_numpy(A, V, W5, STEPS), f"started: {how}, {other_how}")
    if n == 1:        # one locality: nothing is sent, nothing is started
        assert starts.count == 0, (how, starts.count)
    elif how == "row":
        # the three reductions of every iteration were started, then waited for, each
        # one all_gather (np.std's mean and squared deviations travel together)
        assert starts.count == 3 * STEPS, (r, starts.count)
        assert starts.gathers == 3 * STEPS, (r, starts.gathers)

# -- the transpose of a tiled array is NumPy's view (stop 47: it was a copy, so
# ``xt = x.T; x += 1; xt @ r`` gave the stale product); stores into x reach xt, stores
# into xt reach x, through aliases and inside loops
def t_after_add(x, v):
    xt = x.T
    x += 1.0
    return xt @ v


def t_after_store(x, v):
    xt = np.transpose(x)
    x[...] = x * 2.0
    x[1] = -1.0
    return xt @ v


def t_written(x, v):
    xt = x.transpose()
    xt += 1.0
    xt[0] = 3.0
    return x @ np.ones(5)


def t_alias_loop(x, v):
    s = 0.0
    for i in range(3):
        xt = x.T
        z = x
        z *= 0.5 + i
        s = s + np.sum(xt @ v)
    return s


def t_axes(x, v):
    xt = np.transpose(x, (1, 0, 2))
    x -= 2.0
    return xt


def t_vector(v, w):
    vt = v.T
    v += w
    return vt * 2.0


A3 = rng.normal(size=(2 * n + 3, n + 2, 2))
for fn, data, other, hows in ((t_after_add, A, V, ("row", "column", "sym", "overlap")),
                              (t_after_store, A, V, ("row", "uneven")),
                              (t_written, A, V, ("row", "column")),
                              (t_alias_loop, A, V, ("row",)),
                              (t_axes, A3, V, ("row",)),
                              (t_vector, V, V, ("row",))):
    compiled = Phylanx(fn)
    for how in hows:
        name = f"tv{fn.__name__}_{how}"
        x = uneven(data, name) if how == "uneven" else \
            dist.tiled(data, "row" if how == "overlap" else how, name=name,
                       intersection=1 if how == "overlap" else None)
        want_x = data.copy()
        check(compiled(x, other), fn(want_x, other), f"{fn.__name__} {how}")
        check(x, want_x, f"{fn.__name__} {how}: the caller's x")

# -- long doubles are agreed on by value: x86's padding bytes of each 80-bit value are
# garbage, so equal arrays had different checksums ("checksum differs", stop 47)
LONG = np.arange(-6, 2 * n + 6, dtype=np.longdouble) / 3
for data in (LONG, LONG.astype(np.clongdouble) * (1 - 2j)):
    for how in ("row", "overlap"):
        tiled = dist.tiled(data, "row", intersection=1 if how == "overlap" else None,
                           name=f"long_{data.dtype.kind}_{how}")
        got = tiled.gather()
        assert got.dtype == data.dtype and np.array_equal(got, data), (r, how, got)

# -- a seeded random sweep ------------------------------------------------------------------
seed, cases = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) > 2 else (0, 12)
draw = np.random.default_rng(seed)
REDUCE = ["sum", "mean", "amax", "amin", "prod", "var", "std", "any", "all"]
for case in range(cases):
    shape = tuple(int(m) for m in draw.integers(n + 1, 2 * n + 5, size=draw.integers(1, 3)))
    data = draw.normal(size=shape)
    other = draw.normal(size=shape)
    kinds = list(tilings(data, f"z{case}").items())
    how, x = kinds[draw.integers(len(kinds))]
    how2, y = list(tilings(other, f"y{case}").items())[draw.integers(len(kinds))]
    op = REDUCE[draw.integers(len(REDUCE))]
    axis = [None, 0, len(shape) - 1][draw.integers(3)]
    keep = bool(draw.integers(2))
    label = f"seed {seed} case {case}: {op} axis {axis} keepdims {keep} of {shape} {how}"
    code = f"{op}(a, {'nil' if axis is None else axis}, {'true' if keep else 'false'})"
    check(phylanx.evaluate(f"lambda(a, {code})", x),
          getattr(np, op)(data, axis=axis, keepdims=keep), label)
    check(phylanx.evaluate("lambda(a, b, exp(-a) * b + a / (1.0 + b * b))", x, y),
          np.exp(-data) * other + data / (1.0 + other * other), f"{label} with {how2}")
    if len(shape) == 2:
        check(phylanx.evaluate("lambda(a, b, dot(transpose(a), b))", x, y), data.T @ other,
              f"{label}: a.T @ b with {how2}")
dist.barrier().result()
print(f"OK {r}")
