"""Local work runs while a collective is in flight (issue 28 item 2), for any number of
ranks.

``f(x, a) = sum(x) + sum(dot(dot(a, a), a))``: the first operand is the global sum of a
tiled ``x`` (partial sums exchanged between the ranks), the second a local product of
the plain ``a``; ``g`` is the same with the operands the other way round (the local
work first in program order: the exchange need not wait for it, since it provably
cannot communicate, ``distributed/local_work.py``).  Every rank but 0 arrives late, so
rank 0's exchange waits for them: meanwhile, once the policy has measured both
operands as expensive, rank 0 computes the product on another thread.  The
instrumentation hooks give every node's start and end: on rank 0 (with several ranks)
the reduction's interval and the product's overlap, on two threads.  The answer is
NumPy's every time.  Prints 'OK <rank>' at the end.
"""
import sys
import time

import numpy as np

from phylanx import config
from phylanx import distributed as dist
from phylanx import execution_tree as et
from phylanx.runtime import executors, hooks, measure
from phylanx.runtime import policy as policy_module

r, n = dist.find_here(), dist.num_localities()
LATE = 0.05                      # seconds the other ranks arrive after rank 0


class Intervals:
    """(start, end, thread) of the reduction of x and of the local product, per run."""

    def __init__(self):
        self.events = {"sum_x": [], "dot": []}

    def on_eval(self, node, start_ns, end_ns, thread_id):
        if node.primitive == "sum" and node.children[0].instance == "x":
            self.events["sum_x"].append((start_ns, end_ns, thread_id))
        elif node.primitive == "dot" and node.parent.primitive == "sum":
            self.events["dot"].append((start_ns, end_ns, thread_id))


policy_module.KEEP_BLAS_PRODUCTS_INLINE = False   # the product stands for any local work
executors.set_threads(2)
config.set("eval_count_threshold", 2)
config.set("exec_time_upper_threshold", 100_000)
config.set("exec_time_lower_threshold", 50_000)

SOURCES = {"f": "define(f, x, a, sum(x) + sum(dot(dot(a, a), a)))",
           "g": "define(g, x, a, sum(dot(dot(a, a), a)) + sum(x))"}
state = et.compiler_state("comm_overlap")
functions = {}
for name, source in SOURCES.items():
    et.compile(state, f"<{name}>", name, source)
    functions[name] = et.code_for(state, f"<{name}>", name)
for root in state.snippets:
    measure.enable(root)

whole = np.arange(4000.0).reshape(400, 10)
x = dist.tiled(whole, "row", name="x")
a = np.random.default_rng(0).random((300, 300)) / 300
want = whole.sum() + (a @ a @ a).sum()
rec = Intervals()
hooks.install(rec)
for name, fn in functions.items():
    overlapped = []
    for _run in range(8):
        for events in rec.events.values():
            events.clear()
        if r != 0:
            time.sleep(LATE)
        got = et.invoke(fn, (x, a), {})
        np.testing.assert_allclose(got, want, rtol=1e-12)
        (s0, s1, s_thread), = rec.events["sum_x"]
        (d0, d1, d_thread), = rec.events["dot"]
        overlapped.append(s0 < d1 and d0 < s1 and s_thread != d_thread)
    if r == 0 and n > 1:
        # measured, decided, then concurrent: the last runs overlap
        assert any(overlapped[-3:]), (name, overlapped, rec.events)
hooks.remove(rec)
sys.stdout.write(f"OK {r}\n")     # one write: the lines of the ranks are not joined
sys.stdout.flush()
