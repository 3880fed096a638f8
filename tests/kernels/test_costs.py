"""What compiling a kernel costs, measured (phylanx/kernels/costs.py).

The threshold of every compiled kernel (the NumPy time after which it is compiled)
follows the compiles and loads measured on this machine, kept in the cache directory
for the next process; numba's set-up is started in the background the first time a
kernel is considered, so a kernel in numba's disk cache is due after about its load,
not after the second a fresh process's first kernel used to be charged.  Fake clocks and
a fake launcher: nothing here depends on how busy the machine is.
"""
from __future__ import annotations

import pytest

from phylanx import config
from phylanx.kernels import compiling, costs

SOURCE = "# a kernel's source\n"
MS = 1_000_000


class FakeClock:
    def __init__(self):
        self.now = 0

    def __call__(self):
        return self.now


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """A new process's view of costs: an empty cache directory, compiles in the
    background (the launcher only records them), numba not set up, nothing cached."""
    config.set("fusion_cache_dir", str(tmp_path))
    config.set("fusion_compile_cost_ms", "auto")
    config.set("fusion_background", True)
    costs.forget()
    state = {"launched": [], "ready": False, "cached": False}
    monkeypatch.setattr(compiling, "launch",
                        lambda work, name: state["launched"].append((name, work)))
    monkeypatch.setattr(compiling, "initialized", lambda: state["ready"])
    monkeypatch.setattr(compiling, "available", lambda: True)
    monkeypatch.setattr(compiling, "is_cached", lambda source: state["cached"])
    monkeypatch.setattr(costs, "clock", FakeClock())
    yield state
    for name in ("fusion_cache_dir", "fusion_compile_cost_ms", "fusion_background"):
        config.reset(name)
    costs.forget()


def test_a_cached_kernel_is_due_after_its_measured_load(fresh):
    fresh["cached"] = fresh["ready"] = True
    before = costs.expected_ns(SOURCE)
    assert before == costs.PRIOR_NS["load"]
    for _ in range(6):
        costs.compiled("# another kernel\n", True, True, 20 * MS)
    after = costs.expected_ns(SOURCE)
    assert 20 * MS <= after < 25 * MS < before


def test_an_uncached_kernel_is_due_after_its_measured_compile(fresh):
    fresh["ready"] = True
    assert costs.expected_ns(SOURCE) == costs.PRIOR_NS["compile"]
    for _ in range(6):
        costs.compiled("# another kernel\n", False, True, 3000 * MS)
    assert 2900 * MS < costs.expected_ns(SOURCE) <= 3000 * MS


def test_the_estimates_are_kept_for_the_next_process(fresh):
    costs.compiled("# a\n", False, True, 400 * MS)
    costs.compiled("# b\n", True, True, 10 * MS)
    kept = costs.estimates()
    assert kept != costs.PRIOR_NS
    costs.forget()                        # a new process, the same cache directory
    assert costs.estimates() == kept


def test_a_compile_that_set_numba_up_is_not_a_kernels_cost(fresh):
    costs.compiled("# a\n", False, False, 5000 * MS)
    costs.compiled("# b\n", True, False, 5000 * MS)
    assert costs.estimates() == costs.PRIOR_NS


def test_numba_is_set_up_in_the_background_once_a_kernel_spent_a_share_of_it(fresh):
    share = int(costs.WARM_FRACTION * costs.PRIOR_NS["setup"])
    assert not costs.due(SOURCE, share - 1)
    assert fresh["launched"] == []        # a program that stops now never pays it
    assert not costs.due(SOURCE, share)
    costs.due(SOURCE, share + 1)
    costs.due("# another kernel\n", share)
    assert [name for name, _ in fresh["launched"]] == ["phylanx-numba-set-up"]
    # the set-up is under way: not charged to the kernel
    assert costs.expected_ns(SOURCE) == costs.PRIOR_NS["compile"]
    assert costs.due(SOURCE, costs.PRIOR_NS["compile"])


def test_without_a_background_thread_the_first_kernel_pays_the_set_up(fresh):
    config.set("fusion_background", False)
    assert costs.expected_ns(SOURCE) == costs.PRIOR_NS["compile"] + costs.PRIOR_NS["setup"]
    assert not costs.due(SOURCE, costs.PRIOR_NS["compile"])
    assert fresh["launched"] == []
    fresh["ready"] = True
    assert costs.expected_ns(SOURCE) == costs.PRIOR_NS["compile"]


def test_the_set_up_is_measured(fresh, monkeypatch):
    clock = costs.clock

    def compile_kernel(plan, samples, serial=True):
        assert plan.source == costs.WARM_SOURCE
        clock.now += 2000 * MS            # numba's import and first kernel
        return None, None
    monkeypatch.setattr(compiling, "compile_kernel", compile_kernel)
    costs.warm_up()
    (_, work), = fresh["launched"]
    work()
    assert costs.PRIOR_NS["setup"] < costs.estimates()["setup"] < 2000 * MS


def test_a_failed_set_up_measures_nothing(fresh, monkeypatch):
    def compile_kernel(plan, samples, serial=True):
        raise RuntimeError("no LLVM here")
    monkeypatch.setattr(compiling, "compile_kernel", compile_kernel)
    costs.warm_up()
    (_, work), = fresh["launched"]
    work()
    assert costs.estimates() == costs.PRIOR_NS


def test_a_number_of_milliseconds_keeps_its_meaning(fresh):
    config.set("fusion_compile_cost_ms", 0.0)
    assert costs.expected_ns(SOURCE) == 0 and costs.due(SOURCE, 0)
    config.set("fusion_compile_cost_ms", 500.0)
    assert costs.expected_ns(SOURCE) == 500 * MS
    assert not costs.due(SOURCE, 500 * MS - 1) and costs.due(SOURCE, 500 * MS)
    costs.forget()
    fresh["cached"] = fresh["ready"] = True
    assert costs.expected_ns(SOURCE) == 50 * MS
    assert fresh["launched"] == []        # a fixed cost: nothing measured, nothing started


def test_a_corrupt_costs_file_gives_the_priors(fresh, tmp_path):
    (tmp_path / costs.FILE).write_text("{not json")
    costs.forget()
    assert costs.estimates() == costs.PRIOR_NS
    (tmp_path / costs.FILE).write_text('{"compile": -1, "load": "x", "setup": 5}')
    costs.forget()
    assert costs.estimates() == {**costs.PRIOR_NS, "setup": 5}


def test_a_fixed_kernel_compiles_once_numpy_spent_the_measured_cost(fresh, monkeypatch):
    pytest.importorskip("numba")
    from phylanx.kernels import fixed
    monkeypatch.setattr(fixed, "launch", lambda work, name: fresh["launched"].append(name))
    fresh["cached"] = fresh["ready"] = True
    for _ in range(6):
        costs.compiled("# another kernel\n", True, True, 5 * MS)
    due = costs.expected_ns(fixed.ADD_ROWS.source)
    kernel = fixed.FixedKernel("add rows", fixed.ADD_ROWS)
    kernel.spent("key", due - 1)
    assert kernel.get("key", lambda: ()) is None and kernel.entries["key"] == due - 1
    kernel.spent("key", 1)
    kernel.get("key", lambda: ())
    assert kernel.entries["key"] == "pending" and "phylanx-fixed-compile" in fresh["launched"]
    assert due < costs.PRIOR_NS["load"]   # far sooner than the prior
