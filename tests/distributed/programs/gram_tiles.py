"""The gram row pass on row tiles (``distributed/gram_tiles.py``, issue 28 item 5):
``x.T @ f(x @ w, y, s)`` on a row-tiled ``x`` is each rank's row pass on its tile and
the partial products summed.

* Random programs of that form (``f`` a random element-wise chain of the product, a
  row-aligned tiled ``y`` and a number ``s``; spelled ``@``, ``np.dot``, ``.dot``, a
  helper ``def``, ``f @ x``, and ``x.T`` bound to a name before a loop), each on
  float64 and float32 data, rows even and uneven with rank 0's tile empty (the same
  draws at every rank count).  Each result equals the undecorated function's on the
  whole arrays and, with the tile path off (node by node on the tiles: the rule
  without its tile pass), the same value of the same kind (a tiled one: the same
  name, generation, layout and carried digests); the tile path ran where the rows
  are split (on one rank: its one tile), and declined where nothing is split (two
  ranks, rank 0's tile empty: ``dot_d`` runs).
* Ranks choosing differently: rank 0 takes the tile path, the others node by node
  (same answer, no disagreement: the trace is the node-by-node one); a ``w`` that
  differs on rank 0 only is the located "different values for a plain operand" error
  on every rank, as node by node.
* What the tile path declines (an x neither float32 nor float64, a w of ints or a
  matrix, warnings raised as errors; with several ranks a tiled w, x split by
  columns, y tiled unlike x): the gram is asked, declines, and the answer is NumPy's.
* A statement between the gram and its first read: the gram's all_gather is started
  when the tile's pass ends and waited for at the read (``runtime/started.py``).

Prints 'OK <rank>' at the end.
"""
import functools
import sys
import warnings
from pathlib import Path

import numpy as np

from phylanx import config
from phylanx import distributed as dist
from phylanx.distributed import fused_tiles, gram_tiles
from phylanx.errors import PhylanxError
from phylanx.fusion import hot, rowpass
from phylanx.runtime import started

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))   # tests/
from source_functions import compiled as compiled_from  # noqa: E402

#: functions of source text, named <gram_tiles NAME> in errors
compiled = functools.partial(compiled_from, label="gram_tiles")

warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)
r, p = dist.find_here(), dist.num_localities()

for _name, _value in (("fusion_rows", True), ("fusion_count_threshold", 1),
                      ("fusion_min_time_us", 0.0), ("fusion_compile_cost_ms", 0.0),
                      ("fusion_min_size", 1), ("fusion_background", False)):
    config.set(_name, _value)
rowpass.MIN_ELEMENTS = 1                       # small tiles take the kernel too
hot.KEEP_SLOWER = True
hot.FusedRegion.cost_moved_kept = lambda self, entry: None

ran = []
_gram = gram_tiles.gram_on_tiles
off = []            # [True]: the tile path declines (node by node on the tiles)


def _counted(rows, values):
    result = NotImplemented if off else _gram(rows, values)
    ran.append(result is not NotImplemented)
    return result


fused_tiles.TileRunner.gram = staticmethod(_counted)


def uneven(a, name, empty=True):
    """Rows split unevenly: rank 0's tile empty (on two ranks nothing is split then), or
    rank k holding a share growing with k (one rank: the whole)."""
    rows = a.shape[0]
    if empty:
        cuts = [0, 0] + [round(rows * k / (p - 1)) for k in range(1, p)] if p > 1 else [0, rows]
    else:
        cuts = [round(rows * k * (k + 1) / (p * (p + 1))) for k in range(p + 1)]
    box = [["rows", cuts[r], cuts[r + 1]]] + ([["columns", 0, a.shape[1]]] if a.ndim == 2 else [])
    return dist.annotate(a[cuts[r]:cuts[r + 1]].copy(), name, ["tile", *box])


def expression(rng, depth):
    """A random element-wise expression of y (tiled rows) and s."""
    if depth == 0 or rng.random() < 0.3:
        return str(rng.choice(["y", "s", "y"]))
    kind = rng.integers(5)
    a = expression(rng, depth - 1)
    if kind == 0:
        return f"np.tanh({a})"
    if kind == 1:
        return f"1.0 / (1.0 + np.exp(-{a}))"
    b = expression(rng, depth - 1)
    return f"({a} {['+', '-', '*'][kind - 2]} {b})"


