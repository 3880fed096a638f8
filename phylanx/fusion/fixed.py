"""Hand-written numba kernels behind NumPy fast paths, under the fusion policy's rules.

Some hot patterns need one fixed loop rather than a generated one: k-means' centre sums
``np.add.at(sums, labels, points)`` are one pass over the points adding each row into
its label's row (``ADD_ROWS``), where NumPy's ``add.at`` costs about 1 us per row and
the one-hot products of ``primitives/matrixops/numpy_search.py`` a few GEMMs per tile;
the singularity check of a stacked ``solve`` (ALS) needs the LU pivots of thousands of
small matrices, where a Python loop over LAPACK's getrf costs about 20 us per matrix
(``primitives/solvers/direct.py``); ``LU_SOLVE`` gives them, and carries the
elimination on to the solution when given right-hand sides, so that a stacked ``solve``
factorises each matrix once, for its check and its result, where the check and NumPy's
solve did it twice.
A :class:`FixedKernel` is compiled like a fused region's kernel (``codegen``: a module
in the fusion cache directory, numba's on-disk cache, serial and parallel variants) and
by the same ski rental: only once the NumPy path has spent the expected compile cost
(a tenth when the disk cache holds it), in a background thread, with the NumPy path
running meanwhile; a compile failure gives one ``FusionWarning`` and NumPy for good.
Setting ``fusion_rows`` (the row passes') switches them with the row passes.
"""
from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import Any

from . import codegen
from .hot import _KERNEL_LOCK, FusionWarning, Settings, array_key, describe_failure, launch

_ADD_ROWS = """
@njit(parallel={parallel}, cache=True, nogil=True)
def {name}(index, values, k, chunks):
    # per-chunk sums; parts[c, k, 0] = 1 marks an index outside 0..k-1 (NumPy decides)
    n, d = values.shape
    parts = np.zeros((chunks, k + 1, d), dtype=values.dtype)
    size = (n + chunks - 1) // chunks
    for c in prange(chunks):
        part = parts[c]
        for i in range(c * size, min(n, (c + 1) * size)):
            row = index[i]
            if row < 0 or row >= k:
                part[k, 0] = 1
                break
            for j in range(d):
                part[row, j] += values[i, j]
    return parts
"""
ADD_ROWS = codegen.two_loops(lambda name, parallel: _ADD_ROWS.format(name=name,
                                                                     parallel=parallel))


_LU_SOLVE = """
@njit(parallel={parallel}, cache=True, nogil=True)
def {name}(stack, rhs, out, pivots, infos):
    # |u_kk| of the LU factorisation with partial pivoting of every matrix and LAPACK
    # getrf's info (1 + the first exactly zero pivot, else 0); and, for every matrix
    # without an exactly zero pivot, the solution of stack[m] @ out[m] = rhs[m]: the row
    # swaps and eliminations applied to the right-hand sides too, then back substitution
    # (rhs with 0 columns: the pivots alone, for a singularity check)
    count, n = stack.shape[0], stack.shape[1]
    columns = rhs.shape[2]
    for m in prange(count):
        a = stack[m].copy()
        b = rhs[m].copy()
        info = 0
        for k in range(n):
            p = k
            best = abs(a[k, k])
            for i in range(k + 1, n):
                v = abs(a[i, k])
                if v > best:
                    best = v
                    p = i
            pivots[m, k] = best
            if best == 0.0:
                if info == 0:
                    info = k + 1
                continue
            if p != k:
                for j in range(k, n):
                    t = a[k, j]
                    a[k, j] = a[p, j]
                    a[p, j] = t
                for j in range(columns):
                    t = b[k, j]
                    b[k, j] = b[p, j]
                    b[p, j] = t
            for i in range(k + 1, n):
                f = a[i, k] / a[k, k]
                for j in range(k + 1, n):
                    a[i, j] -= f * a[k, j]
                for j in range(columns):
                    b[i, j] -= f * b[k, j]
        infos[m] = info
        if info == 0:
            x = out[m]
            for i in range(n - 1, -1, -1):
                for j in range(columns):
                    s = b[i, j]
                    for c in range(i + 1, n):
                        s -= a[i, c] * x[c, j]
                    x[i, j] = s / a[i, i]
"""
LU_SOLVE = codegen.two_loops(lambda name, parallel: _LU_SOLVE.format(name=name,
                                                                     parallel=parallel))


def arrival_key(*arrays) -> tuple:
    """A kernel key for these arrays as the kernel will receive them, without copying:
    a non-contiguous array arrives as a writeable contiguous copy."""
    return tuple(array_key(a) if a.flags.c_contiguous else a.dtype.str for a in arrays)


class FixedKernel:
    """One hand-written kernel module, compiled per argument-type key once the NumPy
    path it replaces has paid for it; only its parallel loop (``kernel_par``) runs."""

    def __init__(self, name: str, plan: codegen.Plan):
        self.name = name
        self.plan = plan
        self.entries: dict[Any, Any] = {}      # key -> spent ns | "pending" | kernels
        self.lock = threading.Lock()
        self.cached: bool | None = None        # numba's disk cache holds the module

    def get(self, key: Any, samples: Callable[[], tuple]) -> tuple | None:
        """The compiled kernels for ``key``, or None: use NumPy (and report its time
        with :meth:`spent`).  ``samples()`` gives arguments typed like the real ones
        (called only when a compile starts)."""
        entry = self.entries.get(key)
        if type(entry) is tuple:
            return entry
        if not (Settings.rows and codegen.available()) or entry in ("pending", "failed"):
            return None
        cost = Settings.compile_cost_ns
        if self.cached is None and codegen.initialized():
            self.cached = codegen.is_cached(self.plan.source)   # once: a directory scan
        if self.cached:
            cost //= 10
        if (entry or 0) >= cost:
            self.start(key, samples)
        return None

    def spent(self, key: Any, ns: int) -> None:
        """NumPy took ``ns`` for what the kernel of ``key`` would do."""
        with self.lock:
            entry = self.entries.get(key, 0)
            if type(entry) is int:
                self.entries[key] = entry + ns

    def start(self, key: Any, samples: Callable[[], tuple]) -> None:
        with self.lock:
            if type(self.entries.get(key, 0)) is not int:
                return
            self.entries[key] = "pending"

        def work() -> None:
            try:
                self.entries[key] = codegen.compile_kernel(self.plan, samples(), serial=False)
            except Exception as e:  # any failure: NumPy keeps the job
                self.entries[key] = "failed"
                warnings.warn(f"phylanx fusion: could not compile {self.name} "
                              f"({describe_failure(e)}); running NumPy",
                              FusionWarning, stacklevel=2)

        launch(work, "phylanx-fixed-compile")

    @staticmethod
    def run(kernels: tuple, *args: Any) -> Any:
        with _KERNEL_LOCK:
            return kernels[0](*args)


add_rows = FixedKernel("the add_at row sums", ADD_ROWS)
lu_pivots = FixedKernel("the LU pivots of a stack", LU_SOLVE)   # called with no rhs columns
lu_solve = FixedKernel("the LU solve of a stack", LU_SOLVE)
