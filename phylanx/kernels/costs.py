"""What compiling a kernel costs on this machine: the threshold of every compiled kernel.

A kernel (a fused region, a row pass, a compiled loop, a fixed kernel) is compiled once
the NumPy path it would replace has spent what compiling it is expected to cost
(:func:`due`, :func:`expected_ns`): the ski-rental rule, so a program that stops early never paid
more than about twice what it would have without kernels.  The expected cost is
measured here rather than assumed (setting ``fusion_compile_cost_ms``, ``auto``):

* **compile**: a kernel numba's disk cache does not hold (prior: 1 s);
* **load**: one it holds (prior: 0.1 s): the next process loads the machine code;
* **set-up**: numba's import and first kernel in a process (prior: 0.7 s), paid once per
  process, cached kernels or not.

Each is a running estimate (a new measurement weighs ``WEIGHT``), kept in the cache
directory (``costs.json``) so that the next process starts from this machine's figures.
Compiles that paid numba's set-up are not counted as compiles.

The set-up that every first kernel of a process pays is started early: once a kernel's
NumPy path has spent a tenth of it (:func:`due`, ``WARM_FRACTION``: a program that stops
sooner never pays it) numba is set up in a background thread (:func:`warm_up`, with
``fusion_background``), so by the time the kernel is due numba is ready and a kernel in
the disk cache costs only its load (tens of milliseconds of NumPy, not the second it was
charged when the set-up was counted in).  The set-up runs beside the program, on another
core where there is one; a program that ends meanwhile waits for it at exit (numba must
not be stopped inside LLVM).  Without a background thread the set-up is added to the
first kernel's cost.

With a number of milliseconds for ``fusion_compile_cost_ms`` that number is the cost, a
tenth of it for a kernel in the disk cache once numba is set up (the rule before the
costs were measured; tests use 0 and "never").
"""
from __future__ import annotations

import threading
from time import perf_counter_ns
from typing import Any

import numpy as np

from .. import atomic, config
from . import compiling

#: the clock of every measurement here (tests replace it: a fake clock)
clock = perf_counter_ns

#: the estimates before anything is measured (ns)
PRIOR_NS = {"compile": 1_000_000_000, "load": 100_000_000, "setup": 700_000_000}
#: the weight of a new measurement in a running estimate
WEIGHT = 0.5
#: numba's set-up starts once a kernel's NumPy path has spent this share of it
WARM_FRACTION = 0.1
#: the file of the estimates, in the cache directory
FILE = "costs.json"

#: a kernel numba compiles or loads once to set itself up (``warm_up``)
WARM_SOURCE = '''import numba


@numba.njit(cache=True)
def kernel_par(x):
    return x + 1.0


kernel_ser = kernel_par
'''

_lock = threading.Lock()
#: (the cache-directory setting they were read for, the estimates)
_estimates: list[Any] = [None, None]
#: source -> numba's disk cache holds it (a directory scan, once per source)
_cached: dict[str, bool] = {}
#: numba's set-up was started in the background
_warming = [False]


def due(source: str, spent_ns: int) -> bool:
    """True if the kernel of ``source`` is worth compiling now that the NumPy path it
    would replace has spent ``spent_ns``: at least its expected cost.  Past a tenth of
    numba's set-up (``WARM_FRACTION``), that set-up is started in the background."""
    if (not _warming[0] and compiling.Settings.compile_cost_ns is None
            and spent_ns >= WARM_FRACTION * _current()["setup"]):
        warm_up()
    return spent_ns >= expected_ns(source)


def expected_ns(source: str) -> int:
    """What compiling the kernel of ``source`` is expected to cost now (ns)."""
    cached = _cached.get(source)
    if cached is None:
        cached = _cached[source] = compiling.is_cached(source)
    fixed = compiling.Settings.compile_cost_ns
    if fixed is not None:
        return fixed // 10 if cached and compiling.initialized() else fixed
    estimates = _current()
    cost = estimates["load" if cached else "compile"]
    if not (_warming[0] or compiling.initialized()):
        cost += estimates["setup"]
    return cost


def warm_up() -> None:
    """Set numba up in a background thread (once per process; only with
    ``fusion_background`` and numba installed), measuring what it took."""
    if _warming[0] or not compiling.Settings.background or not compiling.available():
        return
    with _lock:
        if _warming[0]:
            return
        _warming[0] = True

    def work() -> None:
        ready = compiling.initialized()
        start = clock()
        try:
            compiling.compile_kernel(compiling.Plan(WARM_SOURCE, None), (np.zeros(1),),
                                     serial=False)
        except Exception:  # noqa: BLE001 - the first real kernel reports its own failure
            return
        if not ready:
            record("setup", clock() - start)

    compiling.launch(work, "phylanx-numba-set-up")


def compiled(source: str, was_cached: bool, numba_was_ready: bool, elapsed_ns: int) -> None:
    """``compiling.compile_kernel`` compiled (or loaded, ``was_cached``) ``source`` in
    ``elapsed_ns``; a compile that set numba up is not a kernel's cost."""
    _cached[source] = True
    if numba_was_ready and source != WARM_SOURCE:
        record("load" if was_cached else "compile", elapsed_ns)


def record(kind: str, elapsed_ns: int) -> None:
    """One measurement of ``kind`` (compile, load, setup): the running estimate moves
    towards it and is written to the cache directory."""
    import json  # (not at import: ``import phylanx`` and a first call never need it)
    with _lock:
        estimates = dict(_current())
        estimates[kind] = max(1, int((1 - WEIGHT) * estimates[kind] + WEIGHT * elapsed_ns))
        _estimates[1] = estimates
        try:
            atomic.write_text(compiling.cache_dir() / FILE, json.dumps(estimates))
        except OSError:
            pass    # a cache directory that cannot be written: this process keeps them


def estimates() -> dict[str, int]:
    """The current estimates (ns), by kind."""
    return dict(_current())


def _current() -> dict[str, int]:
    setting = config.get("fusion_cache_dir")
    if _estimates[0] != setting or _estimates[1] is None:
        _estimates[:] = [setting, _read()]
    return _estimates[1]


def _read() -> dict[str, int]:
    """The estimates kept in the cache directory, else the priors."""
    import json
    estimates = dict(PRIOR_NS)
    try:
        kept = json.loads((compiling.cache_dir() / FILE).read_text())
    except (OSError, ValueError):
        return estimates
    if isinstance(kept, dict):
        for kind in estimates:
            value = kept.get(kind)
            if type(value) is int and value > 0:
                estimates[kind] = value
    return estimates


def forget() -> None:
    """Drop what this process knows (tests: a new process)."""
    with _lock:
        _estimates[:] = [None, None]
        _cached.clear()
        _warming[0] = False
