"""The express path of the collectives (``collectives._express``) under ``mpiexec -n 2``;
prints 'OK <rank>' at the end.

* a small all_reduce, broadcast or all_gather whose other rank is already there is done
  when the call returns (the calling thread ran it: no engine, no hand-off); checked
  and unchecked, and a large all_reduce (header on the calling thread, data handed to
  the engine) gives the right result;
* its results equal the engine's (the same collective with the express path switched
  off: every request handed over at once) and NumPy's, over dtypes, ops and shapes;
* a rank that is late makes the other hand its collective to the engine, and a second
  collective of the same name queued behind it runs after it, in order;
* disagreements found by the header exchange still name the ranks, in an express
  collective and in the byte-wise agreement of broadcasts and gathers (another root,
  another kind under one name), and the channel goes on after them.
"""
import itertools

import numpy as np

from phylanx import distributed as dist
from phylanx.distributed import collectives as coll_module

r, n = dist.find_here(), dist.num_localities()
assert n == 2, n
other = 1 - r


def meet(call, name):
    """``call()``'s future on rank 0, started when rank 1's part is surely in flight:
    rank 1 starts its part, then both meet in a barrier of another name, then rank 0
    starts its part."""
    if r == 1:
        future = call()
        dist.barrier(name=f"meet-{name}").result()
        return future
    dist.barrier(name=f"meet-{name}").result()
    return call()


# -- the rank that comes last finds its collective done at return ----------------------
one, kib, mib = np.ones(1), np.arange(128.0), np.arange(131072.0)
for label, call, want in (
        ("all_reduce 8 B", lambda: dist.all_reduce(one + r, name="x"), one * 2 + 1),
        ("all_reduce 1 KiB", lambda: dist.all_reduce(kib * (r + 1), name="x"), kib * 3),
        ("all_reduce unchecked", lambda: dist.all_reduce(one + r, name="x", check=False),
         one * 2 + 1),
        ("broadcast", lambda: dist.broadcast(kib + r, root=1, name="x"), kib + 1),
        ("broadcast unchecked", lambda: dist.broadcast(kib + r, root=1, name="x",
                                                       check=False), kib + 1),
        ("all_gather", lambda: dist.all_gather(one * r, name="x"), np.array([[0.0], [1.0]]))):
    call().result()     # (the channel's communicator is made: not part of the check)
    future = meet(call, label)
    if r == 0:
        assert future.done(), (label, "not done when the call returned")
    got = future.result()
    assert np.array_equal(np.asarray(got), want), (label, got, want)
# large: the header exchange on the calling thread, the data waited for by the engine
got = meet(lambda: dist.all_reduce(mib * (r + 1), name="big"), "big").result()
assert np.array_equal(got, mib * 3), "1 MiB all_reduce"

# -- express and engine agree, and NumPy is the oracle -----------------------------------
polls, spin = coll_module._EXPRESS_POLLS, coll_module._EXPRESS_SPIN


def both_ways(call):
    """``call()``'s result by the express path and by the engine alone."""
    fast = call().result()
    # every request handed to the engine at once
    coll_module._EXPRESS_POLLS, coll_module._EXPRESS_SPIN = 0, 0.0
    try:
        slow = call().result()
    finally:
        coll_module._EXPRESS_POLLS, coll_module._EXPRESS_SPIN = polls, spin
    return fast, slow


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


rng = np.random.default_rng(7)
ops = {"sum": np.add, "prod": np.multiply, "min": np.fmin, "max": np.fmax,
       "land": np.logical_and, "lor": np.logical_or, "band": np.bitwise_and}
for dtype, shape in itertools.product(
        ("float64", "int32", "bool", "complex128", "float16"), ((), (3, 2), (128,))):
    mine = [rng.integers(0, 4, shape).astype(dtype) for _ in range(n)]
    for op, ufunc in ops.items():
        if op == "band" and np.dtype(dtype).kind not in "biu":
            continue
        if op in ("min", "max") and np.dtype(dtype).kind == "c":
            continue
        fast, slow = both_ways(lambda mine=mine, op=op: dist.all_reduce(mine[r], op, name="oracle"))
        want = ufunc(mine[0], mine[1])
        if dtype == "bool" and op in ("sum", "prod"):
            want = ufunc(mine[0].astype(np.int64), mine[1].astype(np.int64))
        assert same(fast, slow), (dtype, shape, op, fast, slow)
        assert np.array_equal(np.asarray(fast), np.asarray(want).astype(np.asarray(fast).dtype)) \
            and np.asarray(fast).shape == np.shape(want), (dtype, shape, op, fast, want)
    fast, slow = both_ways(lambda mine=mine: dist.all_gather(mine[r], name="oracle"))
    assert len(fast) == len(slow) == n and all(
        same(f, s) and same(f, m) for f, s, m in zip(fast, slow, mine)), (dtype, shape)
    fast, slow = both_ways(lambda mine=mine: dist.broadcast(mine[r], root=1, name="oracle"))
    assert same(fast, slow) and same(fast, mine[1]), (dtype, shape, fast, slow)
# a NumPy scalar and a 0-d array keep their kinds, as the engine's path gives them
for value in (np.float32(r), np.asarray(r, np.int64)):
    fast, slow = both_ways(lambda value=value: dist.all_reduce(value, name="kinds"))
    assert type(fast) is type(slow) and fast == slow == 1, (value, fast, slow)
    fast, slow = both_ways(lambda value=value: dist.all_gather(value, name="kinds"))
    assert [type(f) for f in fast] == [type(s) for s in slow] and fast == slow, (fast, slow)

# -- a late rank: handed to the engine, the next one queued behind it ------------------
if r == 1:
    first = dist.all_reduce(one, name="late")          # rank 0 is not there yet
    second = dist.all_reduce(one * 2, name="late")     # queued behind the first
    dist.barrier(name="late-go").result()
else:
    dist.barrier(name="late-go").result()
    first = dist.all_reduce(one, name="late")
    second = dist.all_reduce(one * 2, name="late")
assert first.result().tolist() == [2.0] and second.result().tolist() == [4.0]

# -- disagreements still name the ranks, and the channel goes on ----------------------
for label, call, text in (
        ("shape", lambda: dist.all_reduce(np.zeros(r + 1), name="bad"),
         "rank 1: all_reduce(op=sum) of float64 array (2,)"),
        ("root", lambda: dist.broadcast(one, root=r, name="bad"), "broadcast(root=1)"),
        ("kind", lambda: (dist.broadcast(one, root=0, name="bad") if r else
                          dist.all_gather(one, name="bad")), "rank 0: all_gather"),
        ("gather root", lambda: dist.gather(one, root=r, name="bad"), "gather(root=1)")):
    try:
        meet(call, f"bad-{label}").result()
    except dist.PhylanxCollectiveMismatchError as e:
        assert text in str(e), (label, str(e))
        assert e.loc is not None and e.loc.file == __file__, (label, e.loc)
    else:
        raise AssertionError(f"no mismatch error ({label})")
    assert dist.all_reduce(one, name="bad").result().tolist() == [2.0], label

dist.barrier().result()
print(f"OK {r}", flush=True)
