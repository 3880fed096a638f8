"""A thread waiting on a future polls the busy progress sources (an MPI engine's requests)
with the pacing of ``runtime/backoff.py``: spin, then naps.  A wait during which the
polls keep completing things (the phases of a collective chain: header, sizes, data)
must spin again after each completion, as the MPI driver and the progress thread do,
instead of paying a nap per phase once its first millisecond has passed."""
from __future__ import annotations

import threading

from phylanx.runtime import futures, progress


class _Clock:
    """``time`` for futures.py: each look at the clock advances it 0.2 ms, so the spin
    window (1 ms) passes after a few polls whatever the machine's load."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        self.now += 0.0002
        return self.now


class _CountingEvent(threading.Event):
    """The future's completion event; counts the naps taken on it."""

    def __init__(self) -> None:
        super().__init__()
        self.naps = 0

    def wait(self, timeout=None):
        if not self.is_set():
            self.naps += 1
        return super().wait(timeout)


def test_a_waiter_whose_polls_progress_spins_again_after_each(monkeypatch):
    phases = 200        # well past the spin window in clock looks
    future = futures.external()
    state = {"polls": 0, "done": 0}

    def poll() -> bool:
        # every other poll completes a phase (the next request of the chain is posted)
        state["polls"] += 1
        if state["polls"] % 2:
            return False
        state["done"] += 1
        if state["done"] == phases:
            future.set_result(state["done"])
        return True

    def busy() -> bool:
        return not future.done()

    monkeypatch.setattr(futures, "time", _Clock())
    event = _CountingEvent()
    future._event = event
    progress.register(poll, busy)
    try:
        assert future.result(timeout=60.0) == phases
    finally:
        progress.unregister(poll)
    # no stretch of the wait went a spin window without progress: never a nap
    assert event.naps == 0, f"{event.naps} naps in a wait that progressed every 2nd poll"
    assert futures.SPIN_SECONDS < phases * 2 * 0.0002   # (the window did pass meanwhile)
