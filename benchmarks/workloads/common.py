"""What a workload hands to the harness: a :class:`Case` and its peers' setups.

A peer's *setup* is a function of no arguments doing the untimed work (converting data
to the peer's arrays, jit-compiling, building a model) and returning the *runner*: a
function of no arguments whose call is what gets timed and whose return value is
checked against NumPy's.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Setup = Callable[[], Callable[[], Any]]


@dataclass
class Case:
    workload: str            # "W1" ... "W6": what --only selects
    name: str                # a row of the results table
    setups: dict[str, Setup]  # peer name -> setup; "numpy" is the reference
    tol: float = 1e-6        # max |peer - numpy| / max |numpy| allowed, per array
    why_missing: dict[str, str] = field(default_factory=dict)  # peer -> why not written
    compare: Callable[[Any], Any] | None = None  # what of a result is compared (W4: updates)


def optional(module: str):
    """The module, or None when it is not installed (the harness reports the skip)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def jax_x64():
    """JAX with float64 enabled (its default is float32, which would not agree)."""
    jax = optional("jax")
    if jax is not None:
        jax.config.update("jax_enable_x64", True)
        jax.config.update("jax_platforms", "cpu")
    return jax


def as_arrays(value: Any) -> list[np.ndarray]:
    """A result (array, tuple, list, torch tensor, jax array, scalar) as NumPy arrays."""
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in as_arrays(v)]
    if hasattr(value, "detach"):                 # torch tensor
        value = value.detach().cpu().numpy()
    return [np.asarray(value)]


def max_rel_err(got: Any, want: Any) -> float:
    """Largest |got - want| relative to the magnitude of the reference data, over arrays."""
    got, want = as_arrays(got), as_arrays(want)
    if len(got) != len(want):
        return float("inf")
    worst = 0.0
    for g, w in zip(got, want):
        if g.shape != w.shape:
            return float("inf")
        w64, g64 = w.astype(np.float64), g.astype(np.float64)
        # a NaN or an infinity agrees only with the same at the same place (Python's
        # max over a NaN keeps what it had: a NaN result would pass as no error)
        equal = (g64 == w64) | (np.isnan(g64) & np.isnan(w64))
        if not np.all(equal | (np.isfinite(g64) & np.isfinite(w64))):
            return float("inf")
        finite = np.abs(w64[np.isfinite(w64)])
        scale = max(float(np.max(finite, initial=0.0)), 1e-300)
        diff = np.abs(np.where(equal, 0.0, g64) - np.where(equal, 0.0, w64))
        worst = max(worst, float(np.max(diff, initial=0.0)) / scale)
    return worst


def settled(run: Callable[[], Any], seconds: float = 3.0, calls: int = 400) -> Callable[[], Any]:
    """``run`` after phylanx's adaptive kernels have settled on the full data.

    The row passes (``phylanx/fusion``) compile a kernel only once the NumPy evaluation
    has spent the expected compile cost, in the background, then check and time it: a
    steady state reached after a few calls (a compiled loop, ``fusion/loops.py``, after
    about a second of calls: W1 small's 20 ms calls need dozens).  Called here (at
    least twice, at most ``calls`` times, for about ``seconds``, waiting for background
    compiles after each)
    as JAX's jit compile runs in its setup: the timed runs are the steady state, and the
    setup's duration (``setup_s`` in the JSON, in the ``.md``) shows what getting there
    cost."""
    import time

    from phylanx.fusion import settling, wait_for_compiles
    start = time.perf_counter()
    for i in range(calls):
        run()
        wait_for_compiles()
        spent = time.perf_counter() - start
        # a compiled loop on trial runs the tree beside it: not the steady state yet
        if i >= 1 and spent >= seconds and (not settling() or spent >= 10 * seconds):
            break
    return run


def median_ms(fn: Callable[[], Any], repeat: int) -> float:
    """Median milliseconds of ``repeat`` calls of ``fn`` after one untimed call."""
    import time
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)) * 1e3


def median_cpu_us(fn: Callable[[], Any], calls: int) -> float:
    """Median CPU microseconds (``time.process_time``) of ``calls`` calls of ``fn``."""
    import time
    times = []
    for _ in range(calls):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return float(np.median(times)) * 1e6


def first_call_under(pipeline: str | None, run: Callable[[], Any]) -> Any:
    """``run()`` with the config key ``pipeline`` (``PHYLANX_PIPELINE``) set to
    ``pipeline`` (None: as configured).  A decorated function compiles at its first call
    and keeps that program, so its later calls run what this pipeline compiled: two
    functions compiled so may be timed side by side in one process."""
    if pipeline is None:
        return run()
    from phylanx import config
    config.set("pipeline", pipeline)
    try:
        return run()
    finally:
        config.reset("pipeline")
