"""Fused element-wise chains (phylanx/fusion) against the unfused tree and NumPy: the
chains in several dtypes, broadcasting, strided and scalar operands, special values, and
random shapes and values (hypothesis).

The fixture ``eager`` makes every chain hot at once (no thresholds, compile in the
calling thread, kernels kept even when slower) so that the kernel path is what runs.
NumPy (or the same expression evaluated by NumPy) is the oracle; floats compare within a
tolerance relative to the data.  Every rule in one chain: test_fusion_rules.py; bad
input, fallbacks and the policy: test_fusion_fallbacks.py.
"""
from __future__ import annotations

import numpy as np
import pytest

import phylanx
from phylanx import fusion

from .fusing import assert_like, compiled, data, evaluate, kernels_used

pytest.importorskip("numba")


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


def _operand_shapes(data_) -> tuple[tuple, tuple]:
    """(a's shape, b's shape): ``a`` of the full shape, ``b`` of the full shape or
    broadcast along an axis.  A kernel is compiled per signature (operand layout and
    dtype; the strided loop's also per output ndim), not per shape: the full form varies
    the ndim freely (its flat loop reads every operand as a vector), the broadcast form
    keeps a 2-d output, so the examples reuse 2 kernels per chain and dtype and vary the
    sizes, strides and values they run (one-element operands, 1-d and 3-d strided
    loops: test_broadcasting, test_stridedmap.py)."""
    if data_.draw(st.booleans()):
        shape = data_.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=6))
        return shape, shape
    rows, cols = data_.draw(hnp.array_shapes(min_dims=2, max_dims=2, min_side=2, max_side=6))
    return (rows, cols), data_.draw(st.sampled_from([(cols,), (1, cols), (rows, 1)]))


@settings(max_examples=40, deadline=None,
          suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture])
@given(st.data())
def test_random_shapes_and_values(eager, data_):
    shape_a, shape_b = _operand_shapes(data_)
    dtype = data_.draw(st.sampled_from(["float64", "float32"]))
    elems = st.one_of(st.floats(-1e3, 1e3, width=32),
                      st.sampled_from([np.nan, np.inf, -np.inf, 0.0]))
    a = data_.draw(hnp.arrays(dtype, shape_a, elements=elems))
    b = data_.draw(hnp.arrays(dtype, shape_b, elements=elems))
    body = data_.draw(st.sampled_from(["a * b - a / 3 + 1", "maximum(a, b) * tanh(a - b)"]))
    state, code, _ = _hyp_function(body)
    with np.errstate(all="ignore"):
        want = (a * b - a / 3 + 1 if body.startswith("a *")
                else np.maximum(a, b) * np.tanh(a - b))
        # the first evaluation of a new signature compiles (and returns NumPy's result),
        # the next ones run the kernel on these values (checked, then steady)
        results = [phylanx.execution_tree.eval(state, code, a, b) for _ in range(3)]
    for got in results:
        assert isinstance(got, np.ndarray)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == "float32" else 1e-12,
                                   atol=1e-3 if dtype == "float32" else 1e-9,
                                   equal_nan=True)


def test_random_examples_reached_the_kernel(eager):
    # the hypothesis test above is only worth something if its chains did fuse
    if not _HYP_STATE:
        pytest.skip("run together with test_random_shapes_and_values")
    used = sum(kernels_used(fusion.regions_of(node)) for _, _, node in _HYP_STATE.values())
    assert used > 0
