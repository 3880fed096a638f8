"""Fused regions run on the local tiles of row-tiled operands (``distributed/fused_tiles.py``)
and leave the node-by-node trace (issue 28 item 5).

* Random element-wise chains (three, the same at every rank count: a kernel each,
  compiled once and then loaded from numba's disk cache) of two tiled arrays ``x``,
  ``y``, a plain row ``c`` and a number ``s``, some ended by a sum, mean or max along
  the rows' other axis, each over three tilings of random shapes (seeded by the rank
  count: every rank draws the same): rows even, rows uneven with rank 0's tile empty,
  and columns.  The result equals the undecorated function's on the whole arrays, and
  equals the same function run node by node on the tiles (the tile path switched off;
  its plain parts fused alike) in everything the next exchange reads (name,
  generation, layout, the plain operands' digests it carries); on rows the tile path
  ran (counted).  The column tiling (the plain row is cut per tile: declined) and
  ``x``, ``y`` tiled differently (a fetch: declined) are guards.  An element-wise
  operation without a rule of its own (``power``) leaves the same trace fused.
* Ranks choosing differently: rank 0 runs the region fused on its tiles, the others
  node by node (the tile path switched off there).  Equal plain operands give NumPy's
  answer; a plain row that differs on rank 0 only is a located error on every rank at
  the result's first exchange, naming it, as when every rank runs node by node; an
  error inside the region afterwards is raised by every rank (each counted the
  region's evaluations at its operations' sites alike, else the job ends); so is an
  error that depends on the values (an integer base to a negative power) inside a
  region run on rank 0's tiles only, located at its operation.  Hot or cold is decided
  alike on every rank (by global sizes), so that a declined region whose leaf
  communicates keeps its collectives in step with tiles of very different sizes.
* Compiled loops of replicated plain values (``fusion/loops.py``: a ``for`` and a
  ``while``), rank 0 alone reaching the expected compile cost: every rank still compiles
  them at the same call and keeps them on their check alone, so the results' bytes and
  the kernel runs are the same on every rank.

Prints 'OK <rank>' at the end.
"""
import contextlib
import functools
import hashlib
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from phylanx import config
from phylanx import distributed as dist
from phylanx.distributed import fused_tiles
from phylanx.errors import PhylanxError
from phylanx.fusion import hot, loops

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))   # tests/
from source_functions import compiled as compiled_from  # noqa: E402

#: functions of source text, named <fused_tiles NAME> in errors
compiled = functools.partial(compiled_from, label="fused_tiles")

warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)
r, p = dist.find_here(), dist.num_localities()

EAGER = (("fusion", True), ("fusion_rows", True), ("fusion_count_threshold", 1),
         ("fusion_min_time_us", 0.0), ("fusion_compile_cost_ms", 0.0),
         ("fusion_min_size", 1), ("fusion_background", False))
for _name, _value in EAGER:
    config.set(_name, _value)
hot.KEEP_SLOWER = True                                     # the kernel, once checked, runs
hot.FusedRegion.cost_moved_kept = lambda self, entry: None  # (no NumPy re-check on a busy machine)

ran = []
_run = fused_tiles.TileRunner.run
faulty = []          # [True]: the fused evaluation on the tiles fails (a kernel's fault)


def _broken(tiles):
    raise RuntimeError("an injected kernel fault")


def _counted(region, values, compute):
    result = _run(region, values, _broken if faulty else compute)
    ran.append(result is not NotImplemented)
    return result


fused_tiles.TileRunner.run = staticmethod(_counted)


def uneven(a, name):
    """Rows split unevenly, rank 0's tile empty (one rank: the whole)."""
    rows = a.shape[0]
    cuts = [0, 0] + [round(rows * k / (p - 1)) for k in range(1, p)] if p > 1 else [0, rows]
    return dist.annotate(a[cuts[r]:cuts[r + 1]].copy(), name,
                         ["tile", ["rows", cuts[r], cuts[r + 1]], ["columns", 0, a.shape[1]]])


def tiled(a, how, name):
    return uneven(a, name) if how == "uneven" else dist.tiled(a, how, name=name)


