"""Large collectives moving their data with no detour, for any number of ranks; prints
'OK <rank>' at the end.

* a checked all_reduce bigger than the header slot starts its data's ``Iallreduce``
  together with the header exchange, and once the headers agree its waiter ``MPI_Wait``s
  for it itself (no hand-over to the long-wait thread);
* ranks disagreeing in such an all_reduce (shape, dtype of the same size, op, kind,
  large against inline data) get the same located error naming the ranks on every rank,
  within seconds; the channel gets a new communicator (the unmatched data request stays
  on the old one, which is freed), no other channel's, and its next collectives are right;
* so do an unchecked all_reduce's, a checked broadcast's, all_gather's and gather's large
  data;
* an all_gather of arrays of one dtype and shape lands in one block, without copies;
  a broadcast's (a scatter's) large array is received into the result itself.
"""
import functools
import time

import numpy as np

from phylanx import distributed as dist
from phylanx.distributed import progress
from phylanx.distributed.mpi import MPI
from phylanx.runtime.locality import here

r, n = dist.find_here(), dist.num_localities()
locality = here()
engine, collectives = locality.engine, locality.collectives
source = __file__

# -- large all_reduce: the waiter waits for the data itself ------------------------------
elements = progress.LONG_BYTES // 8 + 3          # waited with MPI_Wait (progress.Long)
for dtype in ("float64", "int32", "bool", "float16"):
    x = ((np.arange(elements) + r) % 7).astype(dtype)
    parts = [((np.arange(elements) + k) % 7).astype(dtype) for k in range(n)]
    for op in ("max", "lor") if dtype == "bool" else ("sum", "prod", "min"):
        # (pairwise, in rank order: ufunc.reduce would widen int32 sums)
        want = functools.reduce({"sum": np.add, "prod": np.multiply, "min": np.minimum,
                                 "max": np.maximum, "lor": np.logical_or}[op], parts)
        got = dist.all_reduce(x, op, name="big").result()
        assert got.dtype == want.dtype and np.array_equal(got, want), (dtype, op)
# complex: ops MPI defines for it start with the header (max: below, after the check of
# the long-wait thread)
c = np.arange(elements) * (1 + 1j) + r
assert np.array_equal(dist.all_reduce(c, name="big").result(),
                      sum(np.arange(elements) * (1 + 1j) + k for k in range(n)))
# two at once, waited in the other order
first, second = dist.all_reduce(x, name="big-a"), dist.all_reduce(x + 1, name="big-b")
assert np.array_equal(second.result(), functools.reduce(np.add, [p + 1 for p in parts]))
assert np.array_equal(first.result(), functools.reduce(np.add, parts))
# a middle size (not waited with MPI_Wait, but started with the headers too)
mid = np.arange(3000.0) + r
assert np.array_equal(dist.all_reduce(mid, name="mid").result(),
                      sum(np.arange(3000.0) + k for k in range(n)))
# the data of an unchecked all_reduce (its caller promised every rank makes it), of a
# checked broadcast, all_gather and gather (after the header exchange every rank took
# part in) is waited for the same way (ar44; before, each went to the long-wait thread)
big = np.arange(elements, dtype=np.float64) + r
assert np.array_equal(dist.all_reduce(big, name="big", check=False).result(),
                      sum(np.arange(elements, dtype=np.float64) + k for k in range(n)))
assert np.array_equal(dist.broadcast(big, root=n - 1, name="big").result(),
                      np.arange(elements, dtype=np.float64) + n - 1)
gathered = dist.all_gather(big, name="big").result()
assert [g[0] for g in gathered] == list(range(n)), [g[0] for g in gathered]
gathered = dist.gather(big, root=0, name="big").result()
assert gathered is None if r else [g[0] for g in gathered] == list(range(n)), gathered
# nothing was handed to the long-wait thread (it is started on first use)
assert engine._long_thread is None, "large data was handed to the long-wait thread"
# complex max, which MPI has not for complex numbers, is NumPy's (gathered and reduced in
# rank order, the same at every size)
assert np.array_equal(dist.all_reduce(c, "max", name="big").result(),
                      np.arange(elements) * (1 + 1j) + (n - 1))
# a bitwise op of floats is NumPy's TypeError, located, on every rank
floats = np.ones(elements)
try:
    dist.all_reduce(floats, "band", name="big").result()
except dist.PhylanxDistributedError as e:
    assert source in str(e) and "not supported for the input types" in str(e), str(e)
else:
    raise AssertionError("a bitwise and of floats gave a result")

