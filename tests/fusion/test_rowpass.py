"""Fused row passes (phylanx/fusion/rowpass.py): ``x.T @ f(x @ w, ...)`` in one loop.

The fixture ``rows`` (conftest.py) makes every gram hot at once so the kernel runs; the
oracle is the same expression in NumPy, within a tolerance relative to ``|x|.T @ |f|``.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import phylanx
from phylanx import Phylanx, config, fusion
from phylanx.errors import PhylanxError
from phylanx.fusion import hot, rowpass
from phylanx.runtime import choices

pytest.importorskip("numba")

RNG = np.random.default_rng(5)


_counter = [0]


def run(code: str, calls: list[tuple]):
    """Compile the PhySL lambda ``code`` once, call it with each tuple: (results, passes)."""
    from phylanx.execution_tree import eval as physl_eval
    _counter[0] += 1
    state = phylanx.execution_tree.compiler_state(f"rowpass-{_counter[0]}", "<rowpass>")
    node = state.compile_text(code)
    passes = [r for r in fusion.regions_of(node) if isinstance(r, rowpass.RowPass)]
    results = [physl_eval(state, code, *args) for args in calls]
    return results, passes


def kernel_calls(passes) -> int:
    return sum(e.calls for p in passes for e in p.kernels.values()
               if isinstance(e, rowpass.RowKernel))


def assert_gram(got, x, f):
    """``got`` equals ``x.T @ f`` within rounding relative to every term of the sum."""
    want = x.T @ f
    assert isinstance(got, np.ndarray) and got.dtype == want.dtype and got.shape == want.shape
    eps = np.finfo(want.dtype).eps
    bound = 64 * eps * (np.abs(x).astype(np.float64).T @ np.abs(f).astype(np.float64))
    assert np.all(np.abs(got.astype(np.float64) - want) <= bound + np.finfo(want.dtype).tiny)


def sigmoid_residual(x, w, y):
    return 1.0 / (1.0 + np.exp(-(x @ w))) - y


LRA = "lambda(x, w, y, matmul(transpose(x), 1.0 / (1.0 + exp(-matmul(x, w))) - y))"


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n,d", [(1, 3), (7, 1), (300, 17), (1001, 40)])
def test_logistic_gradient_matches_numpy(rows, dtype, n, d):
    calls = [(RNG.normal(size=(n, d)).astype(dtype), RNG.normal(size=d).astype(dtype),
              (RNG.random(n) < 0.5).astype(dtype)) for _ in range(6)]
    with np.errstate(over="ignore"):
        results, passes = run(LRA, calls)
        for got, (x, w, y) in zip(results, calls):
            assert_gram(got, x, sigmoid_residual(x, w, y))
    assert len(passes) == 1
    assert kernel_calls(passes) >= 3          # the check, then the kernel's turns


def test_two_products_scalars_and_dot(rows):
    code = ("lambda(x, w, v, y, a, dot(transpose(x), "
            "tanh(matmul(x, w)) * y - a * matmul(x, v) + 2))")
    n, d = 257, 9
    calls = [(RNG.normal(size=(n, d)), RNG.normal(size=d), RNG.normal(size=d),
              RNG.normal(size=n), float(i)) for i in range(6)]
    results, passes = run(code, calls)
    for got, (x, w, v, y, a) in zip(results, calls):
        assert_gram(got, x, np.tanh(x @ w) * y - a * (x @ v) + 2)
    assert kernel_calls(passes) >= 3


def test_decorated_logistic_regression_inlines_pred_and_fuses(rows, monkeypatch):
    installed = []
    original = fusion.install
    monkeypatch.setattr(fusion, "install", lambda body: installed.extend(original(body))
                        or installed)

    def lra(x, y, alpha, iterations):
        w = np.zeros(x.shape[1])
        for _ in range(iterations):
            pred = 1.0 / (1.0 + np.exp(-(x @ w)))
            w = w - alpha * (x.T @ (pred - y))
        return w

    x = RNG.normal(size=(500, 12))
    y = (x @ RNG.normal(size=12) > 0).astype(float)
    got = Phylanx(lra)(x, y, 1e-3, 40)
    want = lra(x, y, 1e-3, 40)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
    passes = [p for p in installed if isinstance(p, rowpass.RowPass)]
    assert len(passes) == 1 and kernel_calls(passes) >= 30


@pytest.mark.parametrize("case", ["matrix w", "int x", "strided x", "2-d y"])
def test_other_operands_run_numpy(rows, case):
    n, d = 50, 6
    x, w, y = RNG.normal(size=(n, d)), RNG.normal(size=d), RNG.normal(size=n)
    if case == "matrix w":
        w = RNG.normal(size=(d, 3))
        y = RNG.normal(size=(n, 3))
    elif case == "int x":
        x = RNG.integers(-3, 3, size=(n, d))
    elif case == "strided x":
        x = RNG.normal(size=(n, 2 * d))[:, ::2]
    else:
        y = RNG.normal(size=(n, 1))
    results, passes = run(LRA, [(x, w, y)] * 4)
    for got in results:
        want = x.T @ sigmoid_residual(x, w, y)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
    assert kernel_calls(passes) == 0


def test_errors_are_those_of_the_expression(rows):
    x, w = RNG.normal(size=(40, 5)), RNG.normal(size=5)
    with pytest.raises(PhylanxError) as fused:
        run(LRA, [(x, w, RNG.normal(size=40))] * 3 + [(x, w, RNG.normal(size=41))])
    with pytest.raises(PhylanxError) as plain:
        run(LRA, [(x, w, RNG.normal(size=41))])
    assert str(fused.value) == str(plain.value)


def test_non_finite_values_like_numpy(rows):
    x, w, y = RNG.normal(size=(64, 4)), RNG.normal(size=4), RNG.normal(size=64)
    y[[3, 10]] = [np.inf, np.nan]
    results, passes = run(LRA, [(x, w, y)] * 5)
    want = x.T @ sigmoid_residual(x, w, y)
    for got in results:
        np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want))
    assert kernel_calls(passes) >= 3


def test_a_disagreeing_kernel_is_dropped_with_one_warning(rows, monkeypatch):
    monkeypatch.setattr(rowpass.RowKernel, "__call__",
                        lambda self, shape, n, args: np.zeros(args[0].shape[1]))
    x, w, y = RNG.normal(size=(30, 4)), RNG.normal(size=4), RNG.normal(size=30)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results, passes = run(LRA, [(x, w, y)] * 5)
    assert [str(c.message) for c in caught if c.category is fusion.FusionWarning] == [
        next(str(c.message) for c in caught if c.category is fusion.FusionWarning)]
    for got in results:
        np.testing.assert_allclose(got, x.T @ sigmoid_residual(x, w, y), rtol=1e-12)
    assert list(passes[0].kernels.values()) == [hot._REJECTED]


@pytest.mark.parametrize("code", [
    "lambda(x, z, w, y, matmul(transpose(x), exp(matmul(z, w)) - y))",     # another matrix
    "lambda(x, w, y, matmul(transpose(x), y - w))",                        # no product
    "lambda(x, w, y, matmul(x, 1.0 / (1.0 + exp(-matmul(x, w)))))",       # no transpose
    "lambda(x, w, y, matmul(transpose(x), sum(matmul(x, w))))",            # a reduction
])
def test_only_the_pattern_is_found(rows, code):
    _counter[0] += 1
    state = phylanx.execution_tree.compiler_state(f"rowpass-{_counter[0]}", "<rowpass>")
    node = state.compile_text(code)
    assert not [r for r in fusion.regions_of(node) if isinstance(r, rowpass.RowPass)]


def test_small_matrices_run_untimed_and_big_ones_still_fuse(cache):
    """Default size threshold: below MIN_ELEMENTS the expression runs as written and
    nothing is planned; the same function called later on a big matrix still fuses."""
    small = (RNG.normal(size=(100, 10)), RNG.normal(size=10), RNG.normal(size=100))
    big = (RNG.normal(size=(2000, 40)), RNG.normal(size=40), RNG.normal(size=2000))
    assert big[0].size >= rowpass.MIN_ELEMENTS > small[0].size
    settings = (("fusion_min_time_us", 0.0), ("fusion_compile_cost_ms", 0.0),
                ("fusion_background", False), ("fusion_cache_dir", cache))
    for name, value in settings:
        config.set(name, value)
    try:
        _counter[0] += 1
        from phylanx.execution_tree import eval as physl_eval
        state = phylanx.execution_tree.compiler_state(f"rowpass-{_counter[0]}", "<r>")
        node = state.compile_text(LRA)
        (found,) = [r for r in fusion.regions_of(node) if isinstance(r, rowpass.RowPass)]
        for _ in range(80):
            got = physl_eval(state, LRA, *small)
        assert found.state == hot.COLD and found.big == 0 and not found.kernels
        np.testing.assert_allclose(got, small[0].T @ sigmoid_residual(*small), rtol=1e-12)
        for _ in range(8):
            got = physl_eval(state, LRA, *big)
        assert_gram(got, big[0], sigmoid_residual(*big))
        assert kernel_calls([found]) >= 1
    finally:
        for name, _ in settings:
            config.reset(name)


def test_switched_off_installs_nothing():
    config.set("fusion_rows", False)
    try:
        _, passes = run(LRA, [(RNG.normal(size=(9, 2)), RNG.normal(size=2),
                               RNG.normal(size=9))])
    finally:
        config.reset("fusion_rows")
    assert passes == []


def test_the_faster_loop_is_followed_when_the_load_changes(rows, monkeypatch):
    """After the timed turns, the other loop runs once each time the loop in use has
    spent EXPLORE times the other's last known time: a loop that becomes slow (another
    library's threads on the cores) is left for the other."""
    monkeypatch.setattr(hot, "EXPLORE", 2)
    monkeypatch.setattr(hot, "TURNS", (1, 0))
    monkeypatch.setattr(hot, "SPEED_RUNS", 2)
    x, w, y = RNG.normal(size=(64, 3)), RNG.normal(size=3), RNG.normal(size=64)
    _, (found,) = run(LRA, [(x, w, y)] * 6)
    (entry,) = [e for e in found.kernels.values() if isinstance(e, rowpass.RowKernel)]

    # the policy is what is tested, not the machine: the loops' times are those of a
    # clock each call advances (a wall-clock sleep of 50 ms was outweighed once by a
    # fast call descheduled for longer, six test processes on 2 cores)
    now = [0]
    monkeypatch.setattr(choices, "clock", lambda: now[0])

    def taking(kernel, nanoseconds):
        def timed(*args):
            now[0] += nanoseconds
            return kernel(*args)
        return timed

    serial = entry.variants[1]
    for slow_one in (0, 1):
        variants = [taking(serial, 10_000), taking(serial, 10_000)]
        variants[slow_one] = taking(serial, 50_000_000)
        entry.variants = tuple(variants)
        for _ in range(12):
            found.steady(entry, None, x.size, [x, 1.0, 1.0, w, y], [x, 1.0, 1.0, w, y])
        assert entry.current == 1 - slow_one


