"""runtime/malloc_reuse.py: glibc's thresholds set once, and only when wanted."""
from __future__ import annotations

import ctypes
import platform

import pytest

from phylanx import config
from phylanx.runtime import malloc_reuse

GLIBC = platform.libc_ver()[0] == "glibc"


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(malloc_reuse, "_applied", None)
    for key in [k for k in __import__("os").environ
                if k == "GLIBC_TUNABLES" or k.startswith("MALLOC_")]:
        monkeypatch.delenv(key)
    yield
    config.reset("malloc_reuse")


def test_applied_once_on_glibc(fresh, monkeypatch):
    calls = []
    real = ctypes.CDLL

    class Recording:
        def __init__(self, name):
            self._libc = real(name)
            self.gnu_get_libc_version = self._libc.gnu_get_libc_version

        def mallopt(self, param, value):
            calls.append((param, value))
            return self._libc.mallopt(param, value)
    if not GLIBC:
        pytest.skip("glibc only: other C libraries are left alone (tested below)")
    monkeypatch.setattr(malloc_reuse.ctypes, "CDLL", Recording)
    assert malloc_reuse.apply() is True
    assert malloc_reuse.apply() is True
    assert calls == [(-3, malloc_reuse.MMAP_BYTES), (-1, malloc_reuse.TRIM_BYTES)]


def test_off_when_the_setting_is_off(fresh):
    config.set("malloc_reuse", False)
    assert malloc_reuse.apply() is False


def test_left_alone_when_the_user_tuned_malloc(fresh, monkeypatch):
    monkeypatch.setenv("MALLOC_ARENA_MAX", "2")
    assert malloc_reuse.apply() is False


def test_left_alone_without_glibc(fresh, monkeypatch):
    class NotGlibc:
        def __init__(self, name):
            pass
    monkeypatch.setattr(malloc_reuse.ctypes, "CDLL", NotGlibc)
    assert malloc_reuse.apply() is False


def test_applied_by_an_evaluation_that_never_starts_the_pool(fresh):
    """A straight-line function (a loss, its gradient) runs on the calling thread and
    never starts the task pool; until bwd30 the thresholds were set only when the pool
    started, so such a program paid fresh pages on every call."""
    import numpy as np

    import phylanx
    from phylanx import Phylanx

    @Phylanx
    def loss(w):
        return np.sum(w * w)

    assert malloc_reuse._applied is None
    loss(np.ones(3))
    assert malloc_reuse._applied is (True if GLIBC else False)
    malloc_reuse._applied = None
    assert np.allclose(phylanx.grad(loss)(np.ones(3)), 2.0)
    assert malloc_reuse._applied is (True if GLIBC else False)
