"""Remote reads of NumPy arrays travel as raw bytes, not pickled (``active_messages``).

Runs under ``mpiexec -n 2`` or more.  Every rank registers arrays of many dtypes and
shapes (float16 to complex, bool, datetime, a structured dtype, 0-d, empty, and one of
Python objects, which only pickling carries); every rank reads every other rank's
(whole, a strided part, many reads in flight at once; parts of an array registered
``unchanged``, sent without a copy) and compares each with the array
it knows the owner holds: same dtype, shape and bits.  While the other ranks read, the
bytes this rank pickles for its answers are counted: the numeric arrays' answers are a
small header each, not their data.  A guard: operands of ``dot_d`` (tiles sent without a
copy) stored into right after it: NumPy's product.  Prints 'OK <rank>' at the end.
"""
import pickle
import threading

import numpy as np
from mpi4py import MPI

from phylanx import Phylanx
from phylanx import distributed as dist

r, p = dist.find_here(), dist.num_localities()
assert p >= 2, "run with mpiexec -n 2 (or more)"


def arrays(owner: int) -> dict:
    """The arrays ``owner`` registers (every rank can build anyone's)."""
    rng = np.random.default_rng(owner)
    made = {
        "f64": rng.normal(size=(300, 200)),
        "f32": rng.normal(size=(7, 5, 3)).astype(np.float32),
        "f16": rng.normal(size=11).astype(np.float16),
        "c128": rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4)),
        "i8": rng.integers(-100, 100, size=(9, 2)).astype(np.int8),
        "u64": rng.integers(0, 2 ** 63, size=6, dtype=np.uint64),
        "bool": rng.random((5, 5)) < 0.5,
        "dates": np.arange(5).astype("datetime64[D]"),
        "record": np.array([(1, 2.5), (owner, -1.0)], dtype=[("a", "<i4"), ("b", "<f8")]),
        "scalar": np.array(float(owner) + 0.25),
        "empty": np.zeros((0, 3)),
        "nan": np.array([np.nan, -0.0, np.inf]),
        "objects": np.array([{"owner": owner}, "text", 3], dtype=object),
    }
    made["f64"][0, 0] = np.nan
    return made


def same(got, want, what):
    assert type(got) is np.ndarray, (what, type(got))
    assert got.dtype == want.dtype and got.shape == want.shape, \
        (what, got.dtype, want.dtype, got.shape, want.shape)
    if want.dtype.hasobject:
        assert got.tolist() == want.tolist(), what
    else:
        assert got.tobytes() == want.tobytes(), what


# count the bytes this rank pickles for MPI (mpi4py's pickle) while it answers reads
pickled = []
_lock = threading.Lock()


def counting_dumps(obj, *args):
    data = pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
    with _lock:
        pickled.append(len(data))
    return data


MPI.pickle.__init__(counting_dumps, pickle.loads)
mine = arrays(r)
for name, value in mine.items():
    dist.register_array(f"raw/{name}", value)
# kept unchanged until every read is received (as a fetched tile): sent without a copy
dist.register_array("raw/unchanged", mine["f64"], unchanged=True)
MPI.COMM_WORLD.Barrier()

for owner in range(p):
    if owner == r:
        continue
    theirs = arrays(owner)
    futures = {name: dist.get_remote(owner, f"raw/{name}") for name in theirs}  # in flight
    for name, future in futures.items():
        same(future.result(timeout=60), theirs[name], f"{name} of {owner}")
    strided = (slice(1, None, 3), slice(None, None, -2))
    same(dist.get_remote(owner, "raw/f64", strided).result(timeout=60),
         theirs["f64"][strided], f"strided part of f64 of {owner}")
    same(dist.get_remote(owner, "raw/record", slice(1, 2)).result(timeout=60),
         theirs["record"][1:2], f"a record of {owner}")
    for part in (None, slice(5, 9), (slice(None), slice(0, 7))):     # contiguous or not
        same(dist.get_remote(owner, "raw/unchanged", part).result(timeout=60),
             theirs["f64"] if part is None else theirs["f64"][part],
             f"part {part} of an unchanged array of {owner}")


# a guard: dot_d sends its operands' tiles without a copy; the program stores into an
# operand right after the product (its owner changes the tile): the product is
# still NumPy's, as every read was received before dot_d returned (its last barrier)
@Phylanx
def product_then_store(a, b):
    c = dot_d(a, b)  # noqa: F821 - a primitive, compiled by @Phylanx
    a += 1.0
    a[0] = 7.0
    b *= 2.0
    return c


for rep in range(3):
    rng = np.random.default_rng(rep)
    A, B = rng.normal(size=(4 * p, 3 * p)), rng.normal(size=(3 * p, 2 * p))
    for kinds in (("row", "row"), ("column", "row"), ("row", "column")):
        c = product_then_store(dist.tiled(A.copy(), kinds[0], name=f"store_a{rep}{kinds}"),
                               dist.tiled(B.copy(), kinds[1], name=f"store_b{rep}{kinds}"))
        whole = c.gather() if hasattr(c, "gather") else c   # (a sum over k: replicated)
        np.testing.assert_allclose(whole, A @ B, rtol=1e-12, atol=1e-12,
                                   err_msg=f"dot_d then a store, {kinds}")

MPI.COMM_WORLD.Barrier()        # every rank has read: this rank answered all its reads
MPI.pickle.__init__(pickle.dumps, pickle.loads)
dist.unregister_array("raw/unchanged")
numeric = sum(v.nbytes for v in mine.values() if not v.dtype.hasobject)
# the answers' headers, the requests, the object array: far less than the data itself
assert sum(pickled) < numeric / 4, (sum(pickled), numeric)
print(f"OK {r}", flush=True)
