"""A plain operand whose shape differs between ranks, in a local product (review rev2).

Runs under ``mpiexec -n 2``.  ``x @ w`` with ``x`` row-tiled (and ``a @ c`` with ``c``
column-tiled) sends no message: each rank takes the result's global shape from its own
plain operand.  When that operand's free axis differs between ranks, the ranks hold
arrays of one name and different shapes; the next collective must fail on every rank
with one located error, not sum tiles of different products.  Prints 'OK <rank>'.
"""
import warnings

import numpy as np

from phylanx import Phylanx
from phylanx import distributed as dist
from phylanx.errors import PhylanxError

warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)
r, p = dist.find_here(), dist.num_localities()
assert p == 2, "run with mpiexec -n 2"


@Phylanx
def total(a, b):
    return np.sum(a @ b)


def fails_alike(a, b):
    try:
        value = total(a, b)
    except PhylanxError as error:
        assert "plain_operand_shapes.py" in str(error), error      # located
        return
    raise AssertionError(f"rank {r}: a disagreeing plain operand gave {value}")


rng = np.random.default_rng(3)
whole = rng.normal(size=(7, 4))
fails_alike(dist.tiled(whole, "row", name="shapes_x"), rng.normal(size=(4, 3 - r)))
fails_alike(rng.normal(size=(2 + r, 7)), dist.tiled(whole, "column", name="shapes_c"))
# the ranks are in step afterwards: an agreeing product is right
w = np.arange(12.0).reshape(4, 3)
np.testing.assert_allclose(total(dist.tiled(whole, "row", name="shapes_y"), w),
                           np.sum(whole @ w), rtol=1e-12)
dist.barrier().result()
print(f"OK {r}")
