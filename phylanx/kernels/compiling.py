"""Compiling generated numba source, shared by every user of compiled kernels.

The layer below both ``primitives`` (fixed kernels behind NumPy fast paths,
Winograd convolutions) and ``fusion`` (fused regions, row passes, compiled loops):
it imports only the base modules, and numba only when a kernel is compiled, so
``import phylanx`` never loads it.

* :func:`module_from_source` / :func:`compile_kernel`: the source is written to a
  module in the cache directory named by its hash and imported once per process;
  numba's ``cache=True`` keeps the machine code beside it, so the next process loads
  instead of compiling (:func:`is_cached` tells which).  The first compile of a
  module on a host is one process's: the others wait for it and load
  (``host_lock.py``: an flock in the cache directory, bounded by ``fusion_cache_wait``).
* :func:`launch`: a compile job runs in a background thread (``fusion_background``)
  while NumPy keeps the job; :func:`wait_for_compiles` joins them (tests, exit).
* :data:`KERNEL_LOCK`: numba's default thread pool must not run two parallel kernels
  at once; :class:`FusionWarning`: the one warning of a kernel that failed.
* :class:`Settings`: the kernel settings of :mod:`phylanx.config`, read once per change.

What a compile costs, and so when one is worth starting, is measured in ``costs.py``.
"""
from __future__ import annotations

import atexit
import contextlib
import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import atomic, config
from . import host_lock


class FusionWarning(RuntimeWarning):
    """A compiled kernel could not be used (it did not compile, raised or disagreed);
    NumPy runs instead."""


class Settings:
    """The fusion settings of :mod:`phylanx.config`, read once per change."""

    enabled = True
    rows = True
    loops = True
    min_size = 4096
    count = 3
    min_ns = 20_000
    compile_cost_ns: int | None = None    # None: measured (kernels/costs.py)
    background = True
    cache_wait = 120.0

    @classmethod
    def reload(cls) -> None:
        cls.enabled = bool(config.get("fusion"))
        cls.rows = bool(config.get("fusion_rows"))
        cls.loops = bool(config.get("fusion_loops"))
        cls.min_size = int(config.get("fusion_min_size"))
        cls.count = int(config.get("fusion_count_threshold"))
        cls.min_ns = int(float(config.get("fusion_min_time_us")) * 1000)
        cost = config.get("fusion_compile_cost_ms")
        cls.compile_cost_ns = None if cost == "auto" else int(float(cost) * 1e6)
        cls.background = bool(config.get("fusion_background"))
        cls.cache_wait = float(config.get("fusion_cache_wait"))


Settings.reload()
config.on_change(Settings.reload)

#: numba's default thread pool (workqueue) must not run two parallel kernels at once;
#: each kernel uses every core anyway, so they take turns
KERNEL_LOCK = threading.Lock()
_compiles: list[threading.Thread] = []


