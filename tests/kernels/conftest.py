"""Fixtures of the compiled-kernel tests (phylanx/kernels/)."""
from __future__ import annotations

import pytest

from ..kernel_dirs import kept_kernel_dir


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """The kernel cache directory (``fusion_cache_dir``) of test_fixed.py, whose tests set
    the compile cost themselves: 0 (compile at once) or 1e6 ms (a tenth of that when
    numba's disk cache holds the kernel: still never paid for), so whether a kernel is
    compiled or loaded changes nothing they check; kept from run to run
    (tests/kernel_dirs.py).  test_costs.py, which measures that, has a directory of each
    test's own."""
    return kept_kernel_dir(tmp_path_factory)
