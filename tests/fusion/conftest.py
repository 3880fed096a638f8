"""Fixtures of the row-pass tests (phylanx/fusion/rowpass.py, rowargmin.py)."""
from __future__ import annotations

import pytest

from phylanx import config
from phylanx.fusion import hot, rowpass

from ..kernel_dirs import kept_kernel_dir


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A kernel directory of the module's own, for tests whose policy reads what the
    directory holds (the measured compile costs of ``costs.json``, cached or not)."""
    return str(tmp_path_factory.mktemp("rowpass-cache"))


@pytest.fixture(scope="session")
def kernel_dir(tmp_path_factory):
    """One kernel directory for every test that compiles at once (``eager``, ``rows``,
    test_loops' ``compiled``: compile cost 0, so the policy never reads the directory),
    kept from run to run and shared by the pytest-xdist workers (tests/kernel_dirs.py):
    a kernel of the same source (a phrasing's loop, the k-means pass of several files) is
    compiled once, then loaded from numba's disk cache, as a user's second process does.
    Compiling is what these files spent their time on (1-18 s of CPU a kernel); each
    test checks the kernel's results, not that it was compiled afresh."""
    return kept_kernel_dir(tmp_path_factory)


@pytest.fixture
def rows(kernel_dir, monkeypatch):
    """Every row pass hot at once: no thresholds, any size, compiled in the calling
    thread, kept even when slower than NumPy and not re-checked when its cost moves (so
    the kernel is what runs: on a busy machine a kernel call descheduled for a moment
    moved the kernel's cost past ``choices.COST_FACTOR``, and each re-check ran NumPy
    instead; tests/fusion/test_policy_costs.py tests the re-check itself)."""
    for name, value in (("fusion_rows", True), ("fusion_count_threshold", 1),
                        ("fusion_min_time_us", 0.0), ("fusion_compile_cost_ms", 0.0),
                        ("fusion_background", False), ("fusion_cache_dir", kernel_dir)):
        config.set(name, value)
    monkeypatch.setattr(hot, "KEEP_SLOWER", True)
    monkeypatch.setattr(hot.FusedRegion, "cost_moved_kept", lambda self, entry: None)
    monkeypatch.setattr(rowpass, "MIN_ELEMENTS", 1)
    yield
    for name in ("fusion_rows", "fusion_count_threshold", "fusion_min_time_us",
                 "fusion_compile_cost_ms", "fusion_background", "fusion_cache_dir"):
        config.reset(name)


@pytest.fixture
def installed(monkeypatch):
    """The fusing closures the compiler installs from now on."""
    from phylanx import fusion
    found = []
    original = fusion.install
    monkeypatch.setattr(fusion, "install", lambda body: found.extend(original(body))
                        or found)
    return found


@pytest.fixture
def eager(kernel_dir, monkeypatch):
    """Every region hot at once (no thresholds, compiled in the calling thread, kept even
    when slower): element-wise chains (``fusion``) and row reductions alike."""
    names = ("fusion", "fusion_rows", "fusion_count_threshold", "fusion_min_time_us",
             "fusion_compile_cost_ms", "fusion_min_size", "fusion_background",
             "fusion_cache_dir")
    for name, value in zip(names, (True, True, 1, 0.0, 0.0, 1, False, kernel_dir)):
        config.set(name, value)
    monkeypatch.setattr(hot, "KEEP_SLOWER", True)
    yield
    for name in names:
        config.reset(name)
