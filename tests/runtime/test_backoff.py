"""The pacing of a thread polling MPI (``runtime/backoff.py``): it tests without napping
for its spin window, then naps, each nap twice the last up to the cap; a reset (the wait
made progress) starts with the spin again."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from phylanx.runtime.backoff import FIRST_NAP_SECONDS, Backoff


@given(spin=st.floats(1e-5, 0.01), cap=st.floats(1e-4, 0.01),
       steps=st.lists(st.floats(0.0, 0.002), min_size=1, max_size=60))
def test_spin_then_doubling_naps_up_to_the_cap(spin, cap, steps):
    pacing = Backoff(spin, cap)
    now = 100.0
    naps = []
    for step in steps:
        nap = pacing.pause(now)
        if now < 100.0 + spin:
            assert nap == 0.0           # within the window: test again at once
        else:
            naps.append(nap)
        now += step + nap
    assert all(0 < nap <= cap for nap in naps)
    # the first nap is the shortest; each is twice the last until the cap
    expected = [min(cap, FIRST_NAP_SECONDS * 2 ** i) for i in range(len(naps))]
    assert naps == expected
    pacing.reset()
    assert pacing.pause(now) == 0.0     # after progress: spin first again
