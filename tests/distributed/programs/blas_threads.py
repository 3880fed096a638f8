"""Under mpiexec with several ranks every rank runs BLAS with one thread (the ranks of
a node share its cores), also while it runs tasks concurrently; the products still
agree.  Prints 'OK <rank>' at the end."""
import numpy as np

from phylanx import distributed as dist
from phylanx.runtime import blas_threads
from phylanx.runtime.forkjoin import fork_join

r, n = dist.find_here(), dist.num_localities()
if n > 1:
    assert blas_threads.current() == 1, blas_threads.current()
    assert fork_join([blas_threads.current, blas_threads.current]) == [1, 1]
    assert blas_threads.current() == 1
x = np.arange(10_000.0).reshape(200, 50)
assert np.allclose(x.T @ x, np.einsum("ij,ik->jk", x, x))
dist.barrier("done").result()
print(f"OK {r}", flush=True)