def expression(rng, depth):
    """A random element-wise expression of x, y (tiled), c (a plain row), s (a number)."""
    if depth == 0 or rng.random() < 0.2:
        return str(rng.choice(["x", "y", "c", "s", "x"]))
    kind = rng.integers(6)
    a = expression(rng, depth - 1)
    if kind == 0:
        return f"np.tanh({a})"
    if kind == 1:
        return f"np.abs({a})"
    if kind == 2:
        return f"np.maximum({a}, c)"
    b = expression(rng, depth - 1)
    return f"({a} {['+', '-', '*'][kind - 3]} {b})"


def chain_source(rng, i):
    body = f"x * {expression(rng, 3)} + y"       # tiled whatever the draw
    end = rng.integers(4)
    if end == 1:
        body = f"np.sum({body}, axis=1)"
    elif end == 2:
        body = f"np.mean({body} * {body}, axis=-1)"
    elif end == 3:
        body = f"np.max({body}, axis=1)"
    return f"def chain{i}(x, y, c, s):\n    t = {body}\n    return t\n"


def trace(value):
    return value.full_name, value.layout, value.plain


# three chains, the same at every rank count (their kernels compiled once: numba's disk
# cache), each run on the three tilings (one kernel signature each: compiled once per
# process), the first its own (chain 1 starts on uneven tiles: rank 0's empty tile runs
# NumPy while the others' run the kernel); the shapes drawn anew for each rank count
draw, rng = np.random.default_rng(45), np.random.default_rng(45 + p)
TILINGS = ("row", "uneven", "column")
for i in range(3):
    source = chain_source(draw, i)
    fused = compiled(source, f"chain{i}")
    unfused = compiled(source, f"chain{i}")      # run below without the tile path
    for how in TILINGS[i:] + TILINGS[:i]:
        rows, m = int(rng.integers(p, 4 * p + 6)), int(rng.integers(1, 7)) + p
        x, y = rng.normal(size=(rows, m)), rng.normal(size=(rows, m))
        c, s = rng.normal(size=m), float(rng.normal())
        tx, ty = tiled(x, how, f"fx{i}{how}"), tiled(y, how, f"fy{i}{how}")
        want = fused.python(x, y, c, s)
        del ran[:]
        for _ in range(4):               # cold, hot (planned, compiled), checked, kernel
            got = fused(tx, ty, c, s)
        hot._TILED[:] = []               # node by node on the tiles, as before
        try:
            for _ in range(4):
                plain = unfused(tx, ty, c, s)
        finally:
            hot.set_tiled_runner(fused_tiles.TileRunner)
        if how != "column":        # (hot alike on every rank: by the global size)
            assert ran and all(ran), (i, how, source, ran)
        assert type(got) is type(plain), (i, how, type(got), type(plain))
        assert how == "column" or type(got) is dist.DistributedArray, (i, type(got))
        if type(got) is dist.DistributedArray:
            assert trace(got) == trace(plain), (i, how, source, trace(got), trace(plain))
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12,
                                   err_msg=f"{source} {how} rank {r}")
        np.testing.assert_allclose(np.asarray(plain), want, rtol=1e-12, atol=1e-14)

# x and y tiled differently: y's rows are fetched (a collective): declined, NumPy's answer
source = chain_source(np.random.default_rng(7), "mixed")
mixed = compiled(source, "chainmixed")
x, y, c = np.random.default_rng(8).normal(size=(3, 2 * p + 3, 4))
tx, ty = dist.tiled(x, "row", name="mx"), uneven(y, "my")
del ran[:]
for _ in range(4):
    got = mixed(tx, ty, c[0], 0.5)
assert p == 1 or not any(ran), ran
np.testing.assert_allclose(np.asarray(got), mixed.python(x, y, c[0], 0.5), rtol=1e-10, atol=1e-12)

# an element-wise operation without a rule of its own (power: ``darray.dispatch`` runs
# it tile by tile and carries no digest of its plain operands) leaves that trace fused
# too (else a rank that fused and one that did not differ at the next exchange: a false
# "different values for a plain operand"); hot on NumPy (a reduction: big whatever its
# size), no kernel to compile
config.set("fusion_min_size", 10 ** 9)
POWERS = "def powers(x, k):\n    return np.sum(x ** k + 1, axis=1)\n"
powers, slow = compiled(POWERS, "powers"), compiled(POWERS, "powers")
xi = np.arange(2 * p * 3).reshape(2 * p, 3) % 5
ti = dist.tiled(xi, "row", name="pw")
del ran[:]
for _ in range(2):
    got = powers(ti, 3)