def test_operands_no_kernel_takes_retire_the_pass(rows):
    """A matrix w (x @ W): planned never, and after enough evaluations the node gets its
    own closure back (no cost left), while a small-again x only goes back to cold."""
    x, w, y = RNG.normal(size=(60, 4)), RNG.normal(size=(4, 3)), RNG.normal(size=(60, 3))
    results, (found,) = run(LRA, [(x, w, y)] * (hot.GIVE_UP + 8))
    # given back: its node's side-table entry ran the original closures, until the
    # table's revisit gave it another look (tests/fusion/test_region_revisit.py)
    assert found.revisit_after > choices.REVISIT_FIRST
    assert found.state != hot.OFF or found.node.choice.variant == found.original
    np.testing.assert_allclose(results[-1], x.T @ sigmoid_residual(x, w, y), rtol=1e-12)


# -- found by review ------------------------------------------------------------------------

def weighted(x, w, y, a):
    return x.T @ ((x @ w) * (y + a))


def scaled(x, w, a):
    return x.T @ ((x @ w) * a)


def mixed(x, w, y):
    return x.T @ (np.tanh(x @ w) - y)


def plain_gram(x, w, y):
    return x.T @ (np.exp(x @ w) - y)


def test_a_distributed_x_is_left_to_the_expression(rows):
    from phylanx import distributed as dist
    x = RNG.normal(size=(6, 6))
    w, y = RNG.normal(size=6) * 0.1, RNG.normal(size=6)
    f = Phylanx(plain_gram)
    xd = dist.tiled(x, name="rowpass_x")
    for _ in range(6):   # the expression's answer: the distribution rules', NumPy's
        got = f(xd, w, y)
        got = got.gather() if isinstance(got, dist.DistributedArray) else got
        np.testing.assert_allclose(got, plain_gram(x, w, y), rtol=1e-12)
    np.testing.assert_allclose(f(x, w, y), plain_gram(x, w, y), rtol=1e-12)


