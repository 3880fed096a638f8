"""OpenBLAS's idle threads told to sleep soon after a product (imported first by phylanx).

After every multi-threaded product OpenBLAS's worker threads spin, waiting for the next
one, for ``2**28`` cycles (about 0.1 s) before they sleep, on the cores that our task
threads and compiled parallel loops need next.  Measured at W3's size (ALS, 2 cores,
``python benchmarks/als_parts.py``, ``benchmarks/results/2026-12-04-als-parts.txt``):
the compiled stacked solve right after a 2000 x 2000 product took 35.3/40.7 ms with
OpenBLAS's default and 21.6/34.3 ms with this setting (docs/performance.md).
``2**18`` cycles (about 0.1 ms) keeps back-to-back products from waking sleeping
threads.

OpenBLAS reads the variable when it loads, so this takes effect only when phylanx is
imported before NumPy (and in every process started from this one: ``phylanx run``'s
ranks, the benchmarks' children); a value the user set is kept.  Export
``OPENBLAS_THREAD_TIMEOUT=18`` to have it in a script that imports NumPy first.
"""
from __future__ import annotations

import os

#: log2 of the cycles an idle OpenBLAS thread spins before it sleeps
SPIN_LOG2_CYCLES = "18"

os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", SPIN_LOG2_CYCLES)
