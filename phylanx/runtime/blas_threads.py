"""BLAS threads balanced against the runtime's task threads (issue 11, item 4).

NumPy's BLAS (OpenBLAS, MKL) starts its own threads, one per core, for every product.
The policy, setting ``blas_threads``:

* ``0`` (automatic): while ``fork_join`` runs ``k`` *like* pieces of one job
  concurrently (row tiles of a blocked pass, groups of ``add_at``, ``parallel_map``,
  conv row blocks; callers say so with ``share_blas=True``), BLAS gets
  ``max(1, cores // k)`` threads, restored when they end: each piece's products are
  small, and k single-threaded ones beat k that fight over the cores.  *Unlike*
  pieces (independent statements or operands overlapped by the policy,
  ``parallel_block``) keep all of BLAS's threads: there one piece is often a large
  product and the other small, and a product that starts on one thread stays on one
  after the small piece has ended.  ``benchmarks/blas_concurrency.py`` on this 2-core
  machine (``benchmarks/results/2026-12-03-blas-concurrency.txt``): a 1500^2 product
  beside an element-wise pass 113 ms with 2 BLAS threads vs 169 ms with 1; two
  tall-skinny products (k-means' distances) 44.6 vs 37.7 ms.
  Under MPI (``distributed/mpi_locality.py`` calls :func:`one_per_rank`) every rank keeps
  one BLAS thread: the ranks of a node already share its cores.
* ``n > 0``: BLAS always has ``n`` threads, set when the runtime starts.

threadpoolctl does the setting; it is imported on first use and, when it is missing,
nothing changes (BLAS keeps its own default).  The setting is process-wide: one BLAS
thread count is in force at a time, whichever thread asked for it.
"""
from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from .. import config

_lock = threading.Lock()
_blas: list | None = None         # threadpoolctl controllers of the BLAS libraries
_saved: int | None = None         # BLAS threads before the first open group
_extra = 0                        # concurrent pieces beyond one, over all open groups


def _calls(lib) -> tuple:
    """``(get, set)`` of the thread count of one BLAS library.

    For OpenBLAS on its own threads, its two C functions loaded through ``ctypes.PyDLL``:
    they keep the GIL, where threadpoolctl's (``ctypes.CDLL``) release it at every call and
    so hand it to a waiting worker thread (measured: +16 us per ``fork_join``).  Also,
    threadpoolctl lets only the first thread that set OpenBLAS's count change it again;
    the runtime sets it from any thread.  Other libraries: threadpoolctl's calls."""
    try:
        if lib.internal_api == "openblas" and lib.threading_layer != "openmp":
            dll = ctypes.PyDLL(lib.filepath)
            affix = (lib._symbol_prefix, lib._symbol_suffix)
            get = getattr(dll, "{}openblas_get_num_threads{}".format(*affix))
            put = getattr(dll, "{}openblas_set_num_threads{}".format(*affix))
            get.restype, put.argtypes, put.restype = ctypes.c_int, [ctypes.c_int], None
            return get, put
    except (AttributeError, OSError):   # another threadpoolctl or build: the slow way
        pass
    return (lambda: lib.num_threads), lib.set_num_threads


def _controllers() -> list:
    global _blas
    if _blas is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:      # pragma: no cover - threadpoolctl is a dependency
            _blas = []
        else:
            _blas = [_calls(c) for c in ThreadpoolController().lib_controllers
                     if c.user_api == "blas"]
    return _blas


def include_loaded_libraries() -> None:
    """Take in BLAS libraries loaded since the list was made (SciPy's, when
    ``primitives/blas_gemm.py`` first calls it), at the thread count now in force."""
    global _blas
    with _lock:
        if _blas is None:
            return
        count = _blas[0][0]() if _blas else None
        _blas = None
        if len(_controllers()) > 1 and count:
            _set(count)


def current() -> int | None:
    """BLAS threads now in force (None without BLAS or threadpoolctl)."""
    blas = _controllers()
    return blas[0][0]() if blas else None


def multithreaded() -> bool:
    """True if BLAS runs a product on several threads (outside of sharing groups)."""
    with _lock:
        saved = _saved if _extra else None
    count = saved or current()
    if count is None:        # no BLAS control: BLAS's own default, one thread per core
        return (os.cpu_count() or 1) > 1
    return count > 1


def _set(count: int) -> None:
    for _, put in _controllers():
        put(count)


def configure() -> None:
    """Apply a fixed ``blas_threads`` (n > 0); called when the runtime's pool starts."""
    fixed = int(config.get("blas_threads"))
    if fixed > 0 and _controllers():
        with _lock:
            _set(fixed)


def one_per_rank() -> None:
    """One BLAS thread for this process from now on, unless ``blas_threads`` fixes a count
    (an MPI rank: the node's ranks share its cores)."""
    if int(config.get("blas_threads")) > 0:
        configure()
    elif _controllers():
        with _lock:
            _set(1)


def share(pieces: int) -> int:
    """Start running ``pieces`` tasks concurrently: BLAS shares the cores with them,
    ``max(1, threads before // concurrent pieces)`` (automatic mode only; nesting adds
    up).  Returns what :func:`unshare` needs (0: nothing was changed)."""
    global _extra, _saved
    if pieces <= 1 or int(config.get("blas_threads")) != 0 or not _controllers():
        return 0
    with _lock:
        if _extra == 0:
            _saved = current() or os.cpu_count() or 1
        _extra += pieces - 1
        if _saved > 1:
            _set(max(1, _saved // (1 + _extra)))
    return pieces - 1


def unshare(extra: int) -> None:
    """End what :func:`share` started; the count before the first group comes back when
    the last one ends."""
    global _extra
    if extra:
        with _lock:
            _extra -= extra
            if _saved > 1:
                _set(_saved if _extra == 0 else max(1, _saved // (1 + _extra)))


@contextmanager
def sharing(pieces: int) -> Iterator[None]:
    """:func:`share` and :func:`unshare` around a block."""
    extra = share(pieces)
    try:
        yield
    finally:
        unshare(extra)
