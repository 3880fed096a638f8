"""A program that catches a mismatch and goes on ends normally (run with 3 ranks):
ranks 0 and 1 start their large all_reduce's data with the header (of other shapes),
rank 2 brings inline data, starting none; the data requests left on the old
communicator must still complete (the rank that started none matches them), else MPI
cannot be finalized and the job is aborted at exit.  Prints 'OK <rank>' at the end."""
import numpy as np

from phylanx import distributed as dist

r, n = dist.find_here(), dist.num_localities()
big = 40_000
dist.all_reduce(np.ones(3), name="bad").result()
try:
    dist.all_reduce(np.zeros({0: big, 1: big + 1}.get(r, 2)), name="bad").result()
except dist.PhylanxCollectiveMismatchError:
    pass
else:
    raise AssertionError("no mismatch")
assert np.array_equal(dist.all_reduce(np.ones(big), name="bad").result(), np.full(big, n))
print(f"OK {r}", flush=True)
