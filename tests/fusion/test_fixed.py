"""Hand-written compiled kernels behind fast paths (phylanx/fusion/fixed.py).

``add_at`` of rows (k-means' centre sums) against ``np.add.at``: equal within rounding
relative to the sums of magnitudes; compiled only once NumPy's path has spent the
expected compile cost; non-finite sums are NumPy's own.
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import config
from phylanx.fusion import fixed
from phylanx.primitives.matrixops.numpy_search import COMPILED_MIN, add_at

pytest.importorskip("numba")

RNG = np.random.default_rng(3)


@pytest.fixture
def fresh(cache, monkeypatch):
    """A new add_at kernel entry table, compiled in the calling thread."""
    monkeypatch.setattr(fixed, "add_rows", fixed.FixedKernel("add rows", fixed.ADD_ROWS))
    for name, value in (("fusion_background", False), ("fusion_cache_dir", cache)):
        config.set(name, value)
    yield fixed.add_rows
    for name in ("fusion_background", "fusion_cache_dir", "fusion_compile_cost_ms"):
        config.reset(name)


def expected(k, labels, points):
    out = np.zeros((k, points.shape[1]), points.dtype)
    np.add.at(out, labels, points)
    return out


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("d", [2, 16])
def test_compiled_row_sums_match_add_at(fresh, dtype, d):
    config.set("fusion_compile_cost_ms", 0.0)
    n, k = COMPILED_MIN // d + 17, 8
    for _ in range(3):
        points = RNG.normal(size=(n, d)).astype(dtype)
        labels = RNG.integers(0, k, n)
        got = add_at(np.zeros((k, d), dtype), labels, points)
        want = expected(k, labels, points)
        scale = expected(k, labels, np.abs(points).astype(np.float64))
        assert got.dtype == want.dtype
        assert np.all(np.abs(got - want) <= 64 * np.finfo(dtype).eps * scale)
    assert any(type(e) is tuple for e in fresh.entries.values())


def test_not_compiled_before_numpy_paid_for_it(fresh):
    config.set("fusion_compile_cost_ms", 1e6)
    points = RNG.normal(size=(COMPILED_MIN, 4))
    labels = RNG.integers(0, 3, len(points))
    add_at(np.zeros((3, 4)), labels, points)
    assert all(type(e) is int and e > 0 for e in fresh.entries.values())


def test_non_finite_sums_are_numpys(fresh):
    config.set("fusion_compile_cost_ms", 0.0)
    points = RNG.normal(size=(COMPILED_MIN, 2))
    points[5, 1], points[9, 0] = np.inf, np.nan
    labels = RNG.integers(0, 4, len(points))
    for _ in range(3):
        got = add_at(np.zeros((4, 2)), labels, points)
        np.testing.assert_array_equal(np.isfinite(got), np.isfinite(expected(4, labels, points)))


@pytest.mark.parametrize("bad", [-1, 4, 99])
def test_indices_out_of_range_are_numpys_business(fresh, bad):
    config.set("fusion_compile_cost_ms", 0.0)
    points = RNG.normal(size=(COMPILED_MIN, 2))
    labels = RNG.integers(0, 4, len(points))
    add_at(np.zeros((4, 2)), labels, points)             # compiles
    labels[len(labels) // 2] = bad
    if bad == -1:                                        # wraps, as in NumPy
        np.testing.assert_allclose(add_at(np.zeros((4, 2)), labels, points),
                                   expected(4, labels, points), rtol=1e-12)
    else:
        with pytest.raises(Exception, match="out of bounds"):
            add_at(np.zeros((4, 2)), labels, points)
