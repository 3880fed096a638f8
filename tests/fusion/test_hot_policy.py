"""The fusion policy's explicit dispatch and rank-independent choices (phylanx/fusion/hot.py).

* A kernel runs only on operands ``prepare`` accepted for its signature; an exception
  from it is a located error (a kernel bug), never a silent retry with NumPy.
* The serial and the parallel loop, chosen by local timings, give bit-identical
  results: a reduction's partial results are split by the size alone
  (``codegen.chunks``), not by the thread count.
* With several localities (``hot.in_lockstep``) nothing depends on timings: a region is
  hot after ``fusion_count_threshold`` big evaluations (by size), compiles in the
  calling thread, and keeps its checked kernel without timed turns against NumPy.

With the fixtures ``eager``/``rows`` (conftest.py) regions are hot at once; the oracle
is the undecorated function (values within 1e-12 / 1e-5 of the largest magnitude).
"""
from __future__ import annotations

import numpy as np
import pytest

from phylanx import Phylanx, config
from phylanx.errors import PhylanxError
from phylanx.fusion import hot, rowargmin, rowpass

from .. import kmeans_programs as w2

pytest.importorskip("numba")

RNG = np.random.default_rng(3)


def total(x):
    return np.sum(np.exp(x) * 2.0 - x)


def gradient(x, y, w):
    return x.T @ (1.0 / (1.0 + np.exp(-(x @ w))) - y)


#: W2 without the points' norms in the distances (the same argmin)
kmeans = w2.kmeans("no_norms")


def kernels(found, kind=hot._Kernel):
    return [e for r in found for e in r.kernels.values() if isinstance(e, kind)]


def test_a_failing_kernel_is_a_located_error_not_a_retry(eager, installed, monkeypatch):
    f = Phylanx(total)
    x = RNG.normal(size=5000)
    for _ in range(4):
        np.testing.assert_allclose(f(x), total(x), rtol=1e-12)
    assert kernels(installed)

    def broken(self, shape, n, args):
        raise IndexError("index 7 is out of bounds")
    monkeypatch.setattr(hot._Kernel, "__call__", broken)
    with pytest.raises(PhylanxError) as error:
        f(x)
    assert isinstance(error.value, IndexError)
    assert error.value.loc is not None and "fused kernel" in str(error.value)


def both_loops(cls, monkeypatch, run) -> list:
    """The results of the parallel and the serial loop on the arguments of the last
    kernel call ``run()`` makes."""
    seen = []
    real = cls.__call__
    monkeypatch.setattr(cls, "__call__", lambda self, *a: (seen.append((self, a)),
                                                           real(self, *a))[1])
    run()
    assert seen, "the kernel did not run"
    entry, call_args = seen[-1]
    results = []
    for variant in (0, 1):
        entry.kernel = entry.variants[variant]
        results.append(real(entry, *call_args))
    return results


def test_whole_array_sum_rounds_alike_on_either_loop(eager, installed, monkeypatch):
    f = Phylanx(total)
    x = RNG.normal(size=300_000)
    for _ in range(4):
        f(x)
    parallel, serial = both_loops(hot._Kernel, monkeypatch, lambda: f(x))
    assert parallel == serial
    np.testing.assert_allclose(parallel, total(x), rtol=1e-12)


def test_row_pass_rounds_alike_on_either_loop(rows, monkeypatch):
    f = Phylanx(gradient)
    x, y, w = RNG.normal(size=(60_000, 5)), RNG.random(60_000), RNG.normal(size=5)
    for _ in range(4):
        f(x, y, w)
    parallel, serial = both_loops(rowpass.RowKernel, monkeypatch, lambda: f(x, y, w))
    np.testing.assert_array_equal(parallel, serial)


def test_label_sums_round_alike_on_either_loop(rows, monkeypatch):
    f = Phylanx(kmeans)
    points = RNG.normal(size=(60_000, 3)).astype(np.float32)
    centres = RNG.normal(size=(6, 3)).astype(np.float32)
    for _ in range(4):
        f(points, centres, 2)
    parallel, serial = both_loops(rowargmin.StatsKernel, monkeypatch,
                                  lambda: f(points, centres, 2))
    np.testing.assert_array_equal(parallel.labels, serial.labels)
    np.testing.assert_array_equal(parallel.counts, serial.counts)
    np.testing.assert_array_equal(parallel.sums, serial.sums)


@pytest.fixture
def lockstep(eager, monkeypatch):
    """Several localities, and timings that would never make a region hot: no
    evaluation is slow enough to count, compiling would never be due."""
    monkeypatch.setattr(hot, "_ranks", [True], raising=False)
    monkeypatch.setattr(hot, "KEEP_SLOWER", False)
    for name, value in (("fusion_min_time_us", 1e9), ("fusion_compile_cost_ms", 1e9),
                        ("fusion_background", True), ("fusion_count_threshold", 3)):
        config.set(name, value)


def test_with_several_ranks_the_kernel_is_chosen_by_counts_alone(lockstep, installed):
    f = Phylanx(total)
    x = RNG.normal(size=20_000)
    calls = 3 + 2 + 3            # cold, plan and check, the kernel
    for _ in range(calls):
        np.testing.assert_allclose(f(x), total(x), rtol=1e-12)
    (entry,) = kernels(installed)
    assert entry.checked and entry.timed_runs >= hot.SPEED_RUNS
    assert entry.calls >= 3
    assert installed[0].state == hot.HOT
