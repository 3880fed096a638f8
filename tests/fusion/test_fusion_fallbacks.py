"""Fused element-wise chains given bad input or a failing compiler (a warning, then
NumPy's result, never a wrong one), switched off, or under the default policy
(thresholds, giving a cold or slower region back)."""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import config, fusion
from phylanx.fusion import hot
from phylanx.kernels import compiling
from phylanx.primitives.rules import FUSION

from .fusing import assert_like, compiled, data, evaluate, kernels_used

pytest.importorskip("numba")


# -- bad input and fallbacks ----------------------------------------------------------

def test_compile_failure_warns_once_and_runs_numpy(eager, monkeypatch):
    def broken(plan, samples):
        raise RuntimeError("no LLVM today\nsecond line")
    monkeypatch.setattr(compiling, "compile_kernel", broken)
    x = data((500,), "float64")
    with pytest.warns(hot.FusionWarning, match=r"could not compile .*no LLVM today\); "
                                                r"running NumPy") as caught:
        results, regions = evaluate("lambda(x, exp(x) * 2 - x)", [(x,)] * 6)
    assert len(caught) == 1 and "\n" not in str(caught[0].message)
    for got in results:
        assert_like(got, np.exp(x) * 2 - x)
    assert kernels_used(regions) == 0


def test_disagreeing_kernel_is_dropped(eager, monkeypatch):
    wrong = FUSION.get("__sub").__class__("({0} + {1})", arity=(2, None), fold=True)
    monkeypatch.setitem(FUSION._rules, "__sub", wrong)
    x, y = data((400,), "float64"), data((400,), "float64")
    with pytest.warns(hot.FusionWarning, match="disagrees with NumPy"):
        results, regions = evaluate("lambda(x, y, x * 2 - y)", [(x, y)] * 5)
    for got in results:
        assert_like(got, x * 2 - y)
    assert regions and all(e == "rejected" for e in regions[0].kernels.values())


def test_without_numba_nothing_is_installed(eager, monkeypatch):
    monkeypatch.setattr(fusion, "_available", [False])
    x = data((500,), "float64")
    results, regions = evaluate("lambda(x, exp(x) * 2 - x)", [(x,)] * 5)
    assert regions == []
    assert_like(results[-1], np.exp(x) * 2 - x)


def test_switched_off(eager):
    config.set("fusion", False)
    results, regions = evaluate("lambda(x, exp(x) * 2 - x)", [(np.ones(10),)] * 3)
    assert regions == [] and results[-1][0] == np.exp(1) * 2 - 1


def test_errors_inside_a_region_stay_located(eager):
    state, _ = compiled("lambda(x, exp(x) * 2 - x)")
    with pytest.raises(phylanx.PhylanxError) as info:
        phylanx.execution_tree.eval(state, "lambda(x, exp(x) * 2 - x)", "text")
    assert info.value.loc is not None


# -- policy ------------------------------------------------------------------------------

@pytest.fixture
def policy(cache):
    config.set("fusion", True)       # off by default (docs/performance.md)
    config.set("fusion_background", False)
    config.set("fusion_cache_dir", cache)
    yield
    for name in ("fusion", "fusion_background", "fusion_cache_dir", "fusion_min_time_us",
                 "fusion_compile_cost_ms"):
        config.reset(name)


def test_cold_regions_are_not_compiled(policy, monkeypatch):
    compiled_plans = []
    monkeypatch.setattr(compiling, "compile_kernel",
                        lambda plan, samples: compiled_plans.append(plan))
    config.set("fusion_compile_cost_ms", 1e9)        # never pays back
    x = data((30_000,), "float64")
    results, regions = evaluate("lambda(x, exp(x) * 2 - x)", [(x,)] * 8)
    assert compiled_plans == [] and len(regions) == 1
    assert_like(results[-1], np.exp(x) * 2 - x)


