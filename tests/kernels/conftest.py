"""Fixtures of the compiled-kernel tests (phylanx/kernels/)."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A kernel cache directory of this module's own (``fusion_cache_dir``)."""
    return str(tmp_path_factory.mktemp("kernel-cache"))
