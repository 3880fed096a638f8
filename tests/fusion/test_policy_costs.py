"""What the fusion policy itself costs a program (phylanx/fusion/hot.py).

* A compiled program keeps the ``fusion`` setting it was compiled with: compiled with it
  on and run after it was switched off, its regions still become hot (before, the
  setting read at run time left them cold for ever, each evaluation timed, and a
  program compiled with ``fusion`` on could not be compared with one compiled with it
  off in the same process: ``benchmarks/settings_ab.py``).
* A region given back to NumPy on its timings is tried again (issue 27, item 2): after
  a number of top-level evaluations that doubles on each confirmation, or sooner when
  the unfused cost moves by more than the side table's ``COST_FACTOR``
  (``hot.FusedRegion.give_back``, ``runtime/choices.py``).  Those timings are injected,
  never slept: the side table's clock (``choices.clock``, which every timing of
  ``hot.py`` reads) advances only when a kernel, NumPy's interpretation of the region or
  its original closures run, by the amount the test chose for each.
* After the timed turns the other loop (parallel or serial) is explored only once the
  loop in use has spent ``EXPLORE`` times the other's last known time: however slow
  the other loop is (on a loaded machine the parallel one waits for a descheduled
  thread), exploring costs a bounded share of the time.

Oracle: the undecorated function (NumPy).
"""
from __future__ import annotations

import time

import numpy as np
import pytest

from phylanx import Phylanx, config
from phylanx.fusion import hot
from phylanx.runtime import choices

pytest.importorskip("numba")

RNG = np.random.default_rng(7)
MS = 1_000_000


def chain(x):
    return np.exp(x) * 2.0 - x


def hot_kernels(found):
    return [e for r in found for e in r.kernels.values() if isinstance(e, hot._Kernel)]


def test_a_program_keeps_the_fusion_setting_it_was_compiled_with(eager, installed):
    f = Phylanx(chain)
    f._ensure_compiled()              # compiled with fusion on (the fixture)
    config.set("fusion", False)       # switched off before it ever runs
    x = RNG.normal(size=3000)
    for _ in range(4):
        np.testing.assert_allclose(f(x), chain(x), rtol=1e-12)
    assert hot_kernels(installed), "the region never became hot"
    assert all(r.switched_on for r in installed)


def test_a_program_compiled_with_fusion_off_stays_unfused(eager, installed):
    """Guard (passes on the old code too): switching the setting on later installs
    nothing in a program compiled without it."""
    config.set("fusion", False)
    f = Phylanx(chain)
    f._ensure_compiled()
    config.set("fusion", True)
    x = RNG.normal(size=3000)
    for _ in range(4):
        np.testing.assert_allclose(f(x), chain(x), rtol=1e-12)
    assert not any(type(r).__name__ == "StridedMap" for r in installed)


def test_exploring_a_slow_loop_costs_a_bounded_share(eager, installed, monkeypatch):
    monkeypatch.setattr(hot, "EXPLORE", 4)
    seen = []
    real = hot._Kernel.__call__
    monkeypatch.setattr(hot._Kernel, "__call__",
                        lambda self, *a: (seen.append((self, a)), real(self, *a))[1])
    f = Phylanx(chain)
    x = RNG.normal(size=3000)
    for _ in range(hot.SPEED_RUNS + 4):
        f(x)
    entry, (shape, n, args) = seen[-1]
    assert entry.checked and entry.timed_runs >= hot.SPEED_RUNS
    (found,) = [r for r in installed if entry in r.kernels.values()]

    calls = [0, 0]
    fast, slow_ns = entry.variants[1], 20_000_000     # the serial loop: no threads

    def counted(variant, kernel, pause):
        def run(*a):
            calls[variant] += 1
            if pause:
                time.sleep(pause)
            return kernel(*a)
        return run

    entry.variants = (counted(0, fast, 0.0), counted(1, fast, slow_ns / 1e9))
    entry.current, entry.recent, entry.since_explore = 0, [1_000, slow_ns], 0
    entry.kept_ns = 0                 # the loops alone: no re-check against NumPy here
    start = time.perf_counter_ns()
    for _ in range(40):
        np.testing.assert_allclose(found.steady(entry, shape, n, args, None), chain(x),
                                   rtol=1e-12)
    spent = time.perf_counter_ns() - start
    # at most one call of the slow loop per EXPLORE times its time on the fast one
    assert calls[1] <= 1 + (spent - calls[1] * slow_ns) // (hot.EXPLORE * slow_ns)
    assert calls[0] + calls[1] == 40


