"""Fused element-wise chains (phylanx/fusion) against the unfused tree and NumPy.

The fixture ``eager`` makes every chain hot at once (no thresholds, compile in the
calling thread, kernels kept even when slower) so that the kernel path is what runs;
``policy`` tests keep the default thresholds.  NumPy (or the same expression evaluated
by NumPy) is the oracle; floats compare within a tolerance relative to the data.
"""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import config, fusion
from phylanx.fusion import hot
from phylanx.fusion.rules import FUSED
from phylanx.kernels import compiling
from phylanx.primitives.rules import FUSION

pytest.importorskip("numba")


_counter = [0]


def compiled(code: str):
    """A fresh compiler state holding ``code`` (a lambda); returns (state, node)."""
    _counter[0] += 1
    state = phylanx.execution_tree.compiler_state(f"fusion-{_counter[0]}", "<fusion-test>")
    return state, state.compile_text(code)


def evaluate(code: str, calls: list[tuple]):
    """Compile ``code`` once and call it with each argument tuple; (results, regions)."""
    from phylanx.execution_tree import eval as physl_eval
    state, node = compiled(code)
    results = [physl_eval(state, code, *args) for args in calls]
    return results, fusion.regions_of(node)


def kernels_used(regions) -> int:
    # the flat loop (hot._Kernel) or, for broadcast and strided operands, the strided
    # one (stridedmap.MapKernel)
    return sum(e.calls for r in regions for e in r.kernels.values()
               if isinstance(e, hot._Kernel))


def assert_like(result, expected, scale=None):
    expected = np.asarray(expected) if not np.isscalar(expected) else expected
    if isinstance(expected, np.ndarray):
        assert isinstance(result, np.ndarray)
        assert result.shape == expected.shape and result.dtype == expected.dtype
        if expected.dtype.kind == "f":
            finite = np.isfinite(expected)
            scale = scale or (np.abs(expected[finite]).max() if finite.any() else 1.0)
            tol = 1e3 * np.finfo(expected.dtype).eps
            np.testing.assert_allclose(result, expected, rtol=tol, atol=tol * scale,
                                       equal_nan=True)
        else:
            np.testing.assert_array_equal(result, expected)
    else:
        assert type(result) is type(expected)
        if not isinstance(expected, (float, np.floating)):
            assert result == expected
            return
        eps = np.finfo(getattr(expected, "dtype", np.float64)).eps
        assert abs(result - expected) <= 1e3 * eps * (scale or max(abs(expected), 1.0))


RNG = np.random.default_rng(11)


def data(shape, dtype):
    if np.dtype(dtype).kind == "b":
        return RNG.random(shape) < 0.5
    if np.dtype(dtype).kind == "i":
        return RNG.integers(-50, 50, size=shape).astype(dtype)
    return RNG.normal(size=shape).astype(dtype)


# -- chains ------------------------------------------------------------------------------

CHAINS = [
    # (PhySL body of lambda(a, b, c, ...), NumPy oracle, number of operands)
    ("1.0 / (1.0 + exp(-a))", lambda a: 1.0 / (1.0 + np.exp(-a)), 1),
    ("a * b + a * a - b", lambda a, b: a * b + a * a - b, 2),
    ("sum(power(a - b, 2))", lambda a, b: np.sum(np.power(a - b, 2)), 2),
    ("mean(sqrt(absolute(a)) * 2 + b)", lambda a, b: np.mean(np.sqrt(np.abs(a)) * 2 + b), 2),
    ("maximum(a, b) * 0.5 - minimum(a, 1.5)",
     lambda a, b: np.maximum(a, b) * 0.5 - np.minimum(a, 1.5), 2),
    ("logical_and(a > b, b <= 0.5)", lambda a, b: np.logical_and(a > b, b <= 0.5), 2),
    ("a / b + 1", lambda a, b: a / b + 1, 2),
    ("(a == b) + (a != 0)", lambda a, b: (a == b) + (a != 0), 2),
    ("tanh(a) * 3 + cos(b)", lambda a, b: np.tanh(a) * 3 + np.cos(b), 2),
]
_OTHER = ["float32", "int64", "int32"]
#: every chain in float64 and in one other dtype (each case compiles a kernel: ~1 s)
CASES = [(*chain, dtype) for i, chain in enumerate(CHAINS)
         for dtype in ("float64", _OTHER[i % len(_OTHER)])]


