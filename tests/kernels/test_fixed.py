"""Hand-written compiled kernels behind fast paths (phylanx/kernels/fixed.py).

``add_at`` of rows (k-means' centre sums) against ``np.add.at``: equal within rounding
relative to the sums of magnitudes; compiled only once NumPy's path has spent the
expected compile cost; non-finite sums are NumPy's own.
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import config
from phylanx.kernels import fixed
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


def _fresh_kernel(name, cache, monkeypatch):
    """A new entry table for the LU kernel ``name``, compiled at once in this thread."""
    monkeypatch.setattr(fixed, name, fixed.FixedKernel(name, fixed.LU_SOLVE))
    for setting, value in (("fusion_background", False), ("fusion_cache_dir", cache),
                           ("fusion_compile_cost_ms", 0.0)):
        config.set(setting, value)
    yield getattr(fixed, name)
    for setting in ("fusion_background", "fusion_cache_dir", "fusion_compile_cost_ms"):
        config.reset(setting)


@pytest.fixture
def fresh_lu(cache, monkeypatch):
    yield from _fresh_kernel("lu_pivots", cache, monkeypatch)


def _rounded_rank_deficient(n, dtype):
    """``b @ b.T`` (b n x (n-1)) whose LU pivots all pass the pivot test: only the condition
    estimate finds it singular."""
    from phylanx.primitives.solvers.direct import factorise
    while True:
        b = RNG.normal(size=(n, n - 1))
        a = (b @ b.T).astype(dtype)
        singular = factorise(a, "getrf")[1]
        if singular is not None and singular.pivot is None:
            return a


def singular_stacks(dtype):
    """Stacks of >= COMPILED_STACK matrices with singular ones (exact, rank-deficient,
    a zero column, negligible pivots, rounded rank-deficient with every pivot passing) at
    several places, and a regular stack."""
    from phylanx.primitives.solvers.direct import COMPILED_STACK
    n, count = 6, COMPILED_STACK + 5
    stacks = []
    for where, kind in ((0, "zero column"), (7, "rank"), (count - 1, "tiny"),
                        (40, "rounded"), (None, "")):
        a = (RNG.normal(size=(count, n, n)) + 3 * np.eye(n)).astype(dtype)
        if kind == "zero column":
            a[where][:, 2] = 0
        elif kind == "rank":
            a[where][4] = a[where][1] + 2 * a[where][3]
        elif kind == "rounded":
            a[where] = _rounded_rank_deficient(n, dtype)
        elif kind == "tiny":
            a[where] = np.outer(RNG.normal(size=n), RNG.normal(size=n)).astype(dtype)
            a[where] += np.finfo(dtype).eps * RNG.normal(size=(n, n)).astype(dtype)
        stacks.append(a)
    return stacks


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_compiled_lu_pivots_find_what_getrf_finds(fresh_lu, dtype):
    from phylanx.primitives.solvers import direct
    stacks = singular_stacks(dtype)
    for i, stack in enumerate(stacks):
        direct.first_singular_in_stack(stack)            # LAPACK's loop, then compiled
        assert any(type(e) is tuple for e in fresh_lu.entries.values())
        compiled = direct.first_singular_in_stack(stack)
        assert (compiled is None) == (i == len(stacks) - 1)
        if i == 3:                                       # only the estimate finds it
            assert compiled[0] == (40,) and compiled[1].pivot is None
        pivots, infos, rconds = direct._stack_pivots(stack)
        getrf, = direct.lapack.get_lapack_funcs(("getrf",), (stack[0],))
        factors = [getrf(m.copy())[0] for m in stack]
        want = np.array([np.abs(np.diagonal(lu)) for lu in factors])
        np.testing.assert_allclose(pivots, want, rtol=1e-3 if dtype == "float32" else 1e-9,
                                   atol=64 * np.finfo(dtype).eps * np.abs(stack).max())
        # the kernel's estimate is gecon's algorithm on its own factors
        regular = infos == 0
        gecon = direct.lapack_routine("gecon", stack.dtype)
        expected = np.array([gecon(lu, np.abs(m).sum(axis=0).max())[0]
                             for lu, m in zip(factors, stack)])
        np.testing.assert_allclose(rconds[regular], expected[regular],
                                   rtol=1e-2 if dtype == "float32" else 1e-6,
                                   atol=8 * np.finfo(dtype).eps)
        config.set("fusion_rows", False)                 # the LAPACK loop again
        try:
            assert direct.first_singular_in_stack(stack) == compiled
        finally:
            config.reset("fusion_rows")


@pytest.fixture
def fresh_solve(cache, monkeypatch):
    yield from _fresh_kernel("lu_solve", cache, monkeypatch)


def solve_compiled(a, b, monkeypatch):
    """``solve(a, b)`` by the compiled kernel: a first call, the NumPy way, compiles it
    (cost 0, in this thread); the second must not take that way."""
    from phylanx.errors import PhylanxLinAlgError
    from phylanx.primitives.matrixops import numpy_products
    fixed.lu_solve.spent(numpy_products.stack_solve_key(a, b), 1)
    try:
        numpy_products.solve(a, b)
    except PhylanxLinAlgError:
        pass                            # a singular stack: compared by the caller
    assert any(type(e) is tuple for e in fixed.lu_solve.entries.values())

    def numpy_way(*args, **kwargs):
        raise AssertionError("solved the NumPy way")
    with monkeypatch.context() as m:
        m.setattr(numpy_products, "fork_join", numpy_way)
        return numpy_products.solve(a, b)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("lead", [(70,), (3, 30)])
@pytest.mark.parametrize("columns", [1, 3])
def test_compiled_stack_solve_matches_numpy(fresh_solve, monkeypatch, dtype, lead, columns):
    n = 9
    a = (RNG.normal(size=lead + (n, n)) + 4 * np.eye(n)).astype(dtype)
    b = RNG.normal(size=lead + (n, columns)).astype(dtype)
    got = solve_compiled(a, b, monkeypatch)
    want = np.linalg.solve(a, b)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=(1e-4 if dtype == "float32" else 1e-11)
                               * np.abs(want).max())


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_compiled_stack_solve_reports_the_singular_matrix_as_before(fresh_solve, monkeypatch,
                                                                    dtype):
    from phylanx.errors import PhylanxLinAlgError
    from phylanx.primitives.matrixops import numpy_products
    for stack in singular_stacks(dtype)[:3]:
        b = RNG.normal(size=stack.shape[:2] + (2,)).astype(dtype)
        config.set("fusion_rows", False)                  # the NumPy/LAPACK way
        try:
            with pytest.raises(PhylanxLinAlgError) as before:
                numpy_products.solve(stack, b)
        finally:
            config.reset("fusion_rows")
        with pytest.raises(PhylanxLinAlgError) as compiled:
            solve_compiled(stack, b, monkeypatch)
        assert str(compiled.value) == str(before.value)


def test_non_finite_and_mixed_stacks_are_solved_the_numpy_way(fresh_solve):
    from phylanx.primitives.matrixops import numpy_products
    n, count = 5, 70
    a = RNG.normal(size=(count, n, n)) + 3 * np.eye(n)
    b = RNG.normal(size=(count, n, 1))
    fixed.lu_solve.spent(numpy_products.stack_solve_key(a, b), 1)
    numpy_products.solve(a, b)                             # compiles it
    assert any(type(e) is tuple for e in fixed.lu_solve.entries.values())
    a[4, 1, 1] = np.nan
    np.testing.assert_array_equal(numpy_products.solve(a, b), np.linalg.solve(a, b))
    mixed = numpy_products.solve(a[:, :, :].astype(np.float32)[5:], b[5:])
    assert mixed.dtype == np.float64
    np.testing.assert_allclose(mixed, np.linalg.solve(a[5:].astype(np.float32), b[5:]),
                               rtol=1e-4)


@pytest.mark.parametrize("dtype", [np.float16, np.longdouble])
def test_other_float_widths_are_not_compiled(fresh_solve, dtype):
    import warnings

    from phylanx.primitives.matrixops import numpy_products
    a = (RNG.normal(size=(70, 4, 4)) + 3 * np.eye(4)).astype(dtype)
    b = RNG.normal(size=(70, 4, 1)).astype(dtype)
    assert numpy_products.stack_solve_key(a, b) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            numpy_products.solve(a, b)
        except Exception as e:  # noqa: BLE001 - NumPy's own refusal (float16) is fine
            assert "FusionWarning" not in type(e).__name__
    assert not fresh_solve.entries