def warm_chain(installed):
    """``chain`` compiled, checked and warm on 3000 elements, before its timed turns:
    the function, its operand, its region and the region's one kernel entry."""
    f = Phylanx(chain)
    x = RNG.normal(size=3000)
    for _ in range(4):                    # cold, plan + compile, check, warm-up
        np.testing.assert_allclose(f(x), chain(x), rtol=1e-12)
    (region,) = [r for r in installed if hot_kernels([r])]
    (entry,) = hot_kernels([region])
    assert entry.checked and entry.warm and entry.timed_runs == 0
    return f, x, region, entry


def test_a_kernel_far_slower_than_numpy_ends_its_turns_early(eager, installed,
                                                              monkeypatch):
    """A serial loop slower than NumPy by more than the thread count: neither loop can
    be kept (the parallel one takes at least serial / threads), so the region is given
    back after ``HOPELESS_AFTER`` serial turns and NumPy's, not after all of them."""
    monkeypatch.setattr(hot, "KEEP_SLOWER", False)
    f, x, region, entry = warm_chain(installed)

    slow_calls = [0]

    def slowed(kernel):
        def slow(*args):
            slow_calls[0] += 1
            time.sleep(0.05)              # NumPy needs microseconds for 3000 elements
            return kernel(*args)
        return slow
    entry.variants = tuple(slowed(k) for k in entry.variants)
    for _ in range(hot.SPEED_RUNS):
        np.testing.assert_allclose(f(x), chain(x), rtol=1e-12)
    assert region.state == hot.OFF
    assert slow_calls[0] == hot.HOPELESS_AFTER
    assert entry.timed_runs == hot.SPEED_RUNS


def test_one_descheduled_serial_turn_does_not_give_the_region_back(eager, installed,
                                                                   monkeypatch):
    """The first serial turn slowed once (a loop descheduled on a loaded machine) far
    beyond NumPy's time times the threads: the region is not given back on that one
    time (for good), it takes its next serial turn, whose time is the best."""
    from phylanx.kernels import compiling
    monkeypatch.setattr(hot, "KEEP_SLOWER", False)
    # a verdict needs serial > threads x NumPy: with 1000 "threads" the fast loop is
    # never judged hopeless by a load spike of a few milliseconds, the slowed run is
    monkeypatch.setattr(compiling, "numba_threads", lambda: 1000)
    f, x, region, entry = warm_chain(installed)
    assert hot.TURNS[:3] == (1, 2, 1)     # serial, NumPy, serial

    slowed = [True]

    def once_slowed(kernel):
        def run(*args):
            if slowed[0]:
                slowed[0] = False
                time.sleep(0.2)
            return kernel(*args)
        return run
    entry.variants = tuple(once_slowed(k) for k in entry.variants)
    for _ in range(3):
        np.testing.assert_allclose(f(x), chain(x), rtol=1e-12)
    assert not slowed[0], "the serial turn did not run"
    assert region.state == hot.HOT and entry.timed_runs == 3


# -- a region given back is tried again ----------------------------------------
class Costs:
    """The injected clock and what each path costs on it (ns)."""

    def __init__(self):
        self.now = 0
        self.kernel = 10 * MS          # either loop of the kernel
        self.numpy = 1 * MS            # the region's operations interpreted (the turns)
        self.original = 1 * MS         # the original closures (run while given back)

    def clock(self) -> int:
        return self.now


@pytest.fixture
def costs(eager, installed, monkeypatch):
    made = Costs()
    monkeypatch.setattr(hot, "KEEP_SLOWER", False)
    monkeypatch.setattr(choices, "clock", made.clock)
    real_interpret = hot.interpret

    def interpret(*args):
        made.now += made.numpy
        return real_interpret(*args)
    monkeypatch.setattr(hot, "interpret", interpret)
    return made


