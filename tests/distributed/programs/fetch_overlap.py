"""``dot_d`` and ``conv1d_d`` compute on their own tiles while the remote ones travel
(issue 28 item 5), seen in the timeline the runtime records (``phylanx trace``).

Runs under ``mpiexec -n 2`` or more.  Every remote read (``dist.get_remote``) is
delivered ``DELAY`` seconds after it completed, as over a slow network; then on every
rank that read something the span ``local work`` (``overlapped_fetch.local_work``)
must start after the first read was asked for and before the first one was
delivered, and the waits for remote pieces come after it.  Checked for ``dot_d`` of
row x column tiles (the benchmark's), of column x column tiles (the lhs fetched), of
a split contraction (partial sums), and ``conv1d_d`` tiled by length (halos); every
result against NumPy / the single-process ``conv1d``.  ``conv1d_d`` tiled by batch
needs no halo: no remote read and no barrier.  Prints 'OK <rank>' at the end.
"""
import threading
import time
import warnings

import numpy as np

import phylanx
from phylanx import distributed as dist
from phylanx.instrumentation.timeline import SPAN, Recorder
from phylanx.primitives.keras_support.conv import conv1d
from phylanx.runtime.futures import external

warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)
r, p = dist.find_here(), dist.num_localities()
assert p >= 2, "run with mpiexec -n 2 (or more)"
DELAY = 0.3     # seconds every remote read is held back after it completed

reads: list[list] = []      # [asked ns, delivered ns or None] per remote read
real_get_remote = dist.get_remote


def slow_get_remote(*args, **kw):
    entry = [time.perf_counter_ns(), None]
    reads.append(entry)
    delivered = external()

    def deliver(done) -> None:
        entry[1] = time.perf_counter_ns()
        if done._error is None:
            delivered.set_result(done.result())
        else:
            delivered.set_exception(done._error)
    real_get_remote(*args, **kw).add_done_callback(
        lambda done: threading.Timer(DELAY, deliver, (done,)).start())
    return delivered


dist.get_remote = slow_get_remote


def recorded(code, *args):
    """``code``'s value on ``args``, and the spans recorded meanwhile on this rank."""
    reads.clear()
    recorder = Recorder(rank=r, size=p).start()
    try:
        value = phylanx.evaluate(code, *args)
    finally:
        recorder.stop()
    return value, [e for e in recorder.events if e[0] == SPAN]


def assert_overlapped(spans, what):
    if not reads:
        return      # this rank read nothing remote (it owns all it needs)
    asked = min(a for a, _ in reads)
    delivered = min(d for _, d in reads)
    work = [(e[4], e[4] + e[5]) for e in spans if e[2] == "overlap" and e[1] == "local work"]
    waits = [e[4] for e in spans if e[2] == "overlap" and e[1] == "wait for remote pieces"]
    assert work, f"{what}: no local work while the remote pieces travelled on rank {r}"
    start, end = work[0]
    assert asked <= start < delivered, \
        (f"{what}: rank {r}'s local work started {(start - asked) / 1e6:.1f} ms after the "
         f"first read was asked, its piece came {(delivered - asked) / 1e6:.1f} ms after")
    assert waits and min(waits) >= end, f"{what}: waited for a remote piece before the work"


def tiled_result(value):
    return value.gather() if isinstance(value, dist.DistributedArray) else value


rng = np.random.default_rng(11)
m, k, n = 6 * p, 5 * p, 4 * p
A, B = rng.normal(size=(m, k)), rng.normal(size=(k, n))
products = {
    "row x column": (dist.tiled(A, "row", name="ov_a"), dist.tiled(B, "column", name="ov_b")),
    "column x column": (dist.tiled(A, "column", name="ov_ac"),
                        dist.tiled(B, "column", name="ov_bc")),
    "contraction": (dist.tiled(A, "column", name="ov_ak"), dist.tiled(B, "row", name="ov_bk")),
}
for what, (a, b) in products.items():
    got, spans = recorded("lambda(a, b, dot_d(a, b))", a, b)
    np.testing.assert_allclose(tiled_result(got), A @ B, rtol=1e-12, err_msg=what)
    assert_overlapped(spans, f"dot_d {what}")

x, kernel = rng.normal(size=(3, 12 * p, 2)), rng.normal(size=(3, 2, 4))
got, spans = recorded('lambda(x, k, conv1d_d(x, k, "same"))', dist.tiled(x, "row", name="ov_x"),
                      kernel)
np.testing.assert_allclose(got.gather(), conv1d(x, kernel, "same"), rtol=1e-12)
assert_overlapped(spans, "conv1d_d tiled by length")

pages = rng.normal(size=(2 * p, 9, 2))
got, spans = recorded('lambda(x, k, conv1d_d(x, k, "same"))',
                      dist.tiled(pages, "page", name="ov_pages"), kernel)
np.testing.assert_allclose(got.gather(), conv1d(pages, kernel, "same"), rtol=1e-12)
sent = [e[1] for e in spans if e[2] in ("remote", "collective") and not e[1].startswith("end")]
assert not reads and not sent, f"conv1d_d tiled by batch sent {sent} on rank {r}"

dist.get_remote = real_get_remote
dist.barrier().result()
print(f"OK {r}")