@pytest.mark.parametrize("body,oracle,nargs,dtype", CASES,
                         ids=[f"{c[0]}-{c[3]}" for c in CASES])
def test_fused_chain_matches_numpy(eager, body, oracle, nargs, dtype):
    names = "abcde"[:nargs]
    code = f"lambda({', '.join(names)}, {body})"
    calls = [tuple(data((300,), dtype) for _ in range(nargs)) for _ in range(5)]
    with np.errstate(all="ignore"):
        expected = [oracle(*args) for args in calls]
        results, regions = evaluate(code, calls)
    assert len(regions) == 1
    for got, want in zip(results, expected):
        assert_like(got, want)
    states = {type(e).__name__ for e in regions[0].kernels.values()}
    if states == {"str"}:       # rejected: the generator was not sure of these dtypes
        assert kernels_used(regions) == 0
    else:
        assert kernels_used(regions) >= 3, states   # the check, then fused calls


def test_float32_with_python_scalars_stays_float32(eager):
    x = data((1000,), "float32")
    results, regions = evaluate("lambda(x, x * 2.5 + 1 - x / 3)", [(x,)] * 5)
    assert results[-1].dtype == np.float32 and kernels_used(regions) >= 3
    assert_like(results[-1], x * 2.5 + 1 - x / 3)


def test_int32_wraps_like_numpy(eager):
    a = np.array([2**30, -2**31, 7] * 100, dtype=np.int32)
    with np.errstate(all="ignore"):
        want = a * a + a * 3
    results, regions = evaluate("lambda(a, a * a + a * 3)", [(a,)] * 5)
    assert kernels_used(regions) >= 3
    assert_like(results[-1], want)


def test_zero_divisors_and_nans(eager):
    a = np.array([1.0, -1.0, 0.0, np.nan, np.inf, 2.0] * 50)
    b = np.array([0.0, 0.0, 0.0, 1.0, np.inf, np.nan] * 50)
    ints = np.array([1, 0, -3] * 100)
    with np.errstate(all="ignore"):
        results, regions = evaluate("lambda(a, b, a / b + maximum(a, b) - fmin(a, b))",
                                    [(a, b)] * 5)
        assert_like(results[-1], a / b + np.maximum(a, b) - np.fmin(a, b))
        assert kernels_used(regions) >= 3
        results, regions = evaluate("lambda(i, j, i / j * 2)", [(ints, ints[::-1].copy())] * 5)
        assert_like(results[-1], ints / ints[::-1] * 2)


@pytest.mark.parametrize("shapes", [
    [(40, 30), (40, 30)], [(40, 1), (1, 30)], [(40, 30), (30,)], [(40, 30), ()],
    [(40, 30), (1,)], [(5, 4, 30), (4, 1)],
], ids=str)
def test_broadcasting(eager, shapes):
    a, b = (data(s, "float64") for s in shapes)
    results, regions = evaluate("lambda(a, b, exp(a - b) * b + 1)", [(a, b)] * 5)
    assert kernels_used(regions) >= 3
    assert_like(results[-1], np.exp(a - b) * b + 1)


def test_non_contiguous_and_scalar_operands(eager):
    a = data((60, 50), "float64")
    results, regions = evaluate("lambda(a, s, sin(a) * s + 2)",
                                [(a.T, 3.0), (a.T, np.float64(0.5)), (a[::2], 2)] * 3)
    for got, (x, s) in zip(results, [(a.T, 3.0), (a.T, 0.5), (a[::2], 2)] * 3):
        assert_like(got, np.sin(x) * s + 2)
    assert kernels_used(regions) >= 3


def test_unsupported_operands_stay_numpy(eager):
    u8 = np.arange(300, dtype=np.uint8)
    cplx = np.ones(300) * (1 + 2j)
    calls = [(u8, 2.0), (cplx, 3.0), (u8, 2.0), (cplx, 3.0), (u8, 2.0), (cplx, 3.0)]
    results, regions = evaluate("lambda(a, b, a * b + a)", calls)
    for got, (a, b) in zip(results, calls):
        assert_like(got, a * b + a)
    assert kernels_used(regions) == 0