# -- disagreements: every rank, the same error naming the ranks, within seconds ----------
last = n - 1
big = 40_000
cases = {
    "shape": lambda: dist.all_reduce(np.zeros(big + (r == last)), name="bad"),
    "dtype": lambda: dist.all_reduce(np.zeros(big, "int64" if r == last else "float64"),
                                     name="bad"),
    "op": lambda: dist.all_reduce(np.zeros(big), "max" if r == last else "sum", name="bad"),
    "kind": lambda: dist.broadcast(np.zeros(big), root=0, name="bad") if r == last
    else dist.all_reduce(np.zeros(big), name="bad"),
    "inline": lambda: dist.all_reduce(np.zeros(2 if r == last else big), name="bad"),
}
dist.all_reduce(np.ones(3), name="bad").result()       # (the channel exists)
for what, call in cases.items():
    before = collectives._channels["bad"].comm
    start = time.monotonic()
    try:
        call().result()
    except dist.PhylanxCollectiveMismatchError as e:
        text = str(e)
        assert n > 1, text
        assert source in text and f"rank {last}:" in text, (what, text)
        assert f"{'ranks' if n > 2 else 'rank'} {', '.join(map(str, range(last)))}:" in text, \
            (what, text)
    else:
        assert n == 1, f"{what}: no error on {n} ranks"
    assert time.monotonic() - start < 10, (what, time.monotonic() - start)
    # the channel goes on, on a new communicator when data was started with the headers
    got = dist.all_reduce(np.full(big, r + 1.0), name="bad").result()
    assert np.array_equal(got, np.full(big, n * (n + 1) / 2)), what
    got = dist.all_reduce(np.ones(3), name="bad").result()
    assert got.tolist() == [n] * 3, what
    # the communicator a renewal replaced is freed (MPI's are limited: a program that
    # catches many disagreements ran out of them), its pending requests kept until done
    assert (before == MPI().COMM_NULL) == (n > 1), (what, "old communicator not freed")
    assert len(collectives._stranded) <= len(cases), len(collectives._stranded)
if n > 1:
    assert collectives._channels["bad"].generation == len(cases), \
        collectives._channels["bad"].generation
# a renewed channel's communicator is not another channel's: rank 0 opens the channel
# "bad#6" (named like a renewal of "bad") while the others renew "bad", before they open it
if r == 0:
    other = dist.all_reduce(np.full(3, r + 1.0), name=f"bad#{len(cases) + 1}")
try:
    dist.all_reduce(np.zeros(big + (r == last)), name="bad").result()
except dist.PhylanxCollectiveMismatchError:
    assert n > 1
if r != 0:
    time.sleep(0.3)
    other = dist.all_reduce(np.full(3, r + 1.0), name=f"bad#{len(cases) + 1}")
assert other.result().tolist() == [n * (n + 1) / 2] * 3
assert np.array_equal(dist.all_reduce(np.full(big, r + 1.0), name="bad").result(),
                      np.full(big, n * (n + 1) / 2))

# -- all_gather of alike arrays: one block; broadcast into the result ------------------
for shape in ((3000,), (40, 70), (big,)):
    mine = np.full(shape, r, np.float32)
    got = dist.all_gather(mine, name="alike").result()
    assert [g.shape for g in got] == [shape] * n and [g.dtype for g in got] == [mine.dtype] * n
    assert all(np.array_equal(g, np.full(shape, k, np.float32)) for k, g in enumerate(got))
    assert all(g.base is not None and g.base is got[0].base for g in got), "not one block"
    for root in range(n):
        got = dist.gather(mine, root=root, name="alike").result()
        assert (got is None) if r != root else \
            all(np.array_equal(g, np.full(shape, k, np.float32)) for k, g in enumerate(got))
    got = dist.broadcast(mine, root=last, name="alike").result()
    assert np.array_equal(got, np.full(shape, last, np.float32)) and got.flags.writeable
# scatter of large uneven rows, received into the result (writable, right values)
whole = np.arange((7 * n + 1) * 5000, dtype=np.float64).reshape(7 * n + 1, 5000)
for root in range(n):
    mine = dist.scatter(whole if r == root else None, root=root, name="rows").result()
    rows = np.array_split(np.arange(7 * n + 1), n)[r]
    assert np.array_equal(mine, whole[rows]) and mine.flags.writeable, (root, mine.shape)
# uneven arrays still gather (different shapes, then different dtypes)
got = dist.all_gather(np.full(3000 + r, r), name="alike").result()
assert all(np.array_equal(g, np.full(3000 + k, k)) for k, g in enumerate(got))
got = dist.all_gather(np.full(3000, r, "int32" if r % 2 else "int64"), name="alike").result()
assert all(g.dtype == ("int32" if k % 2 else "int64") for k, g in enumerate(got))

dist.barrier().result()
print(f"OK {r}", flush=True)