hot._TILED[:] = []
try:
    for _ in range(2):
        plain = slow(ti, 3)
finally:
    hot.set_tiled_runner(fused_tiles.TileRunner)
assert ran and ran[-1], ran
assert trace(got) == trace(plain), (trace(got), trace(plain))
np.testing.assert_array_equal(np.asarray(got), powers.python(xi, 3))
config.set("fusion_min_size", 1)
del ran[:]

# ranks choosing differently: rank 0 fused, the others node by node
DISTANCES = "def distances(x, c):\n    return np.sum((x - c) * (x + c), axis=1)\n"
mine = compiled(DISTANCES, "distances")
if r != 0:
    hot._TILED[:] = []                   # node by node on the tiles on every other rank
x = np.random.default_rng(9).normal(size=(4 * p + 1, 5))
c = np.arange(5.0)
for how in ("row", "uneven"):
    tx = tiled(x, how, f"dx_{how}")
    for _ in range(4):
        got = mine(tx, c)
        np.testing.assert_allclose(np.asarray(got), mine.python(x, c), rtol=1e-12)
    shifted = c + (1e-9 if r == 0 else 0.0)
    try:
        np.asarray(mine(tx, shifted))   # the result's first exchange checks the digests
    except PhylanxError as error:
        text = str(error)
        assert p > 1 and "different values for a plain operand" in text, text
        assert "operand 2 of __sub" in text and "<fused_tiles distances>:2:" in text, text
    else:
        assert p == 1, f"rank {r}: a plain operand differing on rank 0 went unnoticed ({how})"
    # an error inside the region (its first __sub) after evaluations fused on rank 0
    # only: every rank counted them alike, so every rank raises it (else: job ended)
    try:
        mine(tx, np.arange(6.0))
    except PhylanxError as error:
        assert "<fused_tiles distances>:2:" in str(error) and "(6,)" in str(error), str(error)
    else:
        raise AssertionError(f"rank {r}: a plain row of 6 against rows of 5 gave a result")
assert (r == 0) == any(ran[-10:]), (r, ran)

# an error of one operation inside the region that depends on the values (an integer
# base to a negative power), on its tiles on rank 0 only: every rank raises it, located
# at the power, and goes on in step (else: the job ended, rank 0 said to have a result)
config.set("fusion_min_size", 10 ** 9)
xi = np.arange(3 * p * 4).reshape(3 * p, 4) % 7 + 1
ti = dist.tiled(xi, "row", name="pi")
np.testing.assert_array_equal(np.asarray(powers(ti, 2)), powers.python(xi, 2))
try:
    powers(ti, -1)
except PhylanxError as error:
    assert "negative integer exponent" in str(error), str(error)
    assert "<fused_tiles powers>:2:" in str(error), str(error)
else:
    raise AssertionError(f"rank {r}: an integer base to a negative power gave a result")
np.testing.assert_array_equal(np.asarray(powers(ti, 3)), powers.python(xi, 3))
hot.set_tiled_runner(fused_tiles.TileRunner)


def raised_at(fn, *args, text):
    """``fn(*args)`` raised a PhylanxError at line 2 of its source saying ``text``,
    and its region did not run fused on the tiles."""
    del ran[:]
    try:
        fn(*args)
    except PhylanxError as error:
        assert f"<fused_tiles {fn.python.__name__}>:2:" in str(error), str(error)
        assert text in str(error), str(error)
    else:
        raise AssertionError(f"rank {r}: {fn.python.__name__}{args} gave a result")
    assert ran and not any(ran), (fn.python.__name__, ran)


# where the fused evaluation could fail, the region is declined before it runs, on
# every rank (fused_tiles' module doc: it used to fail fused, then run node by node):
# a tiled integer exponent (its values unknown: declined even when none is negative),
# here negative on every rank's tile: every rank raises at the power and goes on
tk = dist.tiled(np.where(np.arange(3 * p)[:, None] % 3 == 0, -1, 2) * np.ones((1, 4), int),
                "row", name="pk")