def test_a_python_int_out_of_the_arrays_range_is_numpys_error(rows):
    f = Phylanx(weighted)
    x, w = RNG.normal(size=(200, 5)), RNG.normal(size=5)
    y = RNG.integers(0, 100, 200).astype(np.int8)
    for _ in range(14):
        assert_gram(f(x, w, y, 1), x, (x @ w) * (y + 1))
    with pytest.raises(PhylanxError, match="out of bounds"):
        f(x, w, y, 300)


def test_a_python_float_meets_float32_as_float32(rows):
    """1e39 is inf as a float32: NumPy's x.T @ (small products * inf) is inf, where the
    products times a float64 1e39 would still be finite."""
    f = Phylanx(scaled)
    x = (RNG.random(size=(100, 3)) * 1e-3).astype(np.float32)
    w = (RNG.random(size=3) * 1e-3).astype(np.float32)
    for _ in range(12):                      # the check, the turns, then the kernel
        f(x, w, 1.0)
    with np.errstate(all="ignore"):
        want = scaled(x, w, 1e39)
        got = f(x, w, 1e39)
    assert np.isinf(want).all()
    np.testing.assert_array_equal(got, want)


def test_float32_products_under_a_float64_result_fuse(rows, monkeypatch):
    installed = []
    original = fusion.install
    monkeypatch.setattr(fusion, "install", lambda body: installed.extend(original(body))
                        or installed)
    f = Phylanx(mixed)
    x = RNG.normal(size=(300, 8)).astype(np.float32)
    w = RNG.normal(size=8).astype(np.float32)
    y = RNG.normal(size=300)
    with warnings.catch_warnings():
        warnings.simplefilter("error", fusion.FusionWarning)
        for _ in range(6):
            got = f(x, w, y)
    want = mixed(x, w, y)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
    assert kernel_calls([p for p in installed if isinstance(p, rowpass.RowPass)]) >= 3


def test_a_read_only_x(rows):
    f = Phylanx(plain_gram)
    x, w, y = RNG.normal(size=(50, 4)), RNG.normal(size=4) * 0.1, RNG.normal(size=50)
    for _ in range(4):
        f(x, w, y)
    x.flags.writeable = False
    for _ in range(4):
        assert_gram(f(x, w, y), x, np.exp(x @ w) - y)


def test_fused_regions_key_read_only_operands_apart():
    """numba compiles a read-only array as another type: keyed together with writeable
    ones, a kernel checked on one would compile the other inside a call."""
    from phylanx.fusion import hot
    a, b = np.ones(8), np.ones(8)
    b.flags.writeable = False
    writeable, read_only = hot._prepare([a, 2.0]), hot._prepare([b, 2.0])
    assert writeable[0] != read_only[0]
    c = np.ones((4, 2)).T                       # a copy is made: writeable again
    c.flags.writeable = False
    assert hot._prepare([c, 2.0])[0] == hot._prepare([np.ones((2, 4)), 2.0])[0]