def test_small_evaluations_give_the_node_back(policy):
    config.set("fusion_min_time_us", 1e9)            # no evaluation is big
    state, node = compiled("lambda(x, x * 2 + 1)")
    [region] = fusion.regions_of(node)
    for i in range(hot.GIVE_UP):
        assert phylanx.execution_tree.eval(state, "lambda(x, x * 2 + 1)", float(i)) == i * 2 + 1
    assert region.state == hot.OFF and region.node.choice.variant == region.original


def test_recording_compilers_do_not_fuse():
    from phylanx.autodiff.recording import RecordingCompiler
    from phylanx.compiler.compiler import Compiler
    assert RecordingCompiler.build_eager is not Compiler.build_eager
    recorder = RecordingCompiler.__new__(RecordingCompiler)
    called = []
    original = fusion.install
    try:
        fusion.install = lambda body: called.append(body)
        recorder.fuse([])
    finally:
        fusion.install = original
    assert called == []


def test_hot_after_the_count_threshold(policy):
    for name, value in (("fusion_count_threshold", 3), ("fusion_min_time_us", 0.0),
                        ("fusion_min_size", 1), ("fusion_compile_cost_ms", 0.0)):
        config.set(name, value)
    try:
        code = "lambda(x, exp(x) * 2 - x)"
        state, node = compiled(code)
        [region] = fusion.regions_of(node)
        x = data((500,), "float64")
        for _ in range(2):
            phylanx.execution_tree.eval(state, code, x)
        assert region.state == hot.COLD and region.kernels == {}
        for _ in range(3):
            assert_like(phylanx.execution_tree.eval(state, code, x), np.exp(x) * 2 - x)
        assert any(type(k) is hot._Kernel for k in region.kernels.values())
    finally:
        for name in ("fusion_count_threshold", "fusion_min_size"):
            config.reset(name)


def test_a_region_goes_hot_by_the_thresholds_its_program_was_compiled_with(policy):
    # fusion_count_threshold and fusion_min_size are of the plan (config.PLAN), whose
    # key a program's nodes carry from compile time: read at run time, a change after
    # compiling made a region hot at another evaluation under the same key (ranks: the
    # leaves' collectives in another order, replicated values rounded otherwise)
    config.set("fusion_min_time_us", 0.0)
    names = ("fusion_count_threshold", "fusion_min_size")
    for name, value in zip(names, (2, 1)):
        config.set(name, value)
    try:
        code, later = "lambda(x, exp(x) * 2 - x)", "lambda(x, exp(x) * 3 - x)"
        state, node = compiled(code)
        [region] = fusion.regions_of(node)
        for name, value in zip(names, (1000, 10 ** 9)):
            config.set(name, value)
        state_later, node = compiled(later)
        [changed] = fusion.regions_of(node)
        x = data((500,), "float64")
        for _ in range(2):
            assert_like(phylanx.execution_tree.eval(state, code, x), np.exp(x) * 2 - x)
            assert_like(phylanx.execution_tree.eval(state_later, later, x),
                        np.exp(x) * 3 - x)
        assert region.state == hot.HOT and changed.state == hot.COLD
    finally:
        for name in names:
            config.reset(name)


def test_a_kernel_slower_than_numpy_is_given_back(eager, monkeypatch):
    import time
    monkeypatch.setattr(hot, "KEEP_SLOWER", False)
    code = "lambda(x, exp(x) * 2 - x)"
    state, node = compiled(code)
    [region] = fusion.regions_of(node)
    x = data((500,), "float64")
    for _ in range(4):                      # cold, plan + compile, check, warm-up
        phylanx.execution_tree.eval(state, code, x)
    [entry] = [k for k in region.kernels.values() if type(k) is hot._Kernel]

    def slowed(kernel):
        def slow(*args):
            time.sleep(0.02)                # NumPy needs microseconds for 500 elements
            return kernel(*args)
        return slow
    entry.variants = tuple(slowed(k) for k in entry.variants)
    for _ in range(hot.SPEED_RUNS):
        assert_like(phylanx.execution_tree.eval(state, code, x), np.exp(x) * 2 - x)
    assert region.state == hot.OFF
    assert fusion.regions_of(node) == []      # the node has its original closure back