def warm_region(installed, costs):
    """``chain`` compiled, checked and warm, before its timed turns; every kernel call,
    and every call of the original closures, advances the clock by its injected cost."""
    f = Phylanx(chain)
    x = RNG.normal(size=3000)
    for _ in range(4):                    # cold, plan + compile, check, warm-up
        np.testing.assert_allclose(f(x), chain(x), rtol=1e-12)
    (region,) = [r for r in installed
                 if any(isinstance(e, hot._Kernel) for e in r.kernels.values())]
    (entry,) = [e for e in region.kernels.values() if isinstance(e, hot._Kernel)]
    assert entry.checked and entry.warm and entry.timed_runs == 0

    def costed(kernel):
        def run(*args):
            costs.now += costs.kernel
            return kernel(*args)
        return run
    entry.variants = tuple(costed(k) for k in entry.variants)
    real_original = region.original

    def original(frame):
        costs.now += costs.original
        return real_original(frame)
    region.original = original
    return f, x, region, entry


def run(f, x, times):
    for _ in range(times):
        np.testing.assert_allclose(f(x), chain(x), rtol=1e-12)


def calls_until(f, x, region, want, limit):
    """Calls of ``f`` (each a top-level evaluation: one tick) until the region's state is
    ``want``; None if it is not after ``limit``."""
    for k in range(1, limit + 1):
        run(f, x, 1)
        if region.state == want:
            return k
    return None


def kept(region, entry):
    return region.state == hot.HOT and entry.timed_runs >= hot.SPEED_RUNS


def test_a_region_given_back_in_a_busy_minute_is_fused_again_once_it_is_over(
        installed, costs):
    f, x, region, entry = warm_region(installed, costs)
    # the busy minute: the kernel looks ten times slower than NumPy
    assert calls_until(f, x, region, hot.OFF, hot.SPEED_RUNS) is not None
    assert region.node.choice.variant is not region.run      # NumPy's closures run

    costs.kernel = MS // 10           # over: the kernel is ten times faster than NumPy
    back = calls_until(f, x, region, hot.HOT, choices.REVISIT_FIRST + 2)
    assert back is not None and back >= choices.REVISIT_FIRST - 1   # not at once
    run(f, x, hot.SPEED_RUNS)         # its timed turns again
    assert kept(region, entry)
    assert region.node.choice.variant == region.run
    calls = entry.calls
    run(f, x, 3)
    assert entry.calls == calls + 3   # the kernel computes the values now


def test_a_give_back_that_a_retry_confirms_is_retried_half_as_often(installed, costs):
    f, x, region, entry = warm_region(installed, costs)
    first = choices.REVISIT_FIRST
    assert calls_until(f, x, region, hot.OFF, hot.SPEED_RUNS) is not None
    gaps = []
    for _ in range(2):                # the kernel stays slow: each retry confirms
        gap = calls_until(f, x, region, hot.HOT, 8 * first)
        assert gap is not None
        gaps.append(gap)
        assert calls_until(f, x, region, hot.OFF, hot.SPEED_RUNS) is not None
    # the first retry comes after the first period, the second after twice as many
    # top-level evaluations (a call or two of the turns in between)
    assert first - 1 <= gaps[0] <= first + 1
    assert 2 * first - 3 <= gaps[1] <= 2 * first + 1


def test_a_cost_that_moves_by_more_than_the_factor_retries_at_once(installed, costs,
                                                                   monkeypatch):
    """No scheduled retry (the side table's ``later`` replaced): the region given back
    is retried because its unfused evaluations became four times dearer (bigger
    operands, a quieter neighbour gone busy ...), after the period's evaluations."""
    monkeypatch.setattr(choices, "later", lambda ticks, action: None)
    f, x, region, entry = warm_region(installed, costs)
    assert calls_until(f, x, region, hot.OFF, hot.SPEED_RUNS) is not None
    costs.kernel = MS // 10
    run(f, x, hot.COST_WINDOW)        # the reference: 1 ms
    assert region.state == hot.OFF
    costs.original = costs.numpy = 4 * MS
    back = calls_until(f, x, region, hot.HOT, choices.REVISIT_FIRST + hot.COST_WINDOW)
    assert back is not None
    run(f, x, hot.SPEED_RUNS)
    assert kept(region, entry)