def wait_for_compiles(timeout: float | None = 60.0) -> None:
    """Wait for the background compiles started so far (tests, benchmarks, exit), at
    most ``timeout`` seconds in all."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while _compiles:
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        _compiles.pop().join(left)
        if left == 0.0:
            break


# a daemon thread stopped inside LLVM at interpreter exit can crash the process
atexit.register(wait_for_compiles)


#: ``on`` in a background compile's thread (``launch``)
_background = threading.local()


def launch(work, name: str) -> None:
    """Run a compile job ``work()`` in a background thread (``fusion_background``; waited
    for by :func:`wait_for_compiles`), else now."""
    if Settings.background:
        def in_background() -> None:
            _background.on = True       # (its rank goes on meanwhile: no peer told)
            work()
        thread = threading.Thread(target=in_background, name=name, daemon=True)
        _compiles.append(thread)
        thread.start()
    else:
        work()


def describe_failure(e: BaseException) -> str:
    """``Type: first line`` of a compile failure, for a one-line warning."""
    text = (str(e).strip().splitlines() or [""])[0]
    return f"{type(e).__name__}: {text}"


def array_key(a: np.ndarray) -> str:
    """An array's part of a kernel signature: numba compiles read-only arrays apart
    (keyed together, a read-only operand would make it compile inside the call)."""
    return a.dtype.str if a.flags.writeable else a.dtype.str + " read-only"


@dataclass(frozen=True)
class Plan:
    """What :func:`compile_kernel` needs: the source and the kind of its result."""

    source: str
    reduction: str | None           # "sum" / "mean", or None for an element-wise result


_modules: dict[str, Any] = {}
_modules_lock = threading.Lock()
#: the directory :func:`cache_dir` chose, and what it chose it from (the setting and
#: the environment): a change of either (``config.reset`` too) chooses again
_cache_dir: tuple[tuple, Path] | None = None


def cache_dir() -> Path:
    """Where generated modules (and numba's machine code beside them) are kept:
    ``fusion_cache_dir``, else ``$XDG_CACHE_HOME/phylanx/fusion`` (``~/.cache/...``),
    else a temporary directory if that cannot be written."""
    global _cache_dir
    configured = config.get("fusion_cache_dir")
    source = (configured, os.environ.get("XDG_CACHE_HOME"), os.environ.get("HOME"))
    if _cache_dir is not None and _cache_dir[0] == source:
        return _cache_dir[1]
    base = Path(configured) if configured else Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "phylanx" / "fusion"
    try:
        base.mkdir(parents=True, exist_ok=True)
        probe = base / f".probe-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError:
        base = Path(tempfile.mkdtemp(prefix="phylanx-fusion-"))
    _cache_dir = (source, base)
    return base


def _module_path(source: str) -> Path:
    digest = hashlib.sha1(source.encode()).hexdigest()[:20]
    return cache_dir() / f"phylanx_fused_{digest}.py"


def is_cached(source: str) -> bool:
    """True if numba's on-disk cache probably holds this kernel (loaded, not compiled)."""
    path = _module_path(source)
    cached = path.parent / "__pycache__"
    return path.exists() and cached.is_dir() and any(
        p.name.startswith(path.stem) for p in cached.iterdir())


def _load(source: str):
    path = _module_path(source)
    with _modules_lock:
        module = _modules.get(str(path))
        if module is not None:
            return module
        # written once: numba stamps its index with the module's mtime, and a module
        # rewritten by a process starting later would make its kernels stale
        if not atomic.create_text(path, source) and path.read_text() != source:
            atomic.write_text(path, source)     # (not the module of its name)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        # numba's disk cache pickles references to the module's helpers by module name
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
        _modules[str(path)] = module
        return module


def module_from_source(source: str):
    """The module of generated numba ``source``, written to the cache directory named by
    its hash and imported (once per process), so that ``cache=True`` kernels in it keep
    their machine code on disk; for generated kernels outside fusion (Winograd conv),
    compiled inside :func:`first_compile`."""
    return _load(source)


def first_compile(source: str, cached: Callable[[], bool] | None = None):
    """The context to compile the kernels of ``source``'s module in: on a host, the
    first process compiles and fills numba's disk cache while the others wait, then
    load (``host_lock.first_compile``; ``cached()``: the disk cache holds them, no wait)."""
    return host_lock.first_compile(_module_path(source), Settings.cache_wait, cached)


def in_disk_cache(dispatcher, types: tuple) -> bool:
    """True if ``dispatcher`` has ``types`` compiled, or numba's disk cache holds them for
    this CPU: the key numba's ``compile`` looks up (numba's private ``_cache`` API: if
    it changes, False, and the process takes the lock as for a kernel not cached)."""
    try:
        if dispatcher.overloads.get(types) is not None:
            return True
        cache = dispatcher._cache
        key = cache._index_key(types, dispatcher.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:   # noqa: BLE001 - any change of numba's internals: not known
        return False


def _peers_told():
    """Around a compile on a rank of several: its peers' collectives wait for it (the
    host-lock wait, ``fusion_cache_wait``, plus a collective timeout's worth of compile)
    instead of failing after ``collective_timeout`` while it compiles (issue 28).  Not
    in the background (``launch``): there the rank goes on, no peer waits for it."""
    from ..runtime import hooks
    if hooks.local_work is None or getattr(_background, "on", False):
        return contextlib.nullcontext()
    # (the distributed layer adds a collective timeout's worth of compile to the bound:
    # kernels may not import it)
    return hooks.local_work(Settings.cache_wait)


def compile_kernel(plan_: Plan, sample_args: tuple, serial: bool = True) -> tuple[Any, Any]:
    """The compiled kernels (numba dispatchers: on every core, on one; the second None
    unless ``serial``) for arguments typed like ``sample_args``."""
    from . import costs
    ready, cached = initialized(), is_cached(plan_.source)
    start = costs.clock()
    import numba
    module = _load(plan_.source)
    types = tuple(numba.typeof(a) for a in sample_args)
    kernels = (module.kernel_par, module.kernel_ser) if serial else (module.kernel_par,)
    with _peers_told(), first_compile(plan_.source,
                                      lambda: all(in_disk_cache(k, types) for k in kernels)):
        for kernel in kernels:
            kernel.compile(types)
    _initialized.append(True)
    costs.compiled(plan_.source, cached, ready, costs.clock() - start)
    return module.kernel_par, module.kernel_ser if serial else None


_initialized: list[bool] = []


def initialized() -> bool:
    """True once a kernel was compiled or loaded in this process (numba's set-up, about
    0.7 s, is paid by the first one, cached or not)."""
    return bool(_initialized)


def available() -> bool:
    """True if numba can be imported (checked without importing it)."""
    return importlib.util.find_spec("numba") is not None


def numba_threads() -> int:
    """The threads a parallel kernel runs on (numba's pool: the chunks to split into)."""
    import numba
    return numba.get_num_threads()
