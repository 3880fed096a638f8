"""Every collective, for any number of ranks: arrays of several dtypes and shapes,
pickled objects, every root, PhySL and Python, and named collectives issued in
different orders on different ranks while computing.  Prints 'OK <rank>' at the end."""
import threading
import time

import numpy as np

import phylanx
from phylanx import distributed as dist

r, n = dist.find_here(), dist.num_localities()

# -- where am I, from Python and from PhySL ----------------------------------------
assert dist.find_all_localities() == list(range(n))
here, count, everyone, host = phylanx.evaluate(
    "list(find_here(), num_localities(), find_all_localities(), hostname())")
assert (here, count, list(everyone), host) == (r, n, list(range(n)), dist.hostname()), here

# -- reductions ------------------------------------------------------------------------
for dtype in ("int64", "float64", "float32", "int32", "bool", "complex128"):
    x = (np.arange(6).reshape(2, 3) + r).astype(dtype)
    ops = ("land", "lor") if dtype == "bool" else ("sum", "prod", "min", "max")
    if dtype == "complex128":
        ops = ("sum", "prod")
    for op in ops:
        expected = [(np.arange(6).reshape(2, 3) + k).astype(dtype) for k in range(n)]
        fold = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
                "land": np.logical_and, "lor": np.logical_or}[op]
        want = expected[0]
        for e in expected[1:]:
            want = fold(want, e)
        got = dist.all_reduce(x, op).result()
        assert got.dtype == want.dtype and np.array_equal(got, want), (dtype, op, got, want)
        for root in range(n):
            got = dist.reduce(x, op, root=root).result()
            assert (got is None) if r != root else np.array_equal(got, want), (op, root, got)
assert dist.all_reduce(r, "max").result() == n - 1
assert dist.all_reduce(np.float64(r), "sum").result() == sum(range(n))
assert dist.all_reduce([r], "sum").result() == list(range(n))           # pickled: lists add
assert dist.all_reduce(r % 2 == 0, "land").result() == (n == 1)
assert dist.all_reduce({r}, lambda a, b: a | b).result() == set(range(n))  # any function
assert dist.reduce({r}, lambda a, b: a | b, root=n - 1).result() == (
    set(range(n)) if r == n - 1 else None)
if n > 1:       # a failing reduction function is a located error on the folding rank
    try:
        dist.reduce(r, lambda a, b: a / 0, root=0).result()
    except dist.PhylanxDistributedError as e:
        assert r == 0 and "ZeroDivisionError" in str(e) and "collectives.py" in str(e), e
    else:
        assert r != 0
# unchecked (no header exchange; every rank passes check=False): the same results,
# for arrays and scalars, pickled values still exchange their sizes
for check in (False, None):
    got = dist.all_reduce(np.arange(5.0) + r, "sum", "unchecked", check=check).result()
    assert np.array_equal(got, n * np.arange(5.0) + sum(range(n))), (check, got)
assert dist.all_reduce(np.float32(r), "max", check=False).result() == n - 1
assert dist.all_reduce([r], "sum", check=False).result() == list(range(n))
assert dist.all_reduce(np.zeros((0, 3)), "sum").result().shape == (0, 3)
assert np.array_equal(dist.all_reduce(np.bitwise_left_shift(1, r), "bor").result(),
                      2 ** n - 1)

# -- gathers -------------------------------------------------------------------------
# Python numbers come back as Python numbers, NumPy scalars as NumPy scalars
ranks = dist.all_gather(int(r)).result()
assert ranks == list(range(n)) and all(type(k) is int for k in ranks), ranks
total = dist.all_reduce(float(r)).result()
assert type(total) is float and total == sum(range(n)), total
assert type(dist.all_reduce(np.float32(r)).result()) is np.float32
parts = dist.all_gather(np.full((r + 1, 2), r, dtype=np.int16)).result()
assert [p.shape for p in parts] == [(k + 1, 2) for k in range(n)] and parts[-1].dtype == np.int16
assert [int(p[0, 0]) for p in parts] == list(range(n))
assert dist.all_gather({"rank": r, "tag": "x" * r}).result() == \
    [{"rank": k, "tag": "x" * k} for k in range(n)]
mixed = dist.all_gather(r if r % 2 else f"s{r}").result()        # arrays and objects mixed
assert mixed == [k if k % 2 else f"s{k}" for k in range(n)], mixed
for root in range(n):
    got = dist.gather(np.float32(r) / 2, root=root).result()
    assert got is None if r != root else [float(v) for v in got] == [k / 2 for k in range(n)]
    got = dist.gather(("t", r), root=root, name="gather-obj").result()
    assert got is None if r != root else got == [("t", k) for k in range(n)]

