"""Fused argmin/argmax row passes (phylanx/fusion/rowargmin.py): k-means' labels.

With the fixture ``rows`` (conftest.py) every ``__rows_concat`` the cache-blocking
rewrite builds is hot at once, so its kernel runs; the oracle is NumPy's argmin of the
same expression (labels may differ only at ties within rounding, which the check
allows and these data avoid except where a test makes exact ties).
"""
from __future__ import annotations

import time
import warnings

import numpy as np
import pytest

from phylanx import Phylanx, fusion
from phylanx.errors import PhylanxError
from phylanx.fusion import hot, rowargmin

from .. import kmeans_programs as w2
from ..kmeans_programs import labels

pytest.importorskip("numba")

RNG = np.random.default_rng(8)


def kernel_calls(found) -> int:
    return sum(e.calls for p in found if isinstance(p, rowargmin.RowArgmin)
               for e in p.kernels.values() if isinstance(e, rowargmin.ArgKernel))


def nearest_far(points, centres):
    return np.argmax(np.sum(centres * centres, axis=1) - 2.0 * (points @ centres.T), axis=1)


def blobs(n, d, k, dtype="float64"):
    return w2.blobs(RNG, n, d, k, dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n,d,k", [(1, 1, 1), (50, 3, 1), (5, 2, 3), (400, 2, 8),
                                   (333, 16, 5), (40000, 20, 8), (3000, 70, 64)])
def test_kmeans_labels_match_numpy(rows, installed, dtype, n, d, k):
    f = Phylanx(labels)
    for _ in range(5):
        points, centres = blobs(n, d, k, dtype)
        np.testing.assert_array_equal(f(points, centres), labels(points, centres))
    assert kernel_calls(installed) >= 3


def test_argmax_and_operands_of_every_shape(rows, installed):
    """Each operand shape of ``f`` (a (k,) row, a (1, k) row, an (n, 1) column, an
    (n, k) matrix, a number) is taken by a checked kernel, which computes some of that
    shape's calls.  Which calls it computes is the policy's: a (1, k) row is the (k,)
    row's signature, so its calls are that kernel's warm-up and first timed turns, one
    of which is NumPy's (``hot.TURNS`` times NumPy second, so that a hopeless kernel
    ends its turns early); a total of kernel calls over all shapes would count the turn
    order, not the shapes (it dropped from 10 to 9 when NumPy's turn moved)."""
    def scores(points, centres, bias, weight):
        return np.argmax(weight * (points @ centres.T) + bias - 0.5, axis=1)

    f = Phylanx(scores)
    n, d, k = 300, 4, 6
    computed = {}
    for bias in (RNG.normal(size=k), RNG.normal(size=(1, k)), RNG.normal(size=(n, 1)),
                 RNG.normal(size=(n, k)), 1.5):
        before = kernel_calls(installed)
        for _ in range(3):                       # (cold,) plan, check, warm-up
            points, centres = blobs(n, d, k)
            np.testing.assert_array_equal(f(points, centres, bias, 2.0),
                                          scores(points, centres, bias, 2.0))
        computed[np.shape(bias)] = kernel_calls(installed) - before
    assert all(computed.values()), f"kernel calls per operand shape: {computed}"
    (found,) = [p for p in installed if isinstance(p, rowargmin.RowArgmin)]
    assert all(isinstance(e, rowargmin.ArgKernel) and e.checked
               for e in found.kernels.values())


def test_a_row_pass_far_slower_than_numpy_ends_its_turns_after_numpys(rows, installed,
                                                                       monkeypatch):
    """A row pass takes the timed turns of every region (``hot.TURNS``): the first
    serial turn, then NumPy's, and a serial loop slower than NumPy by more than the
    thread count gives the region back to NumPy after ``HOPELESS_AFTER`` slow calls,
    not after all the turns (why a shape's third call may be NumPy's, above)."""
    monkeypatch.setattr(hot, "KEEP_SLOWER", False)
    f = Phylanx(labels)
    points, centres = blobs(400, 2, 8)
    for _ in range(4):                           # cold, plan + compile, check, warm-up
        np.testing.assert_array_equal(f(points, centres), labels(points, centres))
    (found,) = [p for p in installed if isinstance(p, rowargmin.RowArgmin)]
    (entry,) = found.kernels.values()
    assert isinstance(entry, rowargmin.ArgKernel)
    assert entry.checked and entry.warm and entry.timed_runs == 0

    slow_calls = [0]

    def slowed(kernel):
        def slow(*args):
            slow_calls[0] += 1
            time.sleep(0.05)                     # NumPy needs microseconds here
            return kernel(*args)
        return slow
    entry.variants = tuple(slowed(v) for v in entry.variants)
    for _ in range(hot.SPEED_RUNS):
        np.testing.assert_array_equal(f(points, centres), labels(points, centres))
    assert found.state == hot.OFF
    assert slow_calls[0] == hot.HOPELESS_AFTER
    assert entry.timed_runs == hot.SPEED_RUNS


def test_ties_and_nans_like_numpy(rows, installed):
    f = Phylanx(nearest_far)
    points = np.zeros((50, 3))                     # every centre equally far: index 0
    centres = np.ones((4, 3))
    centres[2] = np.nan                            # ... except a NaN row, which wins
    for _ in range(4):
        np.testing.assert_array_equal(f(points, centres), nearest_far(points, centres))
    points[7, 1] = np.nan
    np.testing.assert_array_equal(f(points, centres), nearest_far(points, centres))
    assert kernel_calls(installed) >= 3


