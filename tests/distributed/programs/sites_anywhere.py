"""The same program run by each rank from its own copy (``test_comm_facts_mpi.py``):
the operations' sites agree whatever directory the file sits in.  Prints 'OK <rank>'."""
import numpy as np

from phylanx import Phylanx
from phylanx import distributed as dist


@Phylanx
def total(x):
    return np.sum(x)


@Phylanx
def gram(x):
    return x.T @ x


x = dist.tiled(np.arange(12.0).reshape(4, 3), "row", name="anywhere")
assert total(x) == 66.0
assert np.allclose(gram(x), np.arange(12.0).reshape(4, 3).T @ np.arange(12.0).reshape(4, 3))
print(f"OK {dist.find_here()}", flush=True)