# -- broadcast and scatter from every root ---------------------------------------------
for root in range(n):
    value = np.arange(12, dtype=np.uint8).reshape(3, 4) + root if r == root else None
    got = dist.broadcast(value, root=root).result()
    assert np.array_equal(got, np.arange(12, dtype=np.uint8).reshape(3, 4) + root)
    assert dist.broadcast({"from": root} if r == root else None, root=root).result() == \
        {"from": root}
    assert dist.broadcast(2.5 * root if r == root else None, root=root).result() == 2.5 * root
    whole = np.arange(7 * 2, dtype=np.float64).reshape(7, 2)
    mine = dist.scatter(whole if r == root else None, root=root).result()
    assert np.array_equal(mine, np.array_split(whole, n)[r]), (root, mine)
    item = dist.scatter([f"item{k}" for k in range(n)] if r == root else None, root).result()
    assert item == f"item{r}"
dist.barrier().result()

# -- a root names a rank: a NumPy integer does; a float or a rank out of range fails,
# located, on every rank (a float root in range made no rank the root: gather and reduce
# gave None on every rank, silently)
if n > 1:
    last = np.int64(n - 1)
    assert dist.gather(r, root=last).result() == (list(range(n)) if r == n - 1 else None)
    assert dist.broadcast(np.full(2, r), root=last).result().tolist() == [n - 1] * 2

    def joined(a, b):       # (a Python function: the reduction gathers to the root)
        return a + b

    for bad in (0.5, 1.0, n, -1):
        for collective, value, extra in [(dist.gather, r, {}),
                                         (dist.reduce, np.full(2, r), {}),
                                         (dist.reduce, r, {"op": joined}),
                                         (dist.broadcast, np.full(2, r), {}),
                                         (dist.scatter, list(range(n)), {})]:
            try:
                got = collective(value, root=bad, **extra).result()
            except dist.PhylanxDistributedError as e:
                assert "collectives.py" in str(e) and f"root {bad!r}" in str(e), str(e)
            else:
                raise AssertionError(f"{collective.__name__} {extra} with root {bad!r}: no "
                                     f"error, {got!r}")


# -- the PhySL primitives ----------------------------------------------------------
total, maximum, gathered, bcast, scattered, reduced = phylanx.evaluate(f"""
    list(all_reduce([1.0, 2.0] * (find_here() + 1), "sum"),
         all_reduce(find_here(), "max"),
         all_gather(find_here() * 10),
         broadcast(if(find_here() == {n - 1}, "hello", nil), {n - 1}),
         scatter(if(find_here() == 0, linspace(0, {2 * n - 1}, {2 * n}), nil), 0),
         reduce(1, "sum", 0))""")
s = n * (n + 1) / 2
assert np.array_equal(total, [s, 2 * s]) and maximum == n - 1
assert list(gathered) == [10 * k for k in range(n)] and bcast == "hello"
assert np.array_equal(scattered, [2 * r, 2 * r + 1]), scattered
assert reduced == (n if r == 0 else None), reduced
unchecked = phylanx.evaluate('async(all_reduce([1.0, 2.0] * (find_here() + 1), "sum", '
                             '"physl-unchecked", false))')
assert np.array_equal(unchecked, [s, 2 * s]), unchecked
phylanx.evaluate('barrier("physl")')
if n > 1:    # a root that names no rank: located, not truncated to one (0.5 was rank 0)
    for call in ("gather(find_here(), 0.5)", "reduce(1, \"sum\", 0.5)",
                 "broadcast(find_here(), 0.5)", "scatter(linspace(0, 1, 4), 0.5)"):
        try:
            got = phylanx.evaluate(call)
        except phylanx.PhylanxError as e:
            assert "<evaluate>:1:1" in str(e) and "root 0.5" in str(e), str(e)
        else:
            raise AssertionError(f"{call}: no error, {got!r}")

# -- concurrency: named collectives started in different orders, overlapping work ----
names = [f"c{i}" for i in range(4)]
order = names if r % 2 == 0 else names[::-1]
futures = {name: dist.all_reduce(np.full(1000, i + 1.0), "sum", name=name)
           for i, name in sorted(enumerate(names), key=lambda p: order.index(p[1]))}
busy = sum(float(np.sum(np.sqrt(np.arange(20000.0)))) for _ in range(5))   # overlap
for i, name in enumerate(names):
    assert futures[name].result()[0] == n * (i + 1.0), name
results = {}


def worker(name, value):
    results[name] = dist.all_gather(value, name=name).result()


threads = [threading.Thread(target=worker, args=(f"t{i}", i * 100 + r)) for i in range(3)]
if r % 2:
    threads.reverse()
for t in threads:
    t.start()
    time.sleep(0.001)
for t in threads:
    t.join(30)
assert all(results[f"t{i}"] == [i * 100 + k for k in range(n)] for i in range(3)), results
# the same name twice in a row keeps its order (generation by generation)
a, b = dist.all_reduce(1, name="same"), dist.all_reduce(10, name="same")
assert (a.result(), b.result()) == (n, 10 * n)

print(f"OK {r}", flush=True)