@pytest.mark.parametrize("case", ["int points", "strided", "3-d operand"])
def test_other_operands_run_numpy(rows, installed, case):
    def shifted(points, centres, extra):
        return np.argmin(points @ centres.T + extra, axis=1)

    points, centres = blobs(200, 3, 4)
    extra = 0.0
    if case == "int points":
        points = points.astype(np.int64)
    elif case == "strided":
        points = np.repeat(points, 2, axis=1)[:, ::2]
    else:
        extra = np.zeros((1, 1, 4))
    f = Phylanx(shifted)
    for _ in range(4):
        np.testing.assert_array_equal(f(points, centres, extra),
                                      shifted(points, centres, extra))
    assert kernel_calls(installed) == 0


def test_errors_are_those_of_numpy_evaluation(rows):
    f = Phylanx(labels)
    points, centres = blobs(60, 3, 4)
    for _ in range(3):
        f(points, centres)
    with pytest.raises(PhylanxError) as fused:
        f(points, centres[:, :2])
    with pytest.raises(PhylanxError) as plain:
        Phylanx(labels)(points, centres[:, :2])
    assert str(fused.value) == str(plain.value)


def test_a_disagreeing_kernel_is_dropped_with_one_warning(rows, installed, monkeypatch):
    monkeypatch.setattr(rowargmin.ArgKernel, "__call__",
                        lambda self, shape, n, args: (np.arange(args[0].shape[0]) + 1)
                        % args[1])
    f = Phylanx(labels)
    points, centres = blobs(100, 2, 5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(5):
            np.testing.assert_array_equal(f(points, centres), labels(points, centres))
    assert len([c for c in caught if c.category is fusion.FusionWarning]) == 1
    passes = [p for p in installed if isinstance(p, rowargmin.RowArgmin)]
    assert list(passes[0].kernels.values()) == [hot._REJECTED]


# -- the same pass gathering each label's count and row sum (k-means' update) ----------

#: W2 with the sums in the points' dtype and the centres cast back to it (float32 /
#: int64 is float64 in NumPy): every iteration is float32
kmeans = w2.kmeans("cast_back")


def stats_calls(found) -> int:
    return sum(e.calls for p in found if isinstance(p, rowargmin.RowArgmin) and p.stats
               for e in p.kernels.values() if isinstance(e, rowargmin.StatsKernel))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n,d,k", [(1, 1, 1), (7, 2, 3), (500, 2, 8), (300, 9, 4),
                                   (60000, 12, 6), (2000, 70, 64)])
def test_kmeans_counts_and_sums_in_the_labels_pass(rows, installed, dtype, n, d, k):
    """Each block's product is one BLAS call: 60000 x 12 x 6 has blocks of 3640 rows,
    several per chunk of up to 8 threads, the last one short; 70 x 64 blocks of 58 rows
    (a block's product at most 2^18 multiplications)."""
    f = Phylanx(kmeans)
    rtol = 1e-4 if dtype == "float32" else 1e-10
    for _ in range(4):
        points, centres = blobs(n, d, k, dtype)
        want = kmeans(points, centres, 3)
        got = f(points, centres, 3)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=0, atol=rtol * np.abs(want).max())
    assert stats_calls(installed) >= 3


def test_non_finite_points_give_numpys_sums(rows, installed):
    f = Phylanx(kmeans)
    points, centres = blobs(80, 2, 3)
    for _ in range(3):
        f(points, centres, 2)                      # hot, compiled and checked
    points[5] = [np.inf, 1.0]
    points[9, 1] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = kmeans(points, centres, 2)
        got = f(points, centres, 2)
    np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-10)
    assert stats_calls(installed) >= 2


def test_wrong_gathered_counts_are_dropped_with_one_warning(rows, installed, monkeypatch):
    real = rowargmin.StatsKernel.__call__

    def miscounting(self, shape, n, args):
        stats = real(self, shape, n, args)
        stats.counts = stats.counts + 1
        return stats
    monkeypatch.setattr(rowargmin.StatsKernel, "__call__", miscounting)
    f = Phylanx(kmeans)
    points, centres = blobs(120, 2, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(5):
            want = kmeans(points, centres, 2)
            np.testing.assert_allclose(f(points, centres, 2), want, rtol=1e-12)
    assert [str(c.message) for c in caught if c.category is fusion.FusionWarning] == [
        next(str(c.message) for c in caught if "counts" in str(c.message))]
    passes = [p for p in installed if isinstance(p, rowargmin.RowArgmin)]
    assert list(passes[0].kernels.values()) == [hot._REJECTED]


def test_gathered_sums_replace_add_at_on_big_inputs(rows, installed, monkeypatch):
    """From add_at's fast-path size on (4096 rows), the consumer adds the kernel's sums
    and add_at does not run."""
    from phylanx.primitives.matrixops import label_stats
    calls = []
    real = label_stats.add_at
    monkeypatch.setattr(label_stats, "add_at", lambda *a: calls.append(1) or real(*a))
    f = Phylanx(kmeans)
    points, centres = blobs(5000, 2, 4)
    for _ in range(4):
        want = kmeans(points, centres, 2)
        np.testing.assert_allclose(f(points, centres, 2), want, rtol=0,
                                   atol=1e-10 * np.abs(want).max())
    assert stats_calls(installed) >= 3
    before = len(calls)
    f(points, centres, 2)
    assert len(calls) == before                  # the steady state: no add_at at all
