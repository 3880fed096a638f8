"""Shared helpers of the fused element-wise chain tests (test_fusion*.py): compile a
PhySL lambda in a fresh compiler state, evaluate it, count the flat kernel's calls, and
compare with NumPy within a tolerance relative to the data."""
from __future__ import annotations

import numpy as np

import phylanx
from phylanx import fusion
from phylanx.fusion import hot

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
