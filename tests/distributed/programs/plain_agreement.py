"""A plain operand meeting a tiled array must be the same on every rank: one that differs
in value only (``np.random.rand(5)`` without a common seed) is a located error on
every rank, naming it, at the next message the ranks exchange about the result (issue
28: before, a silently wrong answer).  Equal operands are NumPy's answer (guards).  Any
number of ranks (one: nothing can differ, only the guards mean anything).  Run in
``test_one_rank_errors_and_inplace_mpi.py``'s job (its DONE line says it returned: no
'OK' of its own, which that job counts for its other programs).
"""
import warnings

import numpy as np

from phylanx import Phylanx
from phylanx import distributed as dist
from phylanx.errors import PhylanxError

warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)
r, n = dist.find_here(), dist.num_localities()


def scaled_sum(x, w):
    return (x * w).sum()                    # where: multiply


def product(x, w):
    return x @ w                            # where: product


def stored_sum(x, v):
    x[1] = v                                # where: store
    return x.sum()


def shifted_max(x, s):
    return (x + s).max()                    # where: scalar


def powered_sum(x, w):
    return (x ** w).sum()                   # where: power (element-wise, no rule)


def hypot_max(x, w):
    return np.hypot(x, w).max()             # where: hypot (element-wise, no rule)


def kron_sum(x, w):
    return np.kron(x, w).sum()              # where: kron (no rule: the gather fallback)


def added_in_place(x, w):
    x += w                                  # where: added in place
    return x


def rows_scaled_in_place(x, w):
    x[1:3] *= w                             # where: rows scaled in place
    return x


def masked_store(x, w):
    x[x > w[0]] = 0.0                       # where: masked store
    return x


def python_product(x, w):
    return x * w                            # where: python multiply


def python_added_in_place(x, w):
    x += w                                  # where: python added in place
    return x


def same_everywhere(call, x, *args):
    wanted = call(np.asarray(x).copy(), *args)      # (before: some change x in place)
    got = Phylanx(call)(x, *args)
    np.testing.assert_allclose(np.asarray(got), wanted, rtol=1e-12, err_msg=call.__name__)


SOURCE = open(__file__).read().splitlines()


def differs(call, where, x, *args, gathered=False, compiled=True):
    """``call`` with operands that differ between ranks fails on every rank, naming
    the operand by its line (marked ``# where: <where>``); the ranks are in step
    afterwards."""
    line = next(i + 1 for i, text in enumerate(SOURCE) if text.endswith(f"# where: {where}"))
    try:
        got = (Phylanx(call) if compiled else call)(x, *args)
        if gathered:
            np.asarray(got)                 # the result's first exchange
    except PhylanxError as error:
        text = str(error)
        assert "different values for a plain operand" in text, text
        assert f"plain_agreement.py:{line}:" in text, text
    else:
        raise AssertionError(f"{call.__name__}: ranks' plain operands differ, no error")
    dist.barrier().result()


matrix = np.random.default_rng(3).normal(size=(7, 5))
x = dist.tiled(matrix, "row", name="plain_x")
common = np.random.default_rng(5)
same_everywhere(scaled_sum, x, common.normal(size=5))
same_everywhere(product, x, common.normal(size=(5, 2)))
same_everywhere(stored_sum, dist.tiled(matrix, "row", name="plain_s"), common.normal(size=5))
same_everywhere(shifted_max, x, 0.25)
same_everywhere(powered_sum, x, common.integers(1, 4, size=5).astype(float))
same_everywhere(hypot_max, x, common.normal(size=5))
same_everywhere(kron_sum, x, common.normal(size=2))
for call in [added_in_place, rows_scaled_in_place, masked_store]:
    same_everywhere(call, dist.tiled(matrix, "column", name=f"same_{call.__name__}"),
                    common.normal(size=5))

if n > 1:
    mine = np.random.default_rng(100 + r)       # no common seed: differs on every rank
    differs(scaled_sum, "multiply", x, mine.normal(size=5))
    differs(product, "product", x, mine.normal(size=(5, 2)), gathered=True)
    differs(stored_sum, "store", dist.tiled(matrix, "row", name="plain_t"), mine.normal(size=5))
    differs(shifted_max, "scalar", x, float(r))
    # element-wise primitives without a rule of their own (tile by tile) and the gather
    # fallback (its all_gather carries the digests): a silently different answer before
    differs(powered_sum, "power (element-wise, no rule)", x, np.full(5, 2.0 + (r == 1)))
    differs(hypot_max, "hypot (element-wise, no rule)", x, mine.normal(size=5))
    differs(kron_sum, "kron (no rule: the gather fallback)", x, mine.normal(size=2))
    # a large operand (digested by a sample and a sum of its words): one element differs
    wide = dist.tiled(np.ones((4, 20000)), "row", name="plain_wide")
    w = np.ones(20000)
    w[12345] += r
    differs(scaled_sum, "multiply", wide, w)
    # x op= w and stores under a mask computed from w, compiled (__update, __inplace,
    # the store) and from Python (NumPy's operators on a DistributedArray): the target
    # carries w's digest to its next message (before: a silently mixed answer)
    for name, call in [("added in place", added_in_place), ("masked store", masked_store),
                       ("rows scaled in place", rows_scaled_in_place)]:
        differs(call, name, dist.tiled(matrix, "column", name=f"plain_{call.__name__}"),
                mine.normal(size=5), gathered=True)
    for name, call in [("python multiply", python_product),
                       ("python added in place", python_added_in_place)]:
        differs(call, name, dist.tiled(matrix, "row", name=f"plain_{call.__name__}"),
                mine.normal(size=5), gathered=True, compiled=False)
    # in step afterwards: equal operands give NumPy's answer again
    same_everywhere(scaled_sum, x, common.normal(size=5))
dist.barrier().result()
