"""In-place reuse (runtime/inplace.py) decides "temporary" from reference counts only
where that is proven: CPython with the GIL and an exact calibration.  On a build where
it is not (free-threaded: ``sys._is_gil_enabled()`` False) nothing is reused, and the
results stay those of NumPy."""
from __future__ import annotations

import sys

import numpy as np

from phylanx.runtime import inplace

from .test_inplace import UPDATE, call, compile_fn, traced_peak


def _free_threaded(monkeypatch):
    monkeypatch.setattr(sys, "_is_gil_enabled", lambda: False, raising=False)


def test_no_reuse_without_the_gil_and_results_stay_right(monkeypatch):
    _free_threaded(monkeypatch)
    covered = []
    build = inplace.build

    def spy(node, impl, spec):
        r = build(node, impl, spec)
        covered.append((node.primitive, r is not None))
        return r
    monkeypatch.setattr(inplace, "build", spy)
    n = 100_000
    rng = np.random.default_rng(3)
    w, g = rng.normal(size=n), rng.normal(size=n)
    wc = w.copy()
    fn = compile_fn(UPDATE)
    assert any(name == "__sub" for name, _ in covered)   # the compiler asked
    assert not any(reused for _, reused in covered), covered
    # the warm loop allocates as without optimisation: no buffer was reused
    assert traced_peak(fn, w, g, 0.1, 5) >= n * 8
    ref = w.copy()
    for _ in range(5):
        ref = ref - 0.1 * g
    np.testing.assert_allclose(call(fn, w, g, 0.1, 5), ref, rtol=1e-12,
                               atol=1e-12 * np.abs(ref).max())
    np.testing.assert_array_equal(w, wc)                 # the caller's array untouched


def test_proven_only_with_the_gil_and_an_exact_calibration(monkeypatch):
    monkeypatch.setattr(sys, "_is_gil_enabled", lambda: True, raising=False)
    assert inplace.refcounts_proven() == inplace._CALIBRATED
    _free_threaded(monkeypatch)
    assert not inplace.refcounts_proven()
    assert inplace._calibration_exact(2, 3, 3)           # CPython 3.11/3.12 counts
    assert not inplace._calibration_exact(2, 3, 2)       # a second holder not counted
    assert not inplace._calibration_exact(1, 1, 2)       # passing it on not counted
