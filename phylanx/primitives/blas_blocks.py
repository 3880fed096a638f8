"""Large BLAS work split into row blocks run as phylanx tasks (conv_gemm's per-tap products).

Why: a convolution is many small products (one per kernel tap, 64 columns or so), which
a multi-threaded BLAS runs poorly; blocks of rows run as tasks instead, one level of
parallelism, ours:

* :func:`rows` runs work whose rows are independent as ``BLOCKS_PER_THREAD`` blocks per
  pool thread under one ``fork_join`` (idle workers and the waiting thread take them;
  several blocks per thread balance cores another process also uses);
* the blocks are *like* pieces (``share_blas=True``): while they run, BLAS has
  ``max(1, cores // blocks)`` threads, one here (``runtime/blas_threads.py``).

Work below ``MIN_FLOPS`` runs as one call (a task costs tens of microseconds), and so
does everything when the pool has one thread or ``sync_execution`` is set.  A single
large product is *not* split (``dot``/``matmul`` call BLAS once): it runs faster on
BLAS's own threads.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from ..runtime.executors import get_executor
from ..runtime.forkjoin import fork_join

#: flops (2 m n k) from which work is split into blocks
MIN_FLOPS = 8_000_000
#: blocks per pool thread (> 1: a thread that got a shared core does less of the work;
#: ``python benchmarks/conv_step.py``: W5's conv + VJP 25.7-27.3 ms with 4, 26.6-28.6
#: with 2, 26.4-27.5 with 8, on a VM whose second core other guests often share)
BLOCKS_PER_THREAD = 4
#: fewest rows of a block (BLAS is efficient from a few dozen rows on)
MIN_ROWS = 32


def block_bounds(count: int, flops: float) -> list[tuple[int, int]]:
    """Row ranges for a product of ``count`` rows and ``flops`` work: one range when it
    is not worth splitting."""
    executor = get_executor()
    threads = executor.num_threads
    if threads < 2 or flops < MIN_FLOPS or count < 2 * MIN_ROWS:
        return [(0, count)]
    # a block is at least half of MIN_FLOPS: a task costs tens of microseconds
    blocks = max(2, min(threads * BLOCKS_PER_THREAD, count // MIN_ROWS,
                        int(flops // (MIN_FLOPS // 2))))
    step = -(-count // blocks)
    return [(lo, min(lo + step, count)) for lo in range(0, count, step)]


def rows(count: int, flops: float, block: Callable[[int, int], Any],
         bounds: list[tuple[int, int]] | None = None) -> None:
    """Call ``block(lo, hi)`` for row ranges covering ``range(count)`` (``bounds``, by
    default :func:`block_bounds`): once when the work is small, else concurrently as
    tasks, BLAS's threads shared among them.  The blocks must write disjoint outputs."""
    bounds = block_bounds(count, flops) if bounds is None else bounds
    if len(bounds) == 1:
        block(0, count)
        return
    fork_join([partial(block, lo, hi) for lo, hi in bounds], share_blas=True)
