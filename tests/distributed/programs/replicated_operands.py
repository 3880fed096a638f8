"""``dot_d`` and ``conv1d_d`` with a plain operand (a replicated matrix, a kernel) that
the ranks pass differently: each rank would hold a tile computed with its own, a
silent mix; instead the result's next exchange (here its gather) fails on every rank
with the mismatch error naming the operand.  The same operands on every rank: NumPy's
answer.  ``random_d``'s mean and std, the same way (at its creation), and the axis and
keepdims of a reduction (at the reduction).  Runs under
``mpiexec -n 2`` or more; prints 'OK <rank>' at the end.
"""
import warnings

import numpy as np

import phylanx
from phylanx import distributed as dist
from phylanx.distributed.errors import PhylanxCollectiveMismatchError
from phylanx.primitives.keras_support.conv import conv1d

warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)
r, p = dist.find_here(), dist.num_localities()
assert p >= 2, "run with mpiexec -n 2 (or more)"

rng = np.random.default_rng(0)
x, a = rng.normal(size=(2 * p, 7, 2)), rng.normal(size=(3 * p, 4))
kernel, b = rng.normal(size=(3, 2, 5)), rng.normal(size=(4, 3))
tx = dist.tiled(x, "page", name="replicated_x")
ta = dist.tiled(a, "row", name="replicated_a")
cases = [("conv1d_d", tx, kernel, conv1d(x, kernel)), ("dot_d", ta, b, a @ b)]
for name, tiled, plain, want in cases:
    same = phylanx.evaluate(f"lambda(t, w, {name}(t, w))", tiled, plain)
    np.testing.assert_allclose(same.gather(), want, rtol=1e-12, atol=1e-12)
    mine = plain + r        # a different operand on every rank
    try:
        phylanx.evaluate(f"lambda(t, w, {name}(t, w))", tiled, mine).gather()
    except PhylanxCollectiveMismatchError as e:
        assert "plain operand" in str(e) and f"operand 2 of {name}" in str(e), str(e)
    else:
        raise AssertionError(f"{name} with a different operand on every rank: no error")
# random_d's mean and std are the whole array's: a rank drawing with its own would hold
# a tile from another distribution (the tile index is each rank's own, rightly)
for what, args in (("mean", f"{float(r)}, 1.0"), ("std", f"0.0, {1.0 + r}")):
    try:
        phylanx.evaluate(f'random_d(list(4, 4), find_here(), num_localities(), '
                         f'"random_{what}", "sym", {args})').gather()
    except PhylanxCollectiveMismatchError as e:
        assert f"{what} differs" in str(e), str(e)
    else:
        raise AssertionError(f"random_d with a different {what} on every rank: no error")
# a reduction's axis and keepdims shape its replicated answer: a rank passing its own
# would hold an answer of another shape than the others' (keepdims: silently)
for name in ("sum_d", "max_d", "min_d", "mean_d"):
    np.testing.assert_allclose(
        phylanx.evaluate(f"lambda(t, {name}(t, 0, true))", ta),
        getattr(np, name[:-2])(a, axis=0, keepdims=True), rtol=1e-12)
    try:
        phylanx.evaluate(f"lambda(t, k, {name}(t, 0, k))", ta, bool(r))
    except PhylanxCollectiveMismatchError as e:
        assert "plain operand" in str(e) and f"operand 3 of {name}" in str(e), str(e)
    else:
        raise AssertionError(f"{name} with a different keepdims on every rank: no error")
print(f"OK {r}", flush=True)