def of_the_product(rng):
    """A random element-wise chain reading the product q once (a row pass's f)."""
    f = f"(q {rng.choice(['+', '-', '*'])} {expression(rng, 2)})"
    for _ in range(int(rng.integers(3))):
        kind = rng.integers(3)
        f = (f"np.tanh({f})", f"1.0 / (1.0 + np.exp(-{f}))",
             f"({f} * {expression(rng, 1)})")[kind]
    return f


def source_of(rng, i):
    f = of_the_product(rng)
    spelling = i % 6
    if spelling == 0:
        return f"def g{i}(x, y, w, s):\n    q = x @ w\n    e = {f}\n    return x.T @ e\n"
    if spelling == 1:
        return f"def g{i}(x, y, w, s):\n    q = np.dot(x, w)\n    return np.dot(x.T, {f})\n"
    if spelling == 2:
        return f"def g{i}(x, y, w, s):\n    q = x.dot(w)\n    return x.T.dot({f})\n"
    if spelling == 3:
        return (f"def g{i}(x, y, w, s):\n    def part(a, b, v):\n        q = a @ v\n"
                f"        return np.transpose(a) @ {f.replace('y', 'b')}\n"
                f"    return part(x, y, w)\n")
    if spelling == 4:
        return f"def g{i}(x, y, w, s):\n    q = x @ w\n    return ({f}) @ x\n"
    return (f"def g{i}(x, y, w, s):\n    xt = x.T\n    k = 0\n    while k < 2:\n"
            f"        q = x @ w\n        e = {f}\n        w = w - 0.01 * (xt @ e)\n"
            f"        k += 1\n    return w\n")


def whole(value):
    return np.asarray(value.gather() if type(value) is dist.DistributedArray else value)


draw, rng = np.random.default_rng(47), np.random.default_rng(47 + p)
for i in range(6):
    source = source_of(draw, i)
    fn = compiled(source, f"g{i}")
    for dtype, how in ((np.float64, "row"), (np.float32, "uneven"),
                       ((np.float32, np.float64)[i % 2], "skewed")):
        rows, d = int(rng.integers(2 * p + 3, 6 * p + 12)), int(rng.integers(2, 6))
        x = rng.normal(size=(rows, d)).astype(dtype)
        y = rng.normal(size=rows).astype(dtype)
        w = (0.5 * rng.normal(size=d)).astype(dtype)
        s = float(rng.normal())
        if how == "row":
            tx, ty = dist.tiled(x, "row", name=f"gx{i}"), dist.tiled(y, "row", name=f"gy{i}")
        else:
            tx, ty = (uneven(x, f"{how}x{i}", how == "uneven"),
                      uneven(y, f"{how}y{i}", how == "uneven"))
        want = fn.python(x, y, w, s)
        del ran[:]
        for _ in range(3):              # planned and compiled, checked, the kernel
            got = fn(tx, ty, w, s)
        # (a split of the rows; on one rank, its one tile: else dot_d runs, declined)
        taken = p == 1 or tx.layout.split_axes() == [0]
        assert ran and all(ran) == taken and any(ran) == taken, (i, how, source, ran)
        off.append(True)
        try:
            plain = fn(tx, ty, w, s)
        finally:
            off.clear()
        assert type(got) is type(plain), (i, how, type(got), type(plain))
        if type(got) is dist.DistributedArray:     # (what the next exchange reads)
            assert (got.full_name, got.layout, got.plain) == \
                (plain.full_name, plain.layout, plain.plain), (i, how, source)
        rtol = 1e-10 if dtype is np.float64 else 2e-4
        scale = float(np.max(np.abs(want))) or 1.0
        for value in (got, plain):
            np.testing.assert_allclose(whole(value), want, rtol=rtol, atol=rtol * scale,
                                       err_msg=f"{source} {how} {dtype} rank {r}")

# started early (runtime/started.py): a statement between the gram and its first read
# runs while the all_gather of the partial grams is in flight
STARTED = ("def early(x, y, w, a):\n    g = x.T @ (np.tanh(x @ w) - y)\n"
           "    b = np.sum(a * 2.0)\n    return g + b\n")
