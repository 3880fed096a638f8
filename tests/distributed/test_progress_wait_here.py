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
