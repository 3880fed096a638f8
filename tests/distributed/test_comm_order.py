"""Communication in program order while independent work overlaps (issue 28 item 2).

In one process, ``runtime/comm_order.py`` on ``fork_join``: a later thunk computes
while an earlier one communicates, but starts communicating only once the earlier one
ended (unless the earlier one is marked as unable to communicate); an earlier thunk no
worker started is run by the waiting one (no deadlock with a busy pool); a failed
earlier thunk stops the wait (its group is cancelled); a wait that cannot end fails
after its timeout.  Under ``phylanx trace -n 2`` (one launch): ``programs/comm_overlap.py``
checks with the instrumentation hooks that rank 0 computes a local product while its
reduction of a tiled array waits for the late rank (the product's operand after the
reduction's, and before it), and the trace file shows the two intervals overlapping on
two threads of rank 0.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time

import pytest

from phylanx import config
from phylanx.errors import PhylanxError
from phylanx.runtime import comm_order, executors
from phylanx.runtime.forkjoin import fork_join, spawn
from phylanx.runtime.futures import gathered, waited

from .test_mpi import PROGRAMS, ROOT, assert_all_ok, program


@pytest.fixture
def ordering():
    executors.set_threads(2)
    comm_order.enable()
    yield
    comm_order.enable(False)
    executors.set_threads(0)
    config.reset("threads")


def test_a_later_thunk_computes_meanwhile_but_communicates_after_the_earlier_one(ordering):
    log = []
    first_started = threading.Event()

    def first():                       # communicates for a while
        comm_order.my_turn()
        first_started.set()
        time.sleep(0.2)
        log.append(("first ends", time.monotonic()))

    def second():                      # local work, then communication
        first_started.wait(5)
        log.append(("second computes", time.monotonic()))
        comm_order.my_turn()
        log.append(("second communicates", time.monotonic()))

    fork_join([first, second], (True, True))
    order = [what for what, _ in sorted(log, key=lambda e: e[1])]
    assert order == ["second computes", "first ends", "second communicates"]


def test_nobody_waits_for_an_earlier_thunk_that_cannot_communicate(ordering):
    log = []
    started = threading.Event()

    def quiet():                       # local work only
        started.set()
        time.sleep(0.2)
        log.append(("quiet ends", time.monotonic()))

    def second():
        started.wait(5)
        comm_order.my_turn()
        log.append(("second communicates", time.monotonic()))

    fork_join([quiet, second], (True, True), quiet=(True, False))
    order = [what for what, _ in sorted(log, key=lambda e: e[1])]
    assert order == ["second communicates", "quiet ends"]


def test_an_earlier_thunk_no_worker_started_is_run_by_the_waiting_one(ordering):
    executors.set_threads(1)
    release = threading.Event()
    blocker = executors.get_executor().submit(lambda: release.wait(10))   # the one worker
    try:
        ran = []
        fork_join([lambda: ran.append("first"),
                   lambda: (comm_order.my_turn(), ran.append("second"))], (True, False))
        assert ran == ["first", "second"]
    finally:
        release.set()
        blocker.wait(10)


def test_a_failed_earlier_thunk_ends_the_wait_with_its_error(ordering):
    def first():
        time.sleep(0.05)
        raise ValueError("first failed")

    def second():
        comm_order.my_turn()
        raise AssertionError("communicated after a failed predecessor")

    with pytest.raises(ValueError, match="first failed"):
        fork_join([first, second], (True, False))


def test_a_wait_that_cannot_end_fails_after_its_timeout(ordering):
    comm_order.enable(timeout=lambda: 0.1)
    try:
        # the second thunk run alone: its predecessor never runs, so never ends
        thunks, _ = comm_order.ordered([lambda: None, comm_order.my_turn])
        with pytest.raises(PhylanxError, match="program order"):
            thunks[1]()
    finally:
        comm_order.enable(timeout=lambda: 60.0)


@pytest.mark.mpi
def test_phylanx_trace_shows_local_work_overlapping_a_reduction(tmp_path):
    program = PROGRAMS / "comm_overlap.py"
    trace = tmp_path / "trace.json"
    done = subprocess.run([sys.executable, "-m", "phylanx", "trace", "-n", "2", "-o",
                           str(trace), str(program)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert_all_ok(done, 2)
    source = re.search(r'"(define\(f, x, a, .*?)"', program.read_text()).group(1)
    names = {"sum": f"sum(1, {source.index('sum(x)') + 1})",
             "dot": f"dot(1, {source.index('dot(dot') + 1})"}
    data = json.loads(trace.read_text())
    events = data["traceEvents"] if isinstance(data, dict) else data
    spans = {what: [(e["ts"], e["ts"] + e["dur"], e["tid"]) for e in events
                    if e.get("ph") == "X" and e.get("pid") == 0 and e.get("name") == name]
             for what, name in names.items()}
    assert spans["sum"] and spans["dot"], names
    assert any(s0 < d1 and d0 < s1 and st != dt for s0, s1, st in spans["sum"]
               for d0, d1, dt in spans["dot"]), spans


@pytest.mark.mpi
def test_async_bodies_that_communicate_keep_the_program_order():
    done, _ = program(3, "async_order.py", timeout=120, PHYLANX_COLLECTIVE_TIMEOUT="20")
    assert_all_ok(done, 3)


def test_a_thunk_after_a_failed_one_never_communicates_however_late_it_comes(ordering):
    # the failed sibling's end let it through when it reached its turn after that end:
    # on another rank, cancelled sooner, it would not communicate: ranks out of step
    communicated = []

    def first():
        raise ValueError("first failed")

    def second():
        time.sleep(0.2)                # reaches its turn long after the failure
        comm_order.my_turn()
        communicated.append("second")

    with pytest.raises(ValueError, match="first failed"):
        fork_join([first, second], (True, False))
    assert communicated == []


def test_a_later_sibling_a_helper_runs_inside_an_earlier_one_does_not_wait_for_it(ordering):
    # the earlier thunk's thread, waiting for a bare future, helped the pool by running
    # the queued later sibling, whose turn then waited for the thunk beneath it on the
    # same thread: stuck until twice the collective timeout, then a spurious error
    executors.set_threads(1)
    comm_order.enable(timeout=lambda: 1.0)
    ran = []
    try:
        def first():                   # waits for a bare future (a list of async values)
            ran.append(waited(gathered([spawn(lambda: time.sleep(0.1) or 1)]))[0])

        def second():
            comm_order.my_turn()
            ran.append("second")

        def third():                   # keeps the caller busy: the worker takes first
            time.sleep(0.3)

        fork_join([first, second, third], (True, True, False))
        assert ran == [1, "second"]
    finally:
        comm_order.enable(timeout=lambda: 60.0)
