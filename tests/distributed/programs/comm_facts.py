"""Communication decided from the compiled plan (issue 28 item 2), with several ranks.

The static id of each operation's site (the plan's node: its primitive and source
location) joins the label the ranks check: rank 0 sums ``x`` in one function, the
others in another of the same body, so the operations agree in everything but their
site.  Every rank must raise the mismatch, located at its own line, and the ranks stay
in step (a later collective gives the right answer).  Before the site joined the label
this passed unnoticed.

Then the overlap the plan's order allows: ``step`` computes ``g = x.T @ r`` (an
all_gather of partial products, its ``comm`` fact; here waiting for late ranks), then
local work on a plain matrix, then ``w - g * s``.  Once the policy has measured them,
rank 0 runs the local work on another thread while the collective waits (the
instrumentation hooks give every node's interval): the collective starts where its
operands are ready and is waited for where ``g`` is read.

(That the ``comm`` facts are the communication the run does: ``layout_facts.py``.)
Prints 'OK <rank>' at the end.
"""
import sys
import time

import numpy as np

from phylanx import Phylanx, config
from phylanx import distributed as dist
from phylanx.distributed.errors import PhylanxCollectiveMismatchError


@Phylanx
def total_here(x):
    return np.sum(x)        # site: here


@Phylanx
def total_there(x):
    return np.sum(x)        # site: there


def _line_of(marker):
    with open(__file__) as source:
        return next(i for i, text in enumerate(source, 1) if text.endswith(marker + "\n"))


def check_sites_differ():
    """Ranks reaching the same operation from different sites fail, located (doc)."""
    x = dist.tiled(np.arange(12.0).reshape(4, 3), "row", name="sited")
    here = dist.find_here() == 0
    fn = total_here if here else total_there
    try:
        fn(x)
    except PhylanxCollectiveMismatchError as error:
        line = _line_of("# site: here" if here else "# site: there")
        assert error.loc is not None and error.loc.line == line, (error, line)
    else:
        raise AssertionError("ranks at different sites were not told apart")
    assert total_here(x) == 66.0          # in step again


@Phylanx
def step(x, r, w, a):
    g = x.T @ r     # gram
    s = np.sum(a @ a @ a)     # local
    return w - g * s


class Intervals:
    """(start, end, thread) of the gram product and of the local product chain."""

    def __init__(self):
        self.events = {"gram": [], "local": []}
        self.lines = {_line_of("# gram"): "gram", _line_of("# local"): "local"}

    def on_eval(self, node, start_ns, end_ns, thread_id):
        line = node.loc.line if node.loc is not None else None
        if line in self.lines and node.primitive in ("dot", "matmul", "sum") and \
                node.parent.primitive not in ("dot", "matmul", "sum"):
            self.events[self.lines[line]].append((start_ns, end_ns, thread_id))


def check_overlap():
    """Rank 0 computes the local work while the gram product's collective waits."""
    from phylanx.runtime import executors, hooks, measure
    from phylanx.runtime import policy as policy_module
    rank, n = dist.find_here(), dist.num_localities()
    policy_module.KEEP_BLAS_PRODUCTS_INLINE = False   # the product stands for any work
    executors.set_threads(2)
    config.set("eval_count_threshold", 2)
    config.set("exec_time_upper_threshold", 100_000)
    config.set("exec_time_lower_threshold", 50_000)
    whole = np.arange(2000.0).reshape(200, 10) / 2000
    x = dist.tiled(whole, "row", name="gx")
    r = dist.tiled(whole + 1.0, "row", name="gr")
    w, a = np.ones((10, 10)), np.random.default_rng(0).random((200, 200)) / 200
    want = w - whole.T @ (whole + 1.0) * np.sum(a @ a @ a)
    rec = Intervals()
    hooks.install(rec)
    step(x, r, w, a)
    for root in step.state.snippets:
        measure.enable(root)
    overlapped = []
    for _run in range(8):
        for events in rec.events.values():
            events.clear()
        if rank != 0:
            time.sleep(0.05)              # late ranks: rank 0's exchange waits
        got = step(x, r, w, a)
        np.testing.assert_allclose(got, want, rtol=1e-12)
        (g0, g1, g_thread), = rec.events["gram"]
        (l0, l1, l_thread), = rec.events["local"]
        overlapped.append(g0 < l1 and l0 < g1 and g_thread != l_thread)
    hooks.remove(rec)
    if rank == 0 and n > 1:
        assert any(overlapped[-3:]), (overlapped, rec.events)


if __name__ == "__main__":
    assert dist.num_localities() > 1, "run with several ranks"
    check_sites_differ()
    check_overlap()
    sys.stdout.write(f"OK {dist.find_here()}\n")   # one write: lines of ranks not joined
    sys.stdout.flush()
