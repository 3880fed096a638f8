"""The types of a phylanx trace's ``otherData``, checked before a report is drawn.

``other_data_problems(other)`` lists every field of the wrong type (a rank that is not
an integer, a host that is not a string, a counters row whose ``line`` is text, ...),
each naming where it is (``otherData.counters[3].line``).  The report escapes whatever
it writes anyway; this check keeps a hand-edited or foreign trace from being drawn
with values that do not mean what the page says.
"""
from __future__ import annotations

from typing import Any

from .tree_data import walk


def _int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _str(x: Any) -> bool:
    return isinstance(x, str)


def _opt(check):
    return lambda x: x is None or check(x)


_KIND = {_int: "an integer", _number: "a number", _str: "a string"}

#: field -> check of the scalars of otherData (absent fields are fine)
TOP = {"phylanx": _str, "duration_us": _number, "threshold_us": _number,
       "localities": _int, "failed": _opt(_str), "stopped": _opt(_str)}
#: field -> check of every counters row
COUNTER_ROW = {"rank": _int, "line": _int, "count": _int, "time_ns": _number,
               "self_ns": _number, "evaluations": _opt(_int), "eval_direct": _int,
               "node": _str, "name": _str, "primitive": _str}
#: field -> check of every node of an execution tree
TREE_NODE = {"id": _str, "label": _str, "short": _str, "primitive": _str, "line": _int,
             "col": _int, "count": _int, "time_ns": _number, "self_ns": _number,
             "eval_direct": _int}
#: field -> check of every recorded source
SOURCE = {"name": _str, "file": _str, "python": _str, "first_line": _int,
          "language": _str}


def _kind(check) -> str:
    return _KIND.get(check, "of the right type (or null)")


def _fields(obj: Any, schema: dict, where: str, required: tuple = ()) -> list[str]:
    if not isinstance(obj, dict):
        return [f"{where} is not an object"]
    out = [f"{where} lacks {key!r}" for key in required if key not in obj]
    for key, check in schema.items():
        if key in obj and not check(obj[key]):
            out.append(f"{where}.{key} is {type(obj[key]).__name__} {obj[key]!r:.60}, "
                       f"not {_kind(check)}")
    return out


def _list_of(obj: Any, check, where: str) -> list[str]:
    if not isinstance(obj, list):
        return [f"{where} is not a list"]
    return [f"{where}[{i}] is {type(x).__name__} {x!r:.60}, not {_kind(check)}"
            for i, x in enumerate(obj) if not check(x)]


def _map_of(obj: Any, check, where: str) -> list[str]:
    if not isinstance(obj, dict):
        return [f"{where} is not an object"]
    return [f"{where}[{k!r:.40}] is {type(v).__name__} {v!r:.60}, not {_kind(check)}"
            for k, v in obj.items() if not (_int_key(k) and check(v))]


def _int_key(key: str) -> bool:
    """Keys of per-rank maps are rank numbers written as text (JSON keys are strings)."""
    return key.isdigit() and key.isascii()


def other_data_problems(other: dict) -> list[str]:
    """Every field of ``otherData`` (a dict) with the wrong type, located."""
    out = _fields(other, TOP, "otherData")
    if "ranks" in other:
        out += _list_of(other["ranks"], _int, "otherData.ranks")
    if "missing_ranks" in other:
        out += _list_of(other["missing_ranks"], _int, "otherData.missing_ranks")
    if "hosts" in other:
        out += _map_of(other["hosts"], _str, "otherData.hosts")
    clock = other.get("clock", {})
    if not isinstance(clock, dict):
        out.append("otherData.clock is not an object")
    elif "offsets_ns" in clock:
        out += _map_of(clock["offsets_ns"], _number, "otherData.clock.offsets_ns")
    for key, check in (("counters", _counter_row), ("trees", _tree), ("sources", _source)):
        items = other.get(key) or []
        if not isinstance(items, list):
            out.append(f"otherData.{key} is not a list")
            continue
        for i, item in enumerate(items):
            out += check(item, f"otherData.{key}[{i}]")
    return out


def _counter_row(row: Any, where: str) -> list[str]:
    return _fields(row, COUNTER_ROW, where, required=tuple(COUNTER_ROW))


def _tree(tree: Any, where: str) -> list[str]:
    if not isinstance(tree, dict):
        return [f"{where} is not an object"]
    out: list[str] = []
    stack = [tree]
    while stack:   # the shape first: walk() needs each node's children list
        node = stack.pop()
        if not isinstance(node, dict) or not isinstance(node.get("children"), list):
            return [f"{where} has a node that is not an object with a 'children' list"]
        stack.extend(node["children"])
    for n, node in enumerate(walk(tree)):
        out += _fields(node, TREE_NODE, f"{where} node {n}", required=("id", "line"))
    return out


def _source(source: Any, where: str) -> list[str]:
    out = _fields(source, SOURCE, where, required=("name", "python", "physl"))
    physl = source.get("physl") if isinstance(source, dict) else None
    if physl is not None and not (isinstance(physl, list) and all(
            isinstance(p, list) and len(p) == 2 and _str(p[0]) and _int(p[1]) for p in physl)):
        out.append(f"{where}.physl is not a list of [text, line] pairs")
    return out


__all__ = ["other_data_problems"]
