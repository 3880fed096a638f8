"""Direct-versus-asynchronous evaluation policy (the original's §2.8).

A node whose siblings could run alongside it is *watched*: its first
``eval_count_threshold`` evaluations are timed.  Then, by mean time per
evaluation, it is marked inline (``eval_direct = 1``, below the lower
threshold) or asynchronous (``eval_direct = 0``, above the upper threshold,
after which its parent spawns it as a task).  Between the thresholds it keeps
being measured (hysteresis) up to ten times the count, then stays inline.
With ``sync_execution`` set, nothing is ever spawned.

The state (watched, timed, decided) is the node's entry in the scheduler's side table
(``choices.py``), which also times a decision again later (``choices.tick``,
``choices.task_ran``): this module holds the rules, not the state.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import config
from . import choices

if TYPE_CHECKING:
    from .choices import Choice
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
config.on_change(Thresholds.reload)   # config.set(...) takes effect at once


def watch_children(parent: Node) -> None:
    """Time the non-literal children of ``parent`` until each is decided.

    A child that assigns variables of the frame (``define``, ``store``, a loop
    variable) is never run concurrently with its siblings: it stays inline.
    """
    from .nodes import writes_frame
    for child in parent.children:
        entry = child.choice
        if not child.is_const and entry.eval_direct == -1 and not entry.watched:
            if writes_frame(child):
                entry.eval_direct = 1
            else:
                watch(child)


def watch(node: Node) -> None:
    """Time ``node``'s evaluations (the side table's ``measuring`` layer) until decided."""
    choices.watch(node)


def observe(entry: Choice, value) -> None:
    """Note whether the node produced what BLAS computes on its threads: a float32/64
    (or complex) matrix or vector (``_keeps_blas_inline``)."""
    entry.float_matrix = (type(value) is np.ndarray and value.dtype.kind in "fc"
                          and value.dtype.itemsize >= 4 and value.ndim <= 2)


def decide(entry: Choice) -> None:
    """Decide from the timed evaluations (called by the side table, under its lock)."""
    mean = entry.spent_ns / max(entry.runs, 1)
    if mean > Thresholds.upper_ns and not config.get("sync_execution"):
        decision = 1 if _keeps_blas_inline(entry) else 0
    elif mean < Thresholds.lower_ns or entry.runs >= 10 * Thresholds.count:
        decision = 1
    else:
        return  # undecided: keep measuring
    choices.settle(entry, decision, mean)


#: the rule below on or off (``benchmarks/policy_products.py`` compares the two)
KEEP_BLAS_PRODUCTS_INLINE = True


def _keeps_blas_inline(entry: Choice) -> bool:
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
    if not KEEP_BLAS_PRODUCTS_INLINE or not entry.float_matrix:
        return False
    stack = [entry.node]
    while stack:
        n = stack.pop()
        if n.blas:
            from . import blas_threads
            return blas_threads.multithreaded()
        if n.primitive != "lambda":          # a function defined there is not run there
            stack.extend(n.children)
    return False
