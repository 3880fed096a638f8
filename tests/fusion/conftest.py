"""Fixtures of the row-pass tests (phylanx/fusion/rowpass.py, rowargmin.py)."""
from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from phylanx import config
from phylanx.fusion import hot, rowpass


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A kernel directory of the module's own, for tests whose policy reads what the
    directory holds (the measured compile costs of ``costs.json``, cached or not)."""
    return str(tmp_path_factory.mktemp("rowpass-cache"))


@pytest.fixture(scope="session")
def kernel_dir(tmp_path_factory):
    """One kernel directory for every test that compiles at once (``eager``, ``rows``,
    test_loops' ``compiled``: compile cost 0, so the policy never reads the directory),
    kept from run to run and shared by the pytest-xdist workers: a kernel of the same
    source (a phrasing's loop, the k-means pass of several files) is compiled once, then
    loaded from numba's disk cache, as a user's second process does.  Compiling is what
    these files spent their time on (1-18 s of CPU a kernel); each test checks the
    kernel's results, not that it was compiled afresh.

    Loading cannot give a stale kernel: a generated module is named by the hash of its
    whole source and imports nothing of phylanx (numba, NumPy and math only), and numba
    keys its cache by its own version and the CPU.  ``PHYLANX_TEST_KERNELS=fresh``
    compiles every kernel anew (a directory of this run's own)."""
    if os.environ.get("PHYLANX_TEST_KERNELS", "") == "fresh":
        return str(tmp_path_factory.mktemp("fusion-kernels"))
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    path = base / "phylanx" / "fusion-tests"
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".probe-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError:                     # a read-only home: this run's own directory
        return str(tmp_path_factory.mktemp("fusion-kernels"))
    _assert_self_contained(path)
    return str(path)


#: what a generated kernel module may import for its disk cache to stay exact
_KERNEL_IMPORTS = {"numpy", "numba", "math"}


def _assert_self_contained(path: Path) -> None:
    """Every generated module kept in ``path`` imports only :data:`_KERNEL_IMPORTS`:
    numba does not notice a change in code a cached kernel calls from another module, so
    such an import would let a run test the machine code of an older phylanx."""
    for module in path.glob("phylanx_fused_*.py"):     # not a hidden temp file
        for node in ast.walk(ast.parse(module.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or "."] if isinstance(node, ast.ImportFrom) else [])
            outside = [n for n in names if n.split(".")[0] not in _KERNEL_IMPORTS]
            if outside or getattr(node, "level", 0):
                raise AssertionError(
                    f"{module} imports {outside or names}: a kernel kept from run to run "
                    f"may import only {sorted(_KERNEL_IMPORTS)} (PHYLANX_TEST_KERNELS="
                    "fresh compiles anew)")


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