def test_a_steady_cost_does_not_retry_without_the_schedule(installed, costs,
                                                           monkeypatch):
    """Guard (passes on the old code too): without the scheduled retry, an unfused cost
    that moves by less than the factor leaves the region given back."""
    monkeypatch.setattr(choices, "later", lambda ticks, action: None)
    f, x, region, entry = warm_region(installed, costs)
    assert calls_until(f, x, region, hot.OFF, hot.SPEED_RUNS) is not None
    costs.kernel = MS // 10
    for step in range(4 * choices.REVISIT_FIRST):
        costs.original = MS + (step % 3) * MS // 2      # 1 to 2 ms: within the factor
        run(f, x, 1)
        assert region.state == hot.OFF


# -- a kept kernel is checked again ----------------------------------------------
@pytest.fixture
def counted(costs, monkeypatch):
    """``costs`` counting NumPy's interpretations of the region (``costs.numpy_runs``)."""
    costs.numpy_runs = 0
    wrapped = hot.interpret

    def interpret(*args):
        costs.numpy_runs += 1
        return wrapped(*args)
    monkeypatch.setattr(hot, "interpret", interpret)
    return costs


def kept_fast(installed, costs):
    """``chain`` with its kernel kept: ten times faster than NumPy on the clock."""
    costs.kernel = MS // 10
    f, x, region, entry = warm_region(installed, costs)
    run(f, x, hot.SPEED_RUNS)
    assert kept(region, entry)
    return f, x, region, entry


def test_a_kept_kernel_is_given_back_once_numpy_became_faster(installed, counted):
    """The kernel was faster when its turns were taken; NumPy is ten times faster now
    (the other operands of a busy minute gone ...): the scheduled re-check times NumPy,
    the turns run again and give the region back, not at once but after the period."""
    f, x, region, entry = kept_fast(installed, counted)
    counted.numpy = MS // 100
    calls = calls_until(f, x, region, hot.OFF, choices.REVISIT_FIRST + hot.SPEED_RUNS + 2)
    assert calls is not None and calls >= choices.REVISIT_FIRST - 1
    assert region.node.choice.variant is not region.run      # NumPy's closures run


def test_a_recheck_that_confirms_is_made_half_as_often_and_costs_one_numpy_run(
        installed, counted):
    f, x, region, entry = kept_fast(installed, counted)
    first, at, seen = choices.REVISIT_FIRST, [], counted.numpy_runs
    for call in range(1, 4 * first + 2):
        run(f, x, 1)
        if counted.numpy_runs != seen:
            assert counted.numpy_runs == seen + 1       # one NumPy evaluation, no turns
            seen = counted.numpy_runs
            at.append(call)
        assert kept(region, entry)
    assert len(at) == 2, at
    # the first re-check after the first period, the second twice as many later
    assert first - 1 <= at[0] <= first + 1 and 2 * first - 1 <= at[1] - at[0] <= 2 * first + 1
    calls = entry.calls
    run(f, x, 3)
    assert entry.calls == calls + 3   # the kernel still computes the values


def test_a_kept_kernel_whose_cost_moves_by_more_than_the_factor_is_rechecked_at_once(
        installed, counted, monkeypatch):
    """No scheduled re-check (the side table's ``later`` replaced): the kernel becomes
    twenty times dearer (2 ms against NumPy's 1 ms): its moving average passes twice its
    cost when kept, NumPy is timed, then the turns give the region back."""
    monkeypatch.setattr(choices, "later", lambda ticks, action: None)
    f, x, region, entry = kept_fast(installed, counted)
    run(f, x, 2 * choices.REVISIT_FIRST)
    assert kept(region, entry)        # a steady cost: nothing re-checked
    counted.kernel = 2 * MS
    assert calls_until(f, x, region, hot.OFF, 8 + hot.SPEED_RUNS) is not None