def test_mismatched_shapes_raise_located_errors(eager):
    code = "lambda(a, b, a * b + a)"
    state, _ = compiled(code)
    for _ in range(3):
        phylanx.execution_tree.eval(state, code, np.ones(3), np.ones(3))
    with pytest.raises(phylanx.PhylanxError, match="broadcast") as info:
        phylanx.execution_tree.eval(state, code, np.ones(3), np.ones(4))
    assert info.value.loc is not None


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

_HYP_STATE = {}


def _hyp_function(body):
    if body not in _HYP_STATE:
        code = f"lambda(a, b, {body})"
        state, node = compiled(code)
        _HYP_STATE[body] = (state, code, node)
    return _HYP_STATE[body]


@settings(max_examples=40, deadline=None,
          suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture])
@given(st.data())
def test_random_shapes_and_values(eager, data_):
    shapes = data_.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3,
                                                          max_side=6))
    dtype = data_.draw(st.sampled_from(["float64", "float32"]))
    elems = st.one_of(st.floats(-1e3, 1e3, width=32),
                      st.sampled_from([np.nan, np.inf, -np.inf, 0.0]))
    a = data_.draw(hnp.arrays(dtype, shapes.input_shapes[0], elements=elems))
    b = data_.draw(hnp.arrays(dtype, shapes.input_shapes[1], elements=elems))
    body = data_.draw(st.sampled_from(["a * b - a / 3 + 1", "maximum(a, b) * tanh(a - b)"]))
    state, code, _ = _hyp_function(body)
    with np.errstate(all="ignore"):
        got = phylanx.execution_tree.eval(state, code, a, b)
        want = (a * b - a / 3 + 1 if body.startswith("a *")
                else np.maximum(a, b) * np.tanh(a - b))
    want = np.asarray(want) if isinstance(got, np.ndarray) else want
    if isinstance(got, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == "float32" else 1e-12,
                                   atol=1e-3 if dtype == "float32" else 1e-9,
                                   equal_nan=True)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, equal_nan=True)


def test_random_examples_reached_the_kernel(eager):
    # the hypothesis test above is only worth something if its chains did fuse
    if not _HYP_STATE:
        pytest.skip("run together with test_random_shapes_and_values")
    used = sum(kernels_used(fusion.regions_of(node)) for _, _, node in _HYP_STATE.values())
    assert used > 0


# -- every rule ------------------------------------------------------------------------

def _rule_groups():
    """The fusing rules grouped by operand kind and arity: one chain (one kernel) per
    group, ``r1 + r2 + ...`` of every rule applied to the same operands."""
    groups: dict[tuple[str, int], list[str]] = {}
    for name in sorted(FUSED):
        rule = FUSION.get(name)
        kind = "f" if "f" in rule.kinds else "i"
        groups.setdefault((kind, rule.arity[0]), []).append(name)
    return groups


def _apply(name, args):
    return phylanx.primitives.registry.lookup(name).impl(*args)


@pytest.mark.parametrize("key,names", list(_rule_groups().items()),
                         ids=[f"{k}{n}" for k, n in _rule_groups()])
def test_every_fusing_rule_compiles_and_matches_numpy(eager, key, names):
    kind, n = key
    params = ", ".join("ab"[:n])
    # a chain of additions; out-of-domain values (arcsin(2) ...) give NaN in both
    terms = [f"{name}({params})" for name in names]
    body = terms[0]
    for term in terms[1:]:
        body = f"__add({body}, {term})"
    body = f"__mul({body}, 1)"              # at least two operations, even for one rule
    dtype = "float64" if kind == "f" else "int64"
    args = tuple(data((400,), dtype) * (2 if kind == "f" else 1) for _ in range(n))
    if "elu" in names:          # elu's alpha is a number
        args = (args[0], 0.7)
    with np.errstate(all="ignore"):
        expected = _apply(names[0], args)
        for name in names[1:]:
            expected = expected + _apply(name, args)
        expected = expected * 1
        results, regions = evaluate(f"lambda({params}, {body})", [args] * 5)
    assert len(regions) == 1
    assert kernels_used(regions) >= 3, (names, regions[0].kernels)
    assert_like(results[-1], expected)


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
