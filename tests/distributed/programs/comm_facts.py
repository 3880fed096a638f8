"""Communication decided from the compiled plan (issue 28 item 2), with several ranks.

The static id of each operation's site (the plan's node: its primitive and source
location) joins the label the ranks check: rank 0 sums ``x`` in one function, the
others in another of the same body, so the operations agree in everything but their
site.  Every rank must raise the mismatch, located at its own line, and the ranks stay
in step (a later collective gives the right answer).  Before the site joined the label
this passed unnoticed.

Then the overlap the plan's order allows, the start/wait split
(``runtime/started.py``): ``g = x.T @ y`` and ``m = np.sum(y * y)`` start their
all_gathers and leave them in flight; ``phylanx trace``'s recorder on rank 0 (the
others late) shows both statements' nodes ending before the local work begins, the
collectives' spans covering it, and the two waits after it, all on one thread (before,
the statements' overlap took a second thread, once the policy had measured them).
Ranks whose started statements differ in site raise the mismatch at the wait, each
located at its own statement, and stay in step; a statement failing between a start
and its join raises its own error, and the started collective still ends.

(That the ``comm`` facts are the communication the run does: ``layout_facts.py``.)
Prints 'OK <rank>' at the end.
"""
import sys
import time

import numpy as np

from phylanx import Phylanx
from phylanx import distributed as dist
from phylanx.distributed.errors import PhylanxCollectiveMismatchError
from phylanx.errors import PhylanxValueError


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
def started_here(x):
    t = np.sum(x)           # started: here
    u = np.ones(3) * 2.0
    return t + u


@Phylanx
def started_there(x):
    t = np.sum(x)           # started: there
    u = np.ones(3) * 2.0
    return t + u


def check_started_sites_differ():
    """A collective started by a statement and waited for at its join: the ranks'
    disagreement is raised at the wait, located at each rank's own statement."""
    x = dist.tiled(np.arange(12.0).reshape(4, 3), "row", name="started_sited")
    here = dist.find_here() == 0
    fn = started_here if here else started_there
    try:
        fn(x)
    except PhylanxCollectiveMismatchError as error:
        line = _line_of("# started: here" if here else "# started: there")
        assert error.loc is not None and error.loc.line == line, (error, line)
    else:
        raise AssertionError("ranks at different sites were not told apart")
    np.testing.assert_allclose(started_here(x), 66.0 + 2.0 * np.ones(3))   # in step


@Phylanx
def started_then_fails(x, a):
    t = np.sum(x, axis=0)
    u = a @ np.ones(4)      # fails: between the start and the join
    return t + u


def check_started_then_failed():
    """A statement between a start and its join fails on every rank: the error is
    raised, located at it, and the started collective still ends (the ranks in step)."""
    x = dist.tiled(np.arange(12.0).reshape(4, 3), "row", name="started_failed")
    try:
        started_then_fails(x, np.ones((3, 3)))
    except PhylanxValueError as error:
        assert error.loc is not None and error.loc.line == _line_of("# fails: between "
                                                                    "the start and the join")
    else:
        raise AssertionError("the shape error was not raised")
    np.testing.assert_allclose(started_then_fails(x, np.ones((3, 4))),
                               np.arange(12.0).reshape(4, 3).sum(axis=0) + 4.0)


@Phylanx
def two_started(x, y, a):
    g = x.T @ y     # first started
    m = np.sum(y * y)     # second started
    s = np.sum(a @ a @ a)     # local work
    return g * s + m


def check_started_trace():
    """The timeline (``phylanx trace``) of rank 0, the other ranks late: both
    collectives start (their statements' nodes end) before the local work begins, are
    in flight while it runs, and are waited for after it ends, all on one thread."""
    from phylanx.instrumentation.timeline import NODE, SPAN, Recorder
    rank = dist.find_here()
    whole = np.arange(600.0).reshape(200, 3) / 600
    x = dist.tiled(whole, "row", name="tx")
    y = dist.tiled(whole[:, 0] + 1.0, "row", name="ty")
    a = np.random.default_rng(1).random((150, 150)) / 150
    want = whole.T @ (whole[:, 0] + 1.0) * np.sum(a @ a @ a) + np.sum((whole[:, 0] + 1) ** 2)
    np.testing.assert_allclose(two_started(x, y, a), want, rtol=1e-12)    # compiled
    if rank != 0:
        time.sleep(0.05)              # late ranks: rank 0's collectives wait for them
        np.testing.assert_allclose(two_started(x, y, a), want, rtol=1e-12)
        return
    recorder = Recorder(threshold_us=0).start()
    try:
        np.testing.assert_allclose(two_started(x, y, a), want, rtol=1e-12)
    finally:
        recorder.stop()
    lines = {_line_of(f"# {what}"): what for what in ("first started", "second started",
                                                      "local work")}
    nodes = {}
    for event in recorder.events:
        if event[0] == NODE and event[1].loc is not None and event[1].loc.line in lines \
                and event[1].parent.primitive in ("define-variable", "store"):
            nodes[lines[event[1].loc.line]] = (event[3], event[3] + event[4], event[2])
    spans = [e for e in recorder.events if e[0] == SPAN]
    waits = [(t0, t0 + d, tid) for _, name, cat, tid, t0, d, _ in spans if cat == "wait"]
    flights = [(t0, t0 + d) for _, name, cat, tid, t0, d, _ in spans if cat == "collective"]
    assert set(nodes) == set(lines.values()) and len(waits) == 2, (nodes, waits)
    l0, l1, thread = nodes["local work"]
    for what in ("first started", "second started"):
        assert nodes[what][1] <= l0 and nodes[what][2] == thread, (what, nodes)
    assert all(w0 >= l1 and tid == thread for w0, _, tid in waits), (waits, l1)
    assert sum(1 for c0, c1 in flights if c0 <= l0 and c1 >= l1) >= 2, (flights, l0, l1)


if __name__ == "__main__":
    assert dist.num_localities() > 1, "run with several ranks"
    check_sites_differ()
    check_started_sites_differ()
    check_started_then_failed()
    check_started_trace()
    sys.stdout.write(f"OK {dist.find_here()}\n")   # one write: lines of ranks not joined
    sys.stdout.flush()
