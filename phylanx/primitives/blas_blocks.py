"""Large BLAS products split into row blocks run as phylanx tasks, BLAS single-threaded.

Why: phylanx runs independent statements as concurrent tasks (the two products of a
layer's backward pass, say).  A multi-threaded BLAS inside each of them puts
``tasks x BLAS threads`` busy threads on the cores, and OpenBLAS's threads spin while
they wait for each other: on cores shared with the other task, or with other processes
of a loaded machine, a product then takes several times its time alone (measured in
``benchmarks/nn_step.py``, docs/nn.md).  So one level of parallelism only, phylanx's:

* :func:`rows` runs a product whose rows are independent as ``BLOCKS_PER_THREAD``
  blocks per pool thread under one ``fork_join`` (idle workers and the waiting thread
  take them; several blocks per thread balance cores another process also uses);
* while any blocks run, the BLAS library is limited to one thread
  (:func:`single_threaded_blas`, reference-counted: the first block group sets the
  limit, the last one restores it, so NumPy code outside phylanx keeps its threads).

Products below ``MIN_FLOPS`` run as one call (a task costs tens of microseconds), and
so does everything when the pool has one thread or ``sync_execution`` is set.  The
limit needs ``threadpoolctl`` (a dependency); without it blocks still run, unlimited.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import contextmanager
from functools import partial
from typing import Any

from ..runtime.executors import get_executor
from ..runtime.forkjoin import fork_join

#: flops (2 m n k) from which a product is split into blocks
MIN_FLOPS = 8_000_000
#: blocks per pool thread (> 1: a thread that got a shared core does less of the work)
BLOCKS_PER_THREAD = 2
#: fewest rows of a block (BLAS is efficient from a few dozen rows on)
MIN_ROWS = 32

_lock = threading.Lock()
_users = 0
_limiter: Any = None
_controller: Any = None


def _blas_controller() -> Any:
    global _controller
    if _controller is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:          # no limit: blocks still run, BLAS keeps its threads
            _controller = False
        else:
            _controller = ThreadpoolController()
    return _controller


@contextmanager
def single_threaded_blas():
    """BLAS limited to one thread while any holder of this context runs."""
    global _users, _limiter
    with _lock:
        _users += 1
        if _users == 1:
            controller = _blas_controller()
            _limiter = controller.limit(limits=1, user_api="blas") if controller else None
    try:
        yield
    finally:
        with _lock:
            _users -= 1
            if _users == 0 and _limiter is not None:
                _limiter.restore_original_limits()
                _limiter = None


def block_bounds(count: int, flops: float) -> list[tuple[int, int]]:
    """Row ranges for a product of ``count`` rows and ``flops`` work: one range when it
    is not worth splitting."""
    executor = get_executor()
    threads = executor.num_threads
    if threads < 2 or flops < MIN_FLOPS or count < 2 * MIN_ROWS:
        return [(0, count)]
    blocks = max(2, min(threads * BLOCKS_PER_THREAD, count // MIN_ROWS))
    step = -(-count // blocks)
    return [(lo, min(lo + step, count)) for lo in range(0, count, step)]


def rows(count: int, flops: float, block: Callable[[int, int], Any],
         bounds: list[tuple[int, int]] | None = None) -> None:
    """Call ``block(lo, hi)`` for row ranges covering ``range(count)`` (``bounds``, by
    default :func:`block_bounds`): once when the work is small, else concurrently as
    tasks with BLAS single-threaded.  The blocks must write disjoint outputs."""
    bounds = block_bounds(count, flops) if bounds is None else bounds
    if len(bounds) == 1:
        block(0, count)
        return
    with single_threaded_blas():
        fork_join([partial(block, lo, hi) for lo, hi in bounds], share_blas=True)