raised_at(powers, ti, tk, text="negative integer exponent")
raised_at(powers, ti, np.array([2, -1, 2, 2]), text="negative integer exponent")  # plain
del ran[:]
np.testing.assert_array_equal(np.asarray(powers(ti, ti)), powers.python(xi, xi))
assert ran and not any(ran), ran
# a dtype NumPy refuses (an int tile & a float): every rank raises at the operation
MASKS = "def masks(x, s):\n    return np.sum((x & s) + 1, axis=1)\n"
masks = compiled(MASKS, "masks")
for _ in range(2):                       # cold, then hot: fused
    del ran[:]
    np.testing.assert_array_equal(np.asarray(masks(ti, 6)), masks.python(xi, 6))
assert ran and all(ran), ran
raised_at(masks, ti, 1.5, text="bitwise_and")
# NumPy's warnings raised as errors (a zero in every rank's tile: log's divide by zero)
LOGS = "def logs(x):\n    return np.sum(np.log(x) * 2.0, axis=1)\n"
logs = compiled(LOGS, "logs")
xz = (np.arange(3 * p * 4).reshape(3 * p, 4) % 3).astype(float)
tz = dist.tiled(xz, "row", name="lz")
with warnings.catch_warnings():
    warnings.simplefilter("ignore", RuntimeWarning)
    for _ in range(2):
        del ran[:]
        np.testing.assert_array_equal(np.asarray(logs(tz)), logs.python(xz))
    assert ran and all(ran), ran
with warnings.catch_warnings():
    warnings.simplefilter("error", RuntimeWarning)
    raised_at(logs, tz, text="divide by zero")
# a fault of the fused evaluation itself, on every rank (no operation's error: nothing
# runs again node by node): located at the region's root, agreed; the ranks go on
faulty.append(True)
try:
    masks(ti, 6)
except PhylanxError as error:
    assert "<fused_tiles masks>:2:" in str(error), str(error)
    assert "an injected kernel fault" in str(error), str(error)
else:
    raise AssertionError(f"rank {r}: a fused evaluation that failed gave a result")
finally:
    faulty.clear()
np.testing.assert_array_equal(np.asarray(masks(ti, 6)), masks.python(xi, 6))
config.set("fusion_min_size", 1)

# ranks choosing differently by their tiles' sizes (rank 0's big, the others' small)
# in a region the tile path declines (``x + z`` fetches: another tiling) whose leaf
# communicates (``np.sum(q)``): a hot rank evaluates the leaves first, a cold one in
# the tree's order, so hot or cold must be decided alike on every rank (else the
# collectives run out of step and the job ends)
config.set("fusion_min_size", 100)
ORDER = "def order(x, z, q):\n    return (x + z) * np.sum(q) - x\n"
order = compiled(ORDER, "order")
rows = 20 + 10 * p
x, z, q = np.random.default_rng(10).normal(size=(3, rows, 5))
xcuts = [0] + [20 + 10 * k for k in range(1, p + 1)]
zcuts = [0] + [c - 5 for c in xcuts[1:-1]] + [rows]
tx = dist.annotate(x[xcuts[r]:xcuts[r + 1]].copy(), "ox",
                   ["tile", ["rows", xcuts[r], xcuts[r + 1]], ["columns", 0, 5]])
tz = dist.annotate(z[zcuts[r]:zcuts[r + 1]].copy(), "oz",
                   ["tile", ["rows", zcuts[r], zcuts[r + 1]], ["columns", 0, 5]])
tq = dist.tiled(q, "row", name="oq")
for _ in range(4):
    np.testing.assert_allclose(np.asarray(order(tx, tz, tq)), order.python(x, z, q),
                               rtol=1e-12)
config.set("fusion_min_size", 1)

