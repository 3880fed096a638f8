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
    engine = progress.ProgressEngine()
    yield engine
    engine.stop()


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
