"""The progress engine's own-``Wait`` path (``progress.Long(arrived=True)``), in one
process with stand-in requests: the thread waiting for the future takes a request every
rank has started out of the engine and calls ``Wait`` on it itself (no hand-off to the
long-wait thread); a request that is not known to be started everywhere never is."""
from __future__ import annotations

import threading

import pytest

from phylanx.distributed import progress


class StandIn:
    """A request that completes only in ``Wait`` (``Test`` says not yet)."""

    def __init__(self) -> None:
        self.waited_by: list[int] = []
        self.tests = 0

    def Test(self) -> bool:  # noqa: N802 - mpi4py's spelling
        self.tests += 1
        return False

    def Wait(self) -> None:  # noqa: N802
        self.waited_by.append(threading.get_ident())


@pytest.fixture
def engine():
    # (an engine lets a waiter MPI_Wait only if it can end the job when the wait is
    # stuck past its deadline: ``on_stuck``)
    stuck: list[BaseException] = []
    engine = progress.ProgressEngine(on_stuck=stuck.append)
    yield engine
    engine.stop()
    assert not stuck


def _operation(request, arrived):
    yield progress.Long(request, arrived=arrived)
    return "done"


def test_a_request_every_rank_started_is_waited_by_its_waiter(engine):
    request = StandIn()
    future = engine.start(_operation(request, True), 10.0, lambda: TimeoutError("late"))
    assert future.result(10.0) == "done"
    assert request.waited_by == [threading.get_ident()]
    assert engine._long_thread is None          # nothing handed over
    assert not engine.busy()                     # and nothing left in the engine


def test_a_request_not_known_started_everywhere_is_not_waited_here(engine, monkeypatch):
    # (the long-wait thread is busy: it is tested as usual, and times out by its deadline)
    monkeypatch.setattr(engine, "_long_busy", True)
    request = StandIn()
    future = engine.start(_operation(request, False), 0.3, lambda: TimeoutError("late"))
    with pytest.raises(TimeoutError, match="late"):
        future.result(10.0)
    assert request.waited_by == [] and request.tests > 0


class Stuck(StandIn):
    """A request whose ``Wait`` returns only when released (a peer that stopped
    progressing after every rank started the request)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def Wait(self) -> None:  # noqa: N802
        self.waited_by.append(threading.get_ident())
        self.release.wait(30)


def test_a_waiter_stuck_in_wait_past_its_deadline_ends_the_job_with_the_located_error():
    # MPI_Wait cannot be interrupted: when the operation passes its deadline while its
    # waiter is inside it, the engine hands the error to ``on_stuck`` (which reports it
    # and ends the job, ``mpi_locality``) instead of leaving the waiter there for good
    stuck: list[BaseException] = []
    reported = threading.Event()
    engine = progress.ProgressEngine(on_stuck=lambda error: (stuck.append(error),
                                                            reported.set()))
    request = Stuck()
    try:
        future = engine.start(_operation(request, True), 0.3, lambda: TimeoutError("late"))
        waiter = threading.Thread(target=lambda: future.exception(20.0), daemon=True)
        waiter.start()
        assert reported.wait(10.0), "the waiter stays in Wait past the deadline unreported"
        assert [str(e) for e in stuck] == ["late"] and request.waited_by
    finally:
        request.release.set()
        engine.stop()
    waiter.join(10.0)
    assert isinstance(future.exception(0), TimeoutError)


class Once(StandIn):
    """A request complete at its first test."""

    def Test(self) -> bool:  # noqa: N802
        self.tests += 1
        return True


def _tested(request):
    yield request       # (tested by the polls, not a Long)
    return "done"


def test_a_driver_stuck_in_wait_inside_a_done_callback_still_ends_the_job(monkeypatch):
    # the driving waiter's poll completes an operation whose done-callback waits for an
    # ``async`` collective's value (a forwarded future: waited for through its source,
    # with ``Wait``) while other requests are in flight (``busy``: stand-ins cannot be
    # tested together).  The driver is then inside ``Wait`` with the driver's lock held:
    # the progress thread, standing aside for drivers, must still look at the deadlines,
    # or nothing ever ends that wait.  (A deadline of 1 s: one passed before the Wait
    # began is no longer in it to report)
    from phylanx.runtime.futures import Forward, forwarded

    stuck: list[BaseException] = []
    reported = threading.Event()
    engine = progress.ProgressEngine(on_stuck=lambda error: (stuck.append(error),
                                                            reported.set()))
    monkeypatch.setattr(engine, "busy", lambda: True)
    request, values = Stuck(), []

    def then_wait(_):
        values.append(forwarded(Forward(engine.start(
            _operation(request, True), 1.0, lambda: TimeoutError("late")))))
        values[0].exception(20.0)

    first = engine.track(30.0, lambda: TimeoutError("first"))
    first.future.add_done_callback(then_wait)

    def drive():    # what a waiter driving the engine does (``_drive``), in short
        with engine._driver:
            engine._driver_owner = threading.get_ident()
            engine.run(first, _tested(Once()))
            engine.poll()       # (completes ``first``: its done-callback waits)

    waiter = threading.Thread(target=drive, daemon=True)
    try:
        waiter.start()
        assert reported.wait(10.0), "the driver stays in Wait past the deadline unreported"
        assert [str(e) for e in stuck] == ["late"] and request.waited_by == [waiter.ident]
    finally:
        request.release.set()
        engine.stop()
    waiter.join(10.0)
    assert isinstance(values[0].exception(0), TimeoutError)
