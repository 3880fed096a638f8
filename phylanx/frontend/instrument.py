"""Performance data and tree topology of decorated functions.

Thin glue over the shared instrumentation: ``measure`` counts every node of a
function's execution tree (and of the decorated functions it calls) for one
call and yields the original's ``__perfdata__`` triple ``(counters_csv, newick,
dot)``; ``topology`` gives ``[newick, dot]``.  Formats: ``phylanx.instrumentation``.
"""
from __future__ import annotations

import contextlib

from ..instrumentation import counter_csv, dot_tree, newick_tree
from ..runtime import measure as node_measure


def _body(function):
    return getattr(function, "body", None)


def topology(function, name: str) -> list[str]:
    """``[newick, dot]`` of the tree below ``function``'s body."""
    body = _body(function)
    if body is None:
        return [f"{name};", f'graph "{name}" {{\n}}\n']
    return [newick_tree(name, body), dot_tree(name, body)]


def picture(function, path: str, by: str, title: str) -> str:
    """Draw the tree below ``function``'s body (``instrumentation.tree_picture``)."""
    from ..instrumentation import tree_data, tree_picture
    body = _body(function)
    if body is None:
        raise ValueError(f"{title} has no execution tree to draw")
    return tree_picture.write(tree_data.from_node(body), path, by, title)


class _Perf:
    data = (None, None, None)


@contextlib.contextmanager
def measure(decorator):
    """Count evaluations and time of every node during the block (counters reset first)."""
    roots = []
    for dec in [decorator, *decorator.translation.deps]:
        body = _body(dec._function)
        if body is not None and all(body is not r for r in roots):
            roots.append(body)
    for root in roots:
        node_measure.enable(root, reset=True)
    perf = _Perf()
    try:
        yield perf
    finally:
        for root in roots:
            node_measure.disable(root)
        perf.data = (counter_csv(roots), *topology(decorator._function, decorator.state_name))
