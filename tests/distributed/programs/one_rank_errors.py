"""An error on one rank in work that sends no message (``distributed/one_rank_errors.py``).

``one_rank_errors.py alike``: errors every rank meets (a plain operand of the wrong
shape on every rank, in a local product, an element-wise operation and a store; a
product whose operand differs on every rank) are raised by every rank, located once,
and a program that catches them goes on in step: prints 'OK <rank>'.

``one_rank_errors.py lagging``: the same error on every rank, but rank 0 meets it
seconds after the others, longer than a remote call may take (``remote_timeout``)
though well within ``collective_timeout``: still raised by every rank and caught in
step (prints 'OK <rank>'), not taken for a rank that went on.

``one_rank_errors.py concurrent``: the same error on every rank in one of two calls
of a helper that the evaluation policy runs concurrently (``scaled(a, u) +
scaled(b * 2.0, w)``, its default thresholds), the calls ending in another order on
each rank (uneven tiles): still raised by every rank and caught in step (prints
'OK <rank>'), not taken for a rank that went on.

``one_rank_errors.py product RANK`` / ``store RANK`` / ``broadcast RANK``: only rank
RANK's plain operand has another shape, so only it fails (the others get a result);
the program catches the error and goes on.  The job must end within seconds with one
located message from RANK (before: the ranks went on apart, one hanging in a
collective, or silently); 'WENT ON <rank>' must never be printed.
"""
import sys
import time
import warnings

import numpy as np

from phylanx import Phylanx, config
from phylanx import distributed as dist
from phylanx.errors import PhylanxError

warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)
r, p = dist.find_here(), dist.num_localities()


@Phylanx
def product(a, b):
    return a @ b


@Phylanx
def shifted(a, v):
    return a + v


@Phylanx
def stored(a, v):
    a[1:3] = v
    return a


@Phylanx
def total(a):
    return np.sum(a)


rng = np.random.default_rng(5)
whole = rng.normal(size=(7, 4))
x = dist.tiled(whole, "row", name="errs_x")


def raised_everywhere(call, *args):
    try:
        value = call(*args)
    except PhylanxError as error:
        assert "one_rank_errors.py" in str(error), error      # located
        return str(error)
    raise AssertionError(f"rank {r}: {call.__name__} gave {value}")


def alike():
    texts = [raised_everywhere(product, x, np.ones((5, 2))),
             raised_everywhere(shifted, x, np.ones(3)),
             raised_everywhere(stored, dist.tiled(whole, "row", name="errs_s"), np.ones(3)),
             # every rank fails, each with its own text: one error, the lowest rank's
             raised_everywhere(product, x, np.ones((5 + r, 2)))]
    # located once, the lowest rank's text inside (not a located text located again)
    assert texts[-1].count("one_rank_errors.py:") == 1 and \
        "on locality 0: shapes (7, 4) and (5, 2)" in texts[-1], texts[-1]
    assert dist.all_gather(texts).result() == [texts] * p     # the same error everywhere
    # every rank has heard how the others' failures ended: nothing is kept for them (a
    # loop that catches an error per iteration would grow the record without end)
    from phylanx.distributed import one_rank_errors
    assert not one_rank_errors._failed, one_rank_errors._failed
    # the ranks are in step afterwards: products, reductions and stores are right
    w = np.arange(8.0).reshape(4, 2)
    np.testing.assert_allclose(np.asarray(product(x, w)), whole @ w, rtol=1e-12)
    np.testing.assert_allclose(total(x), np.sum(whole), rtol=1e-12)
    expected = whole.copy()
    expected[1:3] = np.ones(4)
    np.testing.assert_array_equal(
        np.asarray(stored(dist.tiled(whole, "row", name="errs_t"), np.ones(4))), expected)
    dist.barrier().result()
    print(f"OK {r}", flush=True)


def lagging():
    config.set("remote_timeout", 0.5)
    config.set("collective_timeout", 20.0)
    try:
        if r == 0:
            time.sleep(2.0)     # busy elsewhere: the others ask how its run ended
        raised_everywhere(shifted, x, np.ones(3))
    finally:
        config.reset("remote_timeout")
        config.reset("collective_timeout")
    np.testing.assert_allclose(total(x), np.sum(whole), rtol=1e-12)
    dist.barrier().result()
    print(f"OK {r}", flush=True)


def scaled(a, v):
    return a * v


@Phylanx
def two_calls(a, b, u, w):
    return scaled(a, u) + scaled(b * 2.0, w)


def uneven(rows, name, cols):
    """A row-tiled array of ones whose rank ``i`` holds ``rows[i]`` rows."""
    start = sum(rows[:r])
    return dist.annotate(np.ones((rows[r], cols)), name,
                         ["tile", ["rows", start, start + rows[r]], ["columns", 0, cols]])


def concurrent():
    big, cols = 2000, 1000      # (work enough that the policy spawns the first call)
    a = uneven([big] + [1] * (p - 1), "errs_a", cols)     # rank 0's call: slow
    b = uneven([1] * (p - 1) + [big], "errs_b", cols)     # the last rank's: slow
    for _ in range(8):          # the policy times the calls, then decides
        two_calls(a, b, np.ones(cols), np.ones(cols))
    for _ in range(3):
        raised_everywhere(two_calls, a, b, np.ones(cols), np.ones(cols + 1))
    np.testing.assert_allclose(total(x), np.sum(whole), rtol=1e-12)
    dist.barrier().result()
    print(f"OK {r}", flush=True)


def one_rank_fails(what, odd):
    length = 4 + (r == odd)             # the plain operand's shape differs on rank ``odd``
    try:
        if what == "product":
            product(x, np.ones((length, 2)))
        elif what == "broadcast":
            shifted(x, np.ones(length))
        else:
            stored(x, np.ones(length))
    except PhylanxError:
        pass        # a program that goes on after an error: every rank must agree on it
    total(x)
    dist.barrier().result()
    print(f"WENT ON {r}", flush=True)


if sys.argv[1] == "alike":
    alike()
elif sys.argv[1] == "lagging":
    lagging()
elif sys.argv[1] == "concurrent":
    concurrent()
else:
    one_rank_fails(sys.argv[1], int(sys.argv[2]))
