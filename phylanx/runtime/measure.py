"""Per-node measurements: count, inclusive time, and the instrumentation hooks.

``enable(root)`` wraps every node below ``root`` so that each evaluation is
counted and timed and reported to the installed hooks (``hooks.py``);
``disable(root)`` restores the plain closures.  Nothing is measured unless
enabled, so the hot path stays free of timing.
"""
from __future__ import annotations

import logging
import threading
from time import perf_counter_ns

from . import hooks
from .nodes import Node
from .policy import Thresholds, decide, observe, watch


def _wrap(node: Node) -> None:
    inner = node.inline

    def counted(frame):
        start = perf_counter_ns()
        value = None
        try:
            value = inner(frame)
            return value
        finally:
            if node.watched and node.eval_direct == -1:
                observe(node, value)
            record(node, start, perf_counter_ns(), threading.get_ident())
    node.measured_run = counted
    node.run = counted


def record(node: Node, start: int, end: int, thread_id: int) -> None:
    """Count one evaluation of ``node`` from ``start`` to ``end`` (ns) on ``thread_id``
    and report it to the hooks (also for evaluations not run through ``node.run``:
    ``async(<collective>)``, whose value comes when MPI completes it)."""
    node.count += 1
    node.time_ns += end - start
    if node.watched and node.eval_direct == -1 and node.count >= Thresholds.count:
        decide(node)
    for hook in hooks.active():
        on_eval = getattr(hook, "on_eval", None)
        if on_eval is not None:
            on_eval(node, start, end, thread_id)


class _TraceLog:
    """The hook of ``enable_tracing``: one DEBUG record per evaluation."""

    logger = logging.getLogger("phylanx.trace")

    def on_eval(self, node: Node, start_ns: int, end_ns: int, thread_id: int) -> None:
        self.logger.debug("%s %d ns (thread %d)", node.full_name, end_ns - start_ns, thread_id)


TRACE_LOG = _TraceLog()


def enable(root: Node, reset: bool = False) -> list[Node]:
    """Measure every node of the tree under ``root``; returns the nodes."""
    nodes = [n for n in root.walk() if not n.is_const]
    for node in nodes:
        if reset:
            node.count = node.time_ns = 0
        if node.measured_run is None:
            _wrap(node)
    return nodes


def disable(root: Node) -> None:
    for node in root.walk():
        if node.measured_run is not None:
            node.measured_run = None
            node.run = node.inline
            if node.watched and node.eval_direct == -1:
                watch(node)   # still undecided: the policy keeps timing it
