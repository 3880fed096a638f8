"""Per-primitive counters in the original's CSV format (§5.1).

Header ``primitive_instance,display_name,count,time,eval_direct``; one line per
node: full name, display name, evaluations, inclusive nanoseconds, and the
inline/async decision (1 inline, 0 async, -1 undecided).
"""
from __future__ import annotations

from collections.abc import Iterable

from ..runtime import measure
from ..runtime.nodes import Node

HEADER = "primitive_instance,display_name,count,time,eval_direct"


def enable_measurements(roots: Iterable[Node], reset: bool = False) -> list[str]:
    """Turn on counting for every node under ``roots``; returns their full names."""
    names = []
    for root in roots:
        names.extend(n.full_name for n in measure.enable(root, reset))
    return names


def counter_csv(roots: Iterable[Node]) -> str:
    lines = [HEADER]
    seen: set[int] = set()
    for root in roots:
        for n in root.walk():
            if n.is_const or id(n) in seen:
                continue
            seen.add(id(n))
            lines.append(f'"{n.full_name}","{n.display_name}",{n.count},{n.time_ns},'
                         f"{n.eval_direct}")
    return "\n".join(lines) + "\n"
