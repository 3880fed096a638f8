"""Pacing of a thread that polls for something only polling completes (an MPI request).

MPICH advances a non-blocking request only while somebody tests it, so a waiter
cannot simply block; but a waiter that tests in a loop for the whole wait takes a core
that another rank needs when ranks outnumber cores (``mpiexec -n 3`` on 2 cores: the
waiting rank spun while the rank it waited for computed on the same core).  So a
waiter *spins* (tests without sleeping, giving up the core now and then) for a short
window, which covers a collective whose ranks are all there without adding a wake-up
to its latency, then *naps* between tests, each nap twice the last, up to a cap: a
wait of seconds costs a few hundred wake-ups per second instead of a core.  The nap
is taken by the caller, usually on an event its completion sets, so that a completion
by another thread ends it at once.
"""
from __future__ import annotations

import os
import time

#: how long a waiter keeps testing before it naps (seconds): a small collective whose
#: ranks are all there completes within it (2 ranks, 8 bytes: 20-100 us)
SPIN_SECONDS = 0.001
#: the first nap after the spin, doubled at each fruitless test up to MAX_NAP_SECONDS
FIRST_NAP_SECONDS = 0.00005
#: the longest nap: what a request completed meanwhile waits at most for its test
MAX_NAP_SECONDS = 0.001

#: gives up the GIL and the core without sleeping: ``time.sleep(0)`` is a nanosleep
#: that Linux's 50 us timer slack turns into ~60-130 us under load (measured)
yield_core = getattr(os, "sched_yield", lambda: time.sleep(0))


class Backoff:
    """The pauses of one wait: :meth:`pause` says how long to nap before the next test
    (0.0 during the spin window: test again at once).  :meth:`reset` once the wait made
    progress, so that the next stretch of waiting spins first again."""

    __slots__ = ("spin", "max_nap", "_spin_until", "_nap")

    def __init__(self, spin: float = SPIN_SECONDS, max_nap: float = MAX_NAP_SECONDS) -> None:
        self.spin = spin
        self.max_nap = max_nap
        self._spin_until: float | None = None
        self._nap = 0.0

    def reset(self) -> None:
        self._spin_until = None
        self._nap = 0.0

    def pause(self, now: float | None = None) -> float:
        """Seconds to nap before testing again: 0.0 within the spin window, then naps
        doubling from FIRST_NAP_SECONDS up to ``max_nap``."""
        if now is None:
            now = time.monotonic()
        if self._spin_until is None:
            self._spin_until = now + self.spin
        if now < self._spin_until:
            return 0.0
        self._nap = min(self.max_nap, self._nap * 2 or FIRST_NAP_SECONDS)
        return self._nap
