"""k-means' labels, counts and row sums in one pass (compiler/rewrite/label_stats.py, a
rule of the IR, and primitives/matrixops/label_stats.py).

The oracle is the undecorated NumPy function, and the same program with the rewrite
switched off.  Each test also checks whether the rewrite happened, so that a pass that
silently stopped matching (or matched where it must not) fails here.  The fused kernel
that gathers the statistics is tested in tests/fusion/test_rowargmin.py.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from phylanx import Phylanx, config
from phylanx.autodiff import grad
from phylanx.compiler.rewrite import label_stats, patterns
from phylanx.compiler.through_ir import optimize_through_ir
from phylanx.errors import PhylanxError
from phylanx.language import parser

from .. import kmeans_programs as w2
from ..autodiff.helpers import numeric_grad

RNG = np.random.default_rng(23)
N, D, K = 211, 3, 5


def rewritten_names(fn) -> set[str]:
    """Names of the calls in ``fn``'s PhySL after the rewrite pipeline (label statistics
    is a rule of the IR: ``through_ir``)."""
    program = optimize_through_ir(parser.parse(fn.get_physl_source()))
    return {e.func for top in program.body for e in patterns.walk_in_order(top)
            if type(e).__name__ == "Call"}


def data(n=N, d=D, k=K, dtype=np.float64):
    return w2.blobs(RNG, n, d, k, dtype, spread=20.0, jitter=0.5)


#: W2 as the benchmark writes it (a float64 accumulator)
kmeans = w2.kmeans("w2")


def sums_first(points, centres):
    labels = np.argmin(np.sum(centres * centres, axis=1) - 2.0 * (points @ centres.T), axis=1)
    sums = np.zeros_like(centres)
    np.add.at(sums, labels, points)
    counts = np.bincount(labels)
    return sums, counts, labels


def wide_counts(points, centres, m):
    labels = np.argmax(points @ centres.T, axis=1)
    counts = np.bincount(labels, minlength=m)
    acc = np.ones((centres.shape[0] + 2, points.shape[1]), dtype=points.dtype)
    np.add.at(acc, labels, points)
    return counts, acc


def assert_close(got, want):
    got, want = np.asarray(got), np.asarray(want)
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite], want[~finite])   # inf, -inf, nan alike
    scale = float(np.max(np.abs(want[finite]), initial=1e-30))
    np.testing.assert_allclose(got[finite], want[finite], rtol=0, atol=1e-10 * scale)


def assert_same(got, want):
    assert type(got) is type(want)
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind == "f":
        assert_close(got, want)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kmeans_is_rewritten_and_equals_numpy(dtype):
    f = Phylanx(kmeans)
    names = rewritten_names(f)
    assert {label_stats.STATS, label_stats.COUNTS, label_stats.SUMS_AT} <= names
    assert "bincount" not in names and "add_at" not in names
    points, centres = data(dtype=dtype)
    for iterations in (0, 1, 4):
        assert_same(f(points, centres, iterations), kmeans(points, centres, iterations))


def test_consumers_in_either_order_and_the_labels_kept():
    f = Phylanx(sums_first)
    assert label_stats.STATS in rewritten_names(f)
    points, centres = data()
    assert_same(f(points, centres), sums_first(points, centres))


@pytest.mark.parametrize("m", [0, 2, K, K + 3])
def test_minlength_and_an_accumulator_with_spare_rows(m):
    f = Phylanx(wide_counts)
    assert label_stats.STATS in rewritten_names(f)
    points, centres = data()
    assert_same(f(points, centres, m), wide_counts(points, centres, m))


def test_integer_points_and_a_float32_accumulator_fall_back_to_add_at():
    f = Phylanx(kmeans)
    points, centres = data()
    ints = np.rint(points).astype(np.int64)
    assert_same(f(ints, centres, 2), kmeans(ints, centres, 2))

    def mixed(points, centres):
        labels = np.argmin(points @ centres.T, axis=1)
        counts = np.bincount(labels)
        sums = np.zeros(centres.shape, dtype=np.float32)
        np.add.at(sums, labels, points)
        return counts, sums
    g = Phylanx(mixed)
    assert label_stats.STATS in rewritten_names(g)
    assert_same(g(points, centres), mixed(points, centres))


def test_non_finite_points_give_numpys_sums_and_warnings():
    points, centres = data()
    points[3, 1] = np.inf
    points[7, 1] = -np.inf
    f = Phylanx(sums_first)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        result = f(points, centres)
    with warnings.catch_warnings(record=True) as want:
        warnings.simplefilter("always")
        expected = sums_first(points, centres)
    assert_same(result, expected)
    assert sorted(str(w.message) for w in got) == sorted(str(w.message) for w in want)


def test_too_few_rows_for_the_labels_is_add_ats_error():
    def short(points, centres):
        labels = np.argmin(points @ centres.T, axis=1)
        counts = np.bincount(labels)
        sums = np.zeros((1, points.shape[1]))
        np.add.at(sums, labels, points)
        return sums, counts
    f = Phylanx(short)
    assert label_stats.STATS in rewritten_names(f)
    points, centres = data()
    with pytest.raises(PhylanxError, match="add_at") as err:
        f(points, centres)
    assert "index" in str(err.value)


def aliased(points, centres):
    labels = np.argmin(points @ centres.T, axis=1)
    counts = np.bincount(labels)
    same = points
    np.add.at(same, labels, points)
    return counts, points


def test_an_accumulator_aliasing_the_points_is_numpys_unbuffered_add():
    f = Phylanx(aliased)
    assert label_stats.STATS in rewritten_names(f)
    points, centres = data()
    got = f(points.copy(), centres)
    assert_same(got, aliased(points.copy(), centres))


def rebinds_points(points, centres):
    labels = np.argmin(points @ centres.T, axis=1)
    counts = np.bincount(labels)
    points = points * 2.0
    sums = np.zeros_like(centres)
    np.add.at(sums, labels, points)
    return counts, sums


def weighted(points, centres):
    labels = np.argmin(points @ centres.T, axis=1)
    counts = np.bincount(labels, points[:, 0])
    sums = np.zeros_like(centres)
    np.add.at(sums, labels, points)
    return counts, sums


def printed_between(points, centres):
    labels = np.argmin(points @ centres.T, axis=1)
    counts = np.bincount(labels)
    print(counts.shape)
    sums = np.zeros_like(centres)
    np.add.at(sums, labels, points)
    return counts, sums


def counts_only(points, centres):
    labels = np.argmin(points @ centres.T, axis=1)
    return np.bincount(labels)


def other_rows(points, centres):
    labels = np.argmin(points @ centres.T, axis=1)
    counts = np.bincount(labels)
    sums = np.zeros_like(centres)
    np.add.at(sums, labels, points + 1.0)
    return counts, sums


@pytest.mark.parametrize("fn", [rebinds_points, weighted, printed_between, counts_only,
                                other_rows])
def test_not_rewritten_where_the_values_could_differ(fn, capsys):
    f = Phylanx(fn)
    assert "__rows_concat" in rewritten_names(f)
    assert label_stats.STATS not in rewritten_names(f)
    points, centres = data()
    assert_same(f(points, centres), fn(points, centres))


def test_switched_off_with_cache_blocking():
    config.set("cache_blocking", False)
    try:
        f = Phylanx(kmeans)
        assert label_stats.STATS not in rewritten_names(f)
        points, centres = data()
        assert_same(f(points, centres, 2), kmeans(points, centres, 2))
    finally:
        config.reset("cache_blocking")


def centre_spread(points, centres):
    labels = np.argmin(points @ centres.T, axis=1)
    counts = np.bincount(labels, minlength=centres.shape[0])
    sums = np.zeros_like(centres)
    np.add.at(sums, labels, points)
    return np.sum(sums * centres) / np.sum(counts)


@pytest.mark.parametrize("rewrite", [True, False])
def test_gradient_through_the_rewritten_block(rewrite):
    """Autodiff compiles the expressions the rewrite replaced (``restore``); add_at's
    values get the cotangent at the places they were added to (add_at changes its
    accumulator in place: the tape records the change)."""
    config.set("cache_blocking", rewrite)
    try:
        f = Phylanx(centre_spread)
        assert (label_stats.STATS in rewritten_names(f)) == rewrite
        points, centres = data(n=40, d=2, k=3)
        for which in (0, 1):
            got = grad(f, which)(points, centres)
            want = numeric_grad(centre_spread, [points, centres], which)
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8 * np.abs(want).max())
    finally:
        config.reset("cache_blocking")


def test_a_gradient_through_other_in_place_changes_is_refused_by_name():
    def scaled(points, centres):
        labels = np.argmin(points @ centres.T, axis=1)
        sums = np.ones_like(centres)
        np.multiply.at(sums, labels, points)
        return np.sum(sums)
    f = Phylanx(scaled)
    points, centres = data(n=20, d=2, k=3)
    with pytest.raises(PhylanxError, match="ufunc_at"):
        grad(f, 0)(points, centres)


def test_a_distributed_points_array_runs_as_written():
    from phylanx import distributed as dist
    f = Phylanx(sums_first)
    points, centres = data()
    # never a tile taken for the whole: the rewritten label sums write in place (a
    # primitive with side effects), which a tiled array reaches as a located refusal
    # (issue 28: the rewrite does not yet leave tiled operands to the expression)
    import warnings
    with warnings.catch_warnings(), \
            pytest.raises(dist.PhylanxDistributionError, match="__label_sums_at"):
        warnings.simplefilter("ignore", dist.PhylanxPerformanceWarning)   # (argmin's)
        f(dist.tiled(points, name="label_stats_points"), centres)
    assert_same(tuple(np.asarray(v) for v in f(points, centres)), sums_first(points, centres))


def kmeans_labels_too(points, centres, iterations):
    """The labels used after the loop: the frontend stores them (``store``)."""
    k = centres.shape[0]
    labels = np.zeros(points.shape[0], dtype=np.int64)
    for _ in range(iterations):
        labels = np.argmin(np.sum(centres * centres, axis=1) - 2.0 * (points @ centres.T),
                           axis=1)
        counts = np.bincount(labels, minlength=k)
        sums = np.zeros((k, points.shape[1]))
        np.add.at(sums, labels, points)
        centres = sums / np.maximum(counts, 1)[:, None]
    return centres, labels


def test_labels_stored_for_use_after_the_loop_are_rewritten_too():
    f = Phylanx(kmeans_labels_too)
    assert label_stats.STATS in rewritten_names(f)
    points, centres = data()
    assert_same(f(points, centres, 3), kmeans_labels_too(points, centres, 3))


def into_accumulator(points, centres, acc):
    labels = np.argmin(points @ centres.T, axis=1)
    counts = np.bincount(labels)
    np.add.at(acc, labels, points)
    return counts, acc


def test_an_accumulator_with_values_is_added_to_exactly_as_add_at_does():
    """Row by row, as np.add.at (rounding of big values, -0.0 kept where nothing is
    added): the block sum is used only where add_at's own fast path would add one."""
    f = Phylanx(into_accumulator)
    assert label_stats.STATS in rewritten_names(f)
    points, centres = data(n=50, d=2, k=3)
    acc = np.full((3, 2), 1e16)
    acc[0] = -0.0
    points[:, :] = np.where(points > 0, 1.0, 3.0)
    got = f(points, centres, acc.copy())
    want = into_accumulator(points, centres, acc.copy())
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert np.signbit(got[1]).tolist() == np.signbit(want[1]).tolist()


def test_a_read_only_accumulator_is_add_ats_error():
    points, centres = data()
    acc = np.zeros_like(centres)
    acc.flags.writeable = False
    with pytest.raises(PhylanxError, match="add_at: .*read-only"):
        Phylanx(into_accumulator)(points, centres, acc)


def self_added(x):
    y = x * 1.0
    np.add.at(y, np.array([1, 0, 1, 2]), y)
    return np.sum(y * y * np.arange(1.0, 5.0))


def test_gradient_of_add_at_whose_values_are_its_target():
    x = np.array([0.3, -0.2, 0.5, 0.1])
    got = grad(Phylanx(self_added), 0)(x)
    np.testing.assert_allclose(got, numeric_grad(self_added, [x], 0), rtol=1e-6)
