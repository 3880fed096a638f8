"""Performance data and tree topology of decorated functions.

``measure`` wraps every node of a function's execution tree with a counting
timer for one call and yields ``(counters_csv, newick, dot)`` as the
original's ``__perfdata__``; ``topology`` prints the tree as Newick and DOT.
"""
from __future__ import annotations

import contextlib
from time import perf_counter_ns

_CSV_HEADER = "primitive_instance,display_name,count,time,eval_direct"


def _nodes(function) -> list:
    body = getattr(function, "body", None)
    return list(body.walk()) if body is not None else []


def _label(node) -> str:
    return node.display_name.replace("(", "[").replace(")", "]").replace(",", ";").replace(
        " ", "")


def topology(function, name: str) -> list[str]:
    """``[newick, dot]`` of the tree below ``function``'s body."""
    body = getattr(function, "body", None)
    if body is None:
        return [f"{name};", f"digraph \"{name}\" {{\n}}"]

    def newick(node) -> str:
        kids = [newick(c) for c in node.children if getattr(c, "children", None) is not None]
        return (f"({','.join(kids)})" if kids else "") + _label(node)

    lines, ids = [], {}
    for node in body.walk():
        ids[id(node)] = f"n{len(ids)}"
        lines.append(f"    {ids[id(node)]} [label=\"{node.display_name}\"];")
    for node in body.walk():
        for child in node.children:
            if id(child) in ids:
                lines.append(f"    {ids[id(node)]} -> {ids[id(child)]};")
    return [f"({newick(body)}){name};", f"digraph \"{name}\" {{\n" + "\n".join(lines) + "\n}"]


class _Perf:
    data = (None, None, None)


@contextlib.contextmanager
def measure(decorator):
    """Count evaluations and time of every node during the block."""
    nodes = []
    seen = set()
    for dec in [decorator, *decorator.translation.deps]:
        for node in _nodes(dec._function):
            if id(node) not in seen:
                seen.add(id(node))
                nodes.append(node)
    saved = [(node, node.run) for node in nodes]
    stats = {id(n): [0, 0] for n in nodes}

    def wrap(node, run):
        entry = stats[id(node)]

        def timed(frame):
            start = perf_counter_ns()
            try:
                return run(frame)
            finally:
                entry[0] += 1
                entry[1] += perf_counter_ns() - start
        return timed

    for node, run in saved:
        node.run = wrap(node, run)
    perf = _Perf()
    try:
        yield perf
    finally:
        for node, run in saved:
            node.run = run
        rows = [_CSV_HEADER] + [
            f"\"{n.full_name}\",\"{n.display_name}\",{stats[id(n)][0]},{stats[id(n)][1]},"
            f"{n.eval_direct}" for n in nodes]
        newick, dot = topology(decorator._function, decorator.state_name)
        perf.data = ("\n".join(rows) + "\n", newick, dot)
