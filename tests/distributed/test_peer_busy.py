"""A peer's long local step (``ProgressEngine.peer_busy``: a kernel's compile on another
rank, told by an active message) in one process with a stand-in request that never
completes: an operation waiting meanwhile is not late until ``timeout`` past the step's
bound, or ``timeout`` past its end; a step never ended is late at its bound (every wait
has a way out).  The two-rank case is ``programs/fused_tiles.py`` (a compile held past
``collective_timeout``)."""
from __future__ import annotations

import time

import pytest

from phylanx.distributed import progress


class Never:
    """A request that never completes."""

    def Test(self) -> bool:  # noqa: N802 - mpi4py's spelling
        return False


def _operation():
    yield Never()
    return "done"


@pytest.fixture
def engine():
    engine = progress.ProgressEngine(on_stuck=lambda error: None)
    yield engine
    engine.stop()


def _failed_after(engine, timeout: float, busy) -> float:
    start = time.monotonic()
    future = engine.start(_operation(), timeout, lambda: TimeoutError("late"))
    busy(engine)
    with pytest.raises(TimeoutError, match="late"):
        future.result(10.0)
    return time.monotonic() - start


def test_an_operation_waits_for_a_busy_peer_then_times_out_from_its_end(engine):
    def busy_then_done(engine):
        engine.peer_busy(1, 5.0, 0.2)
        time.sleep(0.4)                  # past the operation's own 0.2 s
        engine.peer_busy(1, 0.0, 0.2)
    took = _failed_after(engine, 0.2, busy_then_done)
    assert 0.55 <= took < 2.0, took      # 0.4 s busy, then 0.2 s: not the 5.2 s bound


def test_a_peer_that_never_ends_its_step_is_late_at_the_bound(engine):
    took = _failed_after(engine, 0.1, lambda engine: engine.peer_busy(1, 0.3, 0.1))
    assert 0.35 <= took < 2.0, took


def test_without_a_busy_peer_the_timeout_is_the_operations_own(engine):
    took = _failed_after(engine, 0.2, lambda engine: engine.peer_busy(1, 0.0, 0.2))
    assert took < 0.5, took
