"""Direct-versus-asynchronous evaluation policy (the original's §2.8).

A node whose siblings could run alongside it is *watched*: its first
``eval_count_threshold`` evaluations are timed.  Then, by mean time per
evaluation, it is marked inline (``eval_direct = 1``, below the lower
threshold) or asynchronous (``eval_direct = 0``, above the upper threshold,
after which its parent spawns it as a task).  Between the thresholds it keeps
being measured (hysteresis) up to ten times the count, then stays inline.
With ``sync_execution`` set, nothing is ever spawned.
"""
from __future__ import annotations

import threading
from time import perf_counter_ns
from typing import TYPE_CHECKING

import numpy as np

from .. import config

if TYPE_CHECKING:
    from .nodes import Node


class Thresholds:
    """The three numbers of the policy, read once from :mod:`phylanx.config`."""

    count = 5
    upper_ns = 500_000
    lower_ns = 350_000

    @classmethod
    def reload(cls) -> None:
        cls.count = int(config.get("eval_count_threshold"))
        cls.upper_ns = int(config.get("exec_time_upper_threshold"))
        cls.lower_ns = int(config.get("exec_time_lower_threshold"))


Thresholds.reload()
_lock = threading.Lock()
config.on_change(Thresholds.reload)   # config.set(...) takes effect at once


def watch_children(parent: Node) -> None:
    """Time the non-literal children of ``parent`` until each is decided.

    A child that assigns variables of the frame (``define``, ``store``, a loop
    variable) is never run concurrently with its siblings: it stays inline.
    """
    from .nodes import writes_frame
    for child in parent.children:
        if not child.is_const and child.eval_direct == -1:
            if writes_frame(child):
                child.eval_direct = 1
            else:
                watch(child)


def watch(node: Node) -> None:
    node.watched = True
    inline = node.inline

    def measuring(frame):
        start = perf_counter_ns()
        value = None
        try:
            value = inline(frame)
            return value
        finally:
            # recursion re-enters the same node: only completions before the
            # decision count, later (outer) ones must not overturn it.  Concurrent
            # evaluations (tasks, threads) update the counters under a lock: only
            # the first Thresholds.count evaluations pay for it.
            if node.eval_direct == -1:
                elapsed = perf_counter_ns() - start
                with _lock:
                    if node.eval_direct == -1:
                        node.count += 1
                        node.time_ns += elapsed
                        observe(node, value)
                        if node.count >= Thresholds.count:
                            decide(node)

    node.run = measuring


def observe(node: Node, value) -> None:
    """Note whether ``node`` produced what BLAS computes on its threads: a float32/64
    (or complex) matrix or vector (``_keeps_blas_inline``)."""
    node.float_matrix = (type(value) is np.ndarray and value.dtype.kind in "fc"
                         and value.dtype.itemsize >= 4 and value.ndim <= 2)


def decide(node: Node) -> None:
    mean = node.time_ns / max(node.count, 1)
    if mean > Thresholds.upper_ns and not config.get("sync_execution"):
        if _keeps_blas_inline(node):
            node.eval_direct = 1
        else:
            node.eval_direct = 0
            if node.parent is not None:
                node.parent.async_children = True
    elif mean < Thresholds.lower_ns or node.count >= 10 * Thresholds.count:
        node.eval_direct = 1
    else:
        return  # undecided: keep measuring
    node.run = node.measured_run or node.inline


#: the rule below on or off (``benchmarks/policy_products.py`` compares the two)
KEEP_BLAS_PRODUCTS_INLINE = True


def _keeps_blas_inline(node: Node) -> bool:
    """A product that BLAS runs on several threads is not spawned: it runs on the
    thread that needs it.  Spawned beside the rest of an MLP's backward pass (the next
    product) two products fight over BLAS's threads, and when the machine is busy a
    worker the OS deschedules holds up the join; inline, nothing waits for a worker
    (``benchmarks/policy_products.py``, W4's training step).  Applies to a node whose
    value is a float matrix (what BLAS computes: not integer, float16 or N-d ``dot``
    products, which NumPy runs on one thread) computed by a product (flag ``blas``)
    in its subtree (``dot(a, b) * 2.0`` as well); siblings may still be spawned, so a
    product still overlaps element-wise work.  With one BLAS thread (an MPI rank)
    products are spawned as any node."""
    if not KEEP_BLAS_PRODUCTS_INLINE or not node.float_matrix:
        return False
    stack = [node]
    while stack:
        n = stack.pop()
        if n.blas:
            from . import blas_threads
            return blas_threads.multithreaded()
        if n.primitive != "lambda":          # a function defined there is not run there
            stack.extend(n.children)
    return False
