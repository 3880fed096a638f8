"""Per-node measurements: count, inclusive time, and the instrumentation hooks.

``enable(root)`` asks the scheduler's side table (``choices.py``) to count and time
every evaluation of every node below ``root`` and report it to the installed hooks
(``hooks.py``); ``disable(root)`` asks it to stop.  The plan itself is untouched: the
counting is a layer of each node's entry.  Nothing is measured unless enabled, so the
hot path stays free of timing.
"""
from __future__ import annotations

import logging

from . import choices
from .choices import record
from .nodes import Node

__all__ = ["TRACE_LOG", "disable", "enable", "record"]


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
        choices.set_counted(node, True)
    return nodes


def disable(root: Node) -> None:
    for node in root.walk():
        choices.set_counted(node, False)
