"""The execution tree as Newick and DOT text (§5.2), node names as in §2.5."""
from __future__ import annotations

from ..runtime.nodes import Node


def _label(node: Node) -> str:
    return node.full_name


def newick_tree(name: str, root: Node) -> str:
    """``(<children>) <node>`` recursively, wrapped as ``(<tree>) <name>;``."""
    def rec(node: Node) -> str:
        kids = [c for c in node.children if not c.is_const]
        if not kids:
            return _label(node)
        return "(" + ",".join(rec(c) for c in kids) + ") " + _label(node)
    return f"({rec(root)}) {name};"


def dot_tree(name: str, root: Node) -> str:
    """``graph "<name>" { "parent" -- "child"; ... }`` (leaves listed alone)."""
    lines = [f'graph "{name}" {{']
    for node in root.walk():
        if node.is_const:
            continue
        kids = [c for c in node.children if not c.is_const]
        if not kids:
            lines.append(f'    "{_label(node)}";')
        for c in kids:
            lines.append(f'    "{_label(node)}" -- "{_label(c)}";')
    lines.append("}")
    return "\n".join(lines) + "\n"
