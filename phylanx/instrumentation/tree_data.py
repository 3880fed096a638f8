"""The execution tree as plain data: nested dicts with counts and times per node.

Both pictures (``tree_picture``) and the report draw from this form, whether the
numbers come from a live tree's counters (``from_node``) or from a trace file
(its ``otherData["trees"]``, written by ``trace_file``).  A node dict holds
``id`` (full name, §2.5), ``label`` (display name), ``primitive``, ``short``
(primitive and instance, for pictures), ``line``,
``col``, ``count``, ``time_ns`` (inclusive), ``self_ns`` (exclusive),
``eval_direct`` (1 inline, 0 async, -1 undecided) and ``children``.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..runtime.nodes import Node

#: trees larger than this lose their never-evaluated subtrees first, then are cut
MAX_NODES = 400

Stats = Callable[[Node], tuple[int, int, int | None]]


def counter_stats(node: Node) -> tuple[int, int, int | None]:
    """(count, inclusive ns, exclusive ns or None: computed from the children)."""
    return node.count, node.time_ns, None


def from_node(root: Node, stats: Stats = counter_stats, max_nodes: int = MAX_NODES) -> dict:
    """The tree below ``root`` (literals left out) with ``stats`` per node."""
    def build(node: Node) -> dict:
        count, incl, excl = stats(node)
        kids = [build(c) for c in node.children if not c.is_const]
        if excl is None:
            excl = max(0, incl - sum(k["time_ns"] for k in kids))
        loc = node.loc
        short = node.primitive.lstrip("_") or node.primitive
        return {"id": node.full_name, "label": node.display_name,
                "primitive": node.primitive,
                "short": f"{short} {node.instance}" if node.instance else short,
                "line": loc.line if loc else -1,
                "col": loc.col if loc else -1, "count": count, "time_ns": incl,
                "self_ns": excl, "eval_direct": node.eval_direct, "children": kids}
    return prune(build(root), max_nodes)


def walk(tree: dict) -> Iterator[dict]:
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node["children"]))


def size(tree: dict) -> int:
    return sum(1 for _ in walk(tree))


def active(tree: dict) -> bool:
    return any(n["count"] for n in walk(tree))


def prune(tree: dict, max_nodes: int = MAX_NODES) -> dict:
    """Drop never-evaluated subtrees, then cut depth-first, until ``max_nodes`` fit."""
    if size(tree) <= max_nodes:
        return tree

    def keep_active(node: dict) -> dict:
        kids = [keep_active(k) for k in node["children"] if active(k)]
        return {**node, "children": kids}
    tree = keep_active(tree)
    budget = [max_nodes]

    def cut(node: dict) -> dict:
        budget[0] -= 1
        kids = []
        for k in node["children"]:
            if budget[0] <= 0:
                node = {**node, "truncated": True}
                break
            kids.append(cut(k))
        return {**node, "children": kids}
    return cut(tree)


def totals(tree: dict) -> dict[str, Any]:
    """Largest inclusive and exclusive times (for colour scales)."""
    nodes = list(walk(tree))
    return {"time_ns": max((n["time_ns"] for n in nodes), default=0),
            "self_ns": max((n["self_ns"] for n in nodes), default=0)}