early = compiled(STARTED, "early")
starts = []
_started_init = started.Started.__init__


def _noted(self, finish):
    starts.append(1)
    _started_init(self, finish)


started.Started.__init__ = _noted
x = np.random.default_rng(10).normal(size=(3 * p + 2, 4))
y, w, a = np.arange(3 * p + 2.0) / 7.0, np.linspace(0.5, -0.5, 4), np.ones(3)
tx, ty = dist.tiled(x, "row", name="ex"), dist.tiled(y, "row", name="ey")
del ran[:]
for _ in range(3):
    np.testing.assert_allclose(early(tx, ty, w, a), early.python(x, y, w, a), rtol=1e-12)
started.Started.__init__ = _started_init
assert ran and all(ran), ran
assert (len(starts) == 3) == (p > 1), starts      # (one locality: nothing to start)

# ranks choosing differently: rank 0 on its tile, the others node by node
SIGMOID = ("def sigmoid_gram(x, y, w):\n    q = 1.0 / (1.0 + np.exp(-(x @ w)))\n"
           "    return x.T @ (q - y)\n")
mixed = compiled(SIGMOID, "sigmoid_gram")
x = np.random.default_rng(9).normal(size=(4 * p + 1, 5))
y = (np.arange(4 * p + 1) % 2).astype(float)
w = np.linspace(-1.0, 1.0, 5)
tx, ty = dist.tiled(x, "row", name="mx"), dist.tiled(y, "row", name="my")
if r != 0:
    off.append(True)
for _ in range(3):
    np.testing.assert_allclose(mixed(tx, ty, w), mixed.python(x, y, w), rtol=1e-12)
try:
    mixed(tx, ty, w + (1e-9 if r == 0 else 0.0))
except PhylanxError as error:
    text = str(error)
    assert p > 1 and "different values for a plain operand" in text, text
    assert "<gram_tiles sigmoid_gram>:2:" in text, text
else:
    assert p == 1, f"rank {r}: a w differing on rank 0 went unnoticed"
off.clear()

# what the tile path declines (gram_tiles.gram_on_tiles): the gram was asked and ran
# node by node, NumPy's answer all the same.  Whatever the rank count: x not float32 or
# float64, w not a float vector (ints; a matrix), warnings raised as errors; with the
# rows split (several ranks): w tiled, x split by columns, y's rows tiled unlike x's.
# (A tape recording is declined too, but gradients do not flow through tiled arrays yet:
# no program reaches it.)
DECLINED = ("def declined(x, y, w):\n    q = x @ w\n    return x.T @ (np.tanh(q) - y)\n")
declined = compiled(DECLINED, "declined")
x = np.random.default_rng(12).normal(size=(4 * p + 3, 4))
y, w = np.linspace(-1.0, 1.0, 4 * p + 3), np.linspace(0.5, -0.5, 4)
tx, ty = dist.tiled(x, "row", name="nx"), dist.tiled(y, "row", name="ny")
cases = [("x float16", dist.tiled(x.astype(np.float16), "row", name="hx"), ty, w, True),
         ("w of ints", tx, ty, np.arange(4), True),
         ("w a matrix", tx, ty, w[:, None], True),
         ("warnings raise", tx, ty, w, True),
         ("w tiled", tx, ty, dist.tiled(w, "row", name="nw"), p > 1),
         ("x split by columns", dist.tiled(x, "column", name="cx"), y, w, p > 1),
         ("y tiled otherwise", tx, uneven(y, "oy", False), w, p > 1)]
for what, cx, cy, cw, always in cases:
    del ran[:]
    with warnings.catch_warnings():
        if what == "warnings raise":
            warnings.simplefilter("error", RuntimeWarning)
        for _ in range(3):
            got = declined(cx, cy, cw)
    plain_args = [whole(v) for v in (cx, cy, cw)]
    want = declined.python(*plain_args)
    np.testing.assert_allclose(whole(got), want, rtol=2e-3 if what == "x float16" else 1e-12,
                               atol=1e-2 if what == "x float16" else 0.0,
                               err_msg=f"{what} rank {r}")
    assert ran and (not any(ran) or not always), (what, ran)
print(f"OK {r}", flush=True)
