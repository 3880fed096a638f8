"""One compile of a kernel per host (phylanx/kernels/host_lock.py): processes started
together on an empty cache compile a kernel once, the others load it from numba's disk
cache; a holder killed mid-compile, or one past ``fusion_cache_wait``, blocks no one; a
lock or cache directory that cannot be written compiles as before.

Each kernel source carries a fresh token, so its module is new (the cache is cold for
it) whatever earlier runs left; numba's dispatcher counts what it compiled
(``stats.cache_misses``) and loaded (``stats.cache_hits``).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from phylanx import config
from phylanx.kernels import compiling, host_lock

pytest.importorskip("numba")

#: a process compiling (or loading) a tiny kernel of ``token`` once the test says go
_COMPILER = """
import json, sys
import numpy as np
from phylanx import config
from phylanx.kernels import compiling
import numba
config.set("fusion_cache_dir", sys.argv[1])
source = compiling.Plan(sys.argv[2], None)
print("ready", flush=True)
sys.stdin.readline()
kernel, _ = compiling.compile_kernel(source, (np.zeros(3),), serial=False)
stats = kernel.stats
print(json.dumps({
    "compiled": sum(stats.cache_misses.values()),
    "loaded": sum(stats.cache_hits.values()),
    "result": kernel(np.arange(4.0)),
    "cached": compiling.in_disk_cache(kernel, (numba.float64[::1],)),
    "other type cached": compiling.in_disk_cache(kernel, (numba.float32[::1],)),
}), flush=True)
"""

#: a process holding a module's compile lock until it is killed
_HOLDER = """
import sys, time
from pathlib import Path
from phylanx.kernels import host_lock
with host_lock.first_compile(Path(sys.argv[1]), 0.0) as how:
    print(how, flush=True)
    time.sleep(120)
"""


def kernel_source() -> str:
    return f'''"""A test kernel, {uuid.uuid4().hex}."""
from numba import njit


@njit(cache=True)
def kernel_par(x):
    total = 0.0
    for v in x:
        total += v * v
    return total


kernel_ser = kernel_par
'''


@pytest.fixture
def cache_dir(tmp_path):
    config.set("fusion_cache_dir", str(tmp_path))
    yield tmp_path
    config.reset("fusion_cache_dir")
    config.reset("fusion_cache_wait")


def start(script: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", script, *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)


def test_processes_started_together_compile_a_kernel_once(tmp_path):
    source = kernel_source()
    processes = [start(_COMPILER, str(tmp_path), source) for _ in range(2)]
    try:
        for p in processes:
            assert p.stdout.readline().strip() == "ready"
        for p in processes:             # all at once: each would compile without the lock
            p.stdin.write("go\n")
            p.stdin.flush()
        reports = [json.loads(p.communicate(timeout=120)[0]) for p in processes]
    finally:
        for p in processes:
            p.kill()
            p.communicate()
    assert sorted((r["compiled"], r["loaded"]) for r in reports) == [(0, 1), (1, 0)]
    assert all(r["result"] == float(np.sum(np.arange(4.0) ** 2)) for r in reports)
    # the check that lets a kept kernel load without the lock sees numba's index
    assert all(r["cached"] and not r["other type cached"] for r in reports)


def test_a_holder_past_the_wait_or_killed_blocks_no_one(cache_dir):
    module = compiling._module_path(kernel_source())
    holder = start(_HOLDER, str(module))
    try:
        assert holder.stdout.readline().strip() == "held"
        begun = time.monotonic()
        with pytest.warns(host_lock.KernelCacheWarning, match="fusion_cache_wait"):
            with host_lock.first_compile(module, 0.3) as how:
                assert how == "timed out"
        assert 0.3 <= time.monotonic() - begun < 10

        outcome = {}

        def wait() -> None:
            with host_lock.first_compile(module, 60.0) as how:
                outcome["how"], outcome["at"] = how, time.monotonic()

        waiter = threading.Thread(target=wait)
        waiter.start()
        time.sleep(0.3)
        assert not outcome              # still waiting for the live holder
        os.kill(holder.pid, signal.SIGKILL)         # mid-"compile"
        killed = time.monotonic()
        waiter.join(60)
        assert outcome["how"] == "held" and outcome["at"] - killed < 5
    finally:
        holder.kill()
        holder.communicate()


def test_a_lock_or_cache_that_cannot_be_written_compiles_as_before(cache_dir, tmp_path):
    source = kernel_source()
    host_lock.lock_path(compiling._module_path(source)).mkdir()    # no lock file here
    config.set("fusion_cache_wait", 60.0)
    kernel, _ = compiling.compile_kernel(compiling.Plan(source, None), (np.zeros(3),),
                                         serial=False)
    assert kernel(np.ones(5)) == 5.0
    with host_lock.first_compile(compiling._module_path(source), 60.0) as how:
        assert how == "no lock"

    beneath_a_file = tmp_path / "a file"
    beneath_a_file.write_text("")
    config.set("fusion_cache_dir", str(beneath_a_file / "kernels"))
    kernel, _ = compiling.compile_kernel(compiling.Plan(kernel_source(), None),
                                         (np.zeros(3),), serial=False)
    assert kernel(np.ones(2)) == 2.0
    assert not Path(compiling.cache_dir()).is_relative_to(beneath_a_file)


def test_the_cache_directory_follows_the_setting_and_its_reset(tmp_path, monkeypatch):
    # a directory chosen from ``fusion_cache_dir`` was kept after ``config.reset``
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    default = tmp_path / "xdg" / "phylanx" / "fusion"
    assert compiling.cache_dir() == default
    config.set("fusion_cache_dir", str(tmp_path / "set"))
    try:
        assert compiling.cache_dir() == tmp_path / "set"
    finally:
        config.reset("fusion_cache_dir")
    assert compiling.cache_dir() == default
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "other"))
    assert compiling.cache_dir() == tmp_path / "other" / "phylanx" / "fusion"
