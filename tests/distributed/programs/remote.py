"""Remote execution and remote reads for any number of ranks: run_on with a Python
function, a PhySL function by name, f{L#n} and define{L#n} in PhySL, get_remote of a
registered tile, remote errors, and a request to a rank that has finished.
Prints 'OK <rank>' at the end."""
import os
import time

import numpy as np

import phylanx
from phylanx import distributed as dist
from phylanx.runtime.locality import here as locality

r, n = dist.find_here(), dist.num_localities()
right = (r + 1) % n


def where_am_i(x):
    return (dist.find_here(), x * 2)


# a picklable Python function, by reference; and a local lambda by value fails cleanly
for target in range(n):
    assert dist.run_on(target, where_am_i, r).result() == (target, 2 * r)
assert dist.run_on(right, np.linalg.norm, np.array([3.0, 4.0])).result() == 5.0

# a PhySL function, registered by name on every rank
square_plus_rank = phylanx.evaluate("lambda(x, x * x + find_here())")
dist.register_function("square_plus_rank", square_plus_rank)
dist.barrier("registered").result()
assert dist.run_on(right, "square_plus_rank", 3).result() == 9 + right

# f{L#n} and define{L#n} in PhySL (every rank compiles the same program)
got = phylanx.evaluate(f"""block(
    define(f, x, list(x, find_here())),
    define{{L#{right}}}(v, find_here() * 10),
    list(f{{L#{right}}}(7), v, find_here{{L#{n - 1}}}()))""")
assert [list(got[0]), got[1], got[2]] == [[7, right], 10 * right, n - 1], got

# an error raised there comes back located here
try:
    dist.run_on(right, int, "not a number").result()
    raise AssertionError("expected a remote error")
except dist.PhylanxRemoteError as e:
    assert f"failed on locality {right}" in str(e) and "ValueError" in str(e), str(e)
    assert "remote.py" in str(e), str(e)          # located at the call in this file

# remote tile fetch: the owner's code does not take part (it is busy sleeping)
tile = np.arange(20, dtype=np.float64).reshape(4, 5) + 100 * r
dist.register_array("tile", tile)
dist.barrier("tiles").result()
if r == 0:
    time.sleep(0.2)       # rank 0 is busy: the others read its tile meanwhile
for owner in range(n):
    part = dist.get_remote(owner, "tile", (slice(1, 3), slice(0, 2))).result()
    assert np.array_equal(part, (np.arange(20.0).reshape(4, 5) + 100 * owner)[1:3, :2]), part
assert np.array_equal(phylanx.evaluate(f'get_remote({right}, "tile", list(0, 1))'),
                      (np.arange(20.0).reshape(4, 5) + 100 * right)[0:1])
try:
    dist.get_remote(right, "no such tile").result()
    raise AssertionError("expected an error")
except dist.PhylanxRemoteError as e:
    assert "no array registered as 'no such tile'" in str(e), str(e)
dist.barrier("fetched").result()

# the last rank finishes now; rank 0 then asks it for something: a fast error, no hang
if n > 1 and r == 0:
    service = locality().service
    deadline = time.monotonic() + 20
    while n - 1 not in service.gone and time.monotonic() < deadline:
        time.sleep(0.01)
    start = time.monotonic()
    try:
        dist.run_on(n - 1, where_am_i, 1).result()
        raise AssertionError("expected an error")
    except dist.PhylanxRemoteError as e:
        assert "has finished" in str(e) and time.monotonic() - start < 1.0, str(e)
        print("finished-rank error:", e, flush=True)
print(f"OK {r}", flush=True)
if r == n - 1:
    os.environ["PHYLANX_SHUTDOWN_TIMEOUT"] = "0.5"