# compiled loops of replicated plain values (``fusion/loops.py``, issue 28): rank 0 reaches
# a loop's expected compile cost at once, its peers never (``fusion_compile_cost_ms`` is
# no plan setting: a rank idler than its peers, a kernel in its disk cache); with several
# ranks the loops still compile at the same call on every rank, by the tree's work
# counted (``LOCKSTEP_WORK``, lowered here), and are kept on their check alone, so every
# rank rounds the replicated values alike: the same bytes on every rank, the same number
# of kernel runs (before: rank 0 ran kernels, the others the tree; other bits)
LOOPS = ("def descend(x, y, a, b, n):\n"
         "    w = np.zeros(x.shape[1])\n"
         "    for _ in range(n):\n"
         "        w = w - 0.01 * (x.T @ (1.0 / (1.0 + np.exp(-(x @ w))) - y))\n"
         "    v = b * 0.0\n"
         "    step = 1.0\n"
         "    k = 0\n"
         "    while step > 1e-20:\n"
         "        g = a @ v - b\n"
         "        v = v - 0.05 * g\n"
         "        step = np.sum(g * g)\n"
         "        k = k + 1\n"
         "    return w, v, k\n")
descend = compiled(LOOPS, "descend")
config.set("fusion_min_size", 10 ** 9)          # (no region kernels: the loops' alone)
config.set("fusion_compile_cost_ms", 0.0 if r == 0 else 1e9)
lockstep_work, max_ns = loops.LOCKSTEP_WORK, loops.MAX_NS_PER_NODE
loops.LOCKSTEP_WORK, loops.MAX_NS_PER_NODE = 4000, 10 ** 12   # (a loaded machine: small steps)
try:
    rng = np.random.default_rng(12)              # the same on every rank: replicated
    x, m = rng.normal(size=(60, 6)), rng.normal(size=(6, 6))
    y, a, b = (rng.random(60) > 0.5) * 1.0, m @ m.T / 6 + np.eye(6), rng.normal(size=6)
    digest = hashlib.sha256()
    for _ in range(8):    # 1 rank: compiled, checked, timed four times, kept
        w, v, k = descend(x, y, a, b, 200)
        digest.update(w.tobytes() + v.tobytes() + str(k).encode())
    want = descend.python(x, y, a, b, 200)
    np.testing.assert_allclose(w, want[0], rtol=1e-9)
    np.testing.assert_allclose(v, want[1], rtol=1e-9, atol=1e-12)
    runs = [e.calls for node in descend._function.body.walk()
            if isinstance(loop := getattr(node.inline, "__self__", None), loops.CompiledLoop)
            for e in loop.entries.values() if isinstance(e, loops._Entry)]
    seen = dist.all_gather((digest.hexdigest(), runs)).result()
    assert all(s == seen[0] for s in seen), f"rank {r}: compiled loops' results {seen}"
    assert len(runs) == 2 and all(runs), (r, runs)        # both loops ran kernels
finally:
    loops.LOCKSTEP_WORK, loops.MAX_NS_PER_NODE = lockstep_work, max_ns
    config.set("fusion_compile_cost_ms", 0.0)
    config.set("fusion_min_size", 1)

# a rank whose kernel compiles (or waits for another process's compile of it: the host
# lock, up to fusion_cache_wait) longer than collective_timeout is not a hang: its peers'
# collectives wait for it (it tells them: ``hooks.local_work``), then go on alike
# (issue 28, hang50: rank 0 timed out in a gather while rank 1 compiled under load)
if p > 1:
    from phylanx.kernels import compiling
    _first = compiling.first_compile

    @contextlib.contextmanager
    def _slow_first(*args, **kwargs):
        if r == p - 1:
            time.sleep(2.5)         # > collective_timeout below: a held host lock
        with _first(*args, **kwargs) as how:
            yield how

    compiling.first_compile = _slow_first
    timeout = config.get("collective_timeout")
    config.set("collective_timeout", 1.0)
    try:
        SLOW = f"def slow(x, s):\n    return np.tanh(x * {1.5 + 0.25 * p}) + s\n"
        slow = compiled(SLOW, "slow")
        xs = np.random.default_rng(11).normal(size=(4 * p, 3))
        txs = dist.tiled(xs, "row", name="slowx")
        for _ in range(4):          # the kernel compiles on the last rank's late
            np.testing.assert_allclose(np.asarray(slow(txs, 0.5)), slow.python(xs, 0.5),
                                       rtol=1e-12)
    finally:
        config.set("collective_timeout", timeout)
        compiling.first_compile = _first

dist.barrier().result()
print(f"OK {r}")
