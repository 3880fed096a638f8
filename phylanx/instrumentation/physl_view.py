"""Python source beside the PhySL generated from it, linked by line.

The canonical printer puts a whole function on one line; ``physl_lines`` breaks
calls over several lines (one argument per line, indented) until each line is
short, and tags every line with the source line of the AST node that starts it
(for a decorated function: the Python line it was translated from).
"""
from __future__ import annotations

import dataclasses
import inspect
from typing import Any

from ..language import ast, to_physl

WIDTH = 76


def physl_lines(node: Any, indent: int = 0, width: int = WIDTH) -> list[tuple[str, int]]:
    """``[(text, source line)]`` of ``node`` printed over several lines."""
    pad = "    " * indent
    text = to_physl(node)
    line = node.loc.line if getattr(node, "loc", None) is not None else -1
    if len(pad) + len(text) <= width or not isinstance(node, ast.Call) or not node.args:
        return [(pad + text, line)]
    head = to_physl(dataclasses.replace(node, args=()))[:-1]     # "name(" (attributes kept)
    out = [(pad + head, line)]
    for i, arg in enumerate(node.args):
        if isinstance(arg, ast.KeywordArg):
            sub = physl_lines(arg.value, indent + 1, width)
            first = sub[0][0]
            sub[0] = (first[: len(pad) + 4] + f"__arg({arg.name}, " + first[len(pad) + 4:],
                      sub[0][1])
            sub[-1] = (sub[-1][0] + ")", sub[-1][1])
        else:
            sub = physl_lines(arg, indent + 1, width)
        if i + 1 < len(node.args):
            sub[-1] = (sub[-1][0] + ",", sub[-1][1])
        out.extend(sub)
    out.append((pad + ")", line))
    return out


def program_lines(program: Any) -> list[tuple[str, int]]:
    lines: list[tuple[str, int]] = []
    for stmt in program.body:
        lines.extend(physl_lines(stmt))
    return lines


def decorated_source(decorated: Any) -> dict | None:
    """``{name, file, first_line, python, physl: [[text, line], ...]}`` of a ``@Phylanx``
    function (duck-typed: ``python`` and ``translation``), or None."""
    fn = getattr(decorated, "python", None)
    if fn is None or not hasattr(decorated, "translation"):
        return None
    try:
        lines, first = inspect.getsourcelines(fn)
        program = decorated.translation.program
    except (OSError, TypeError, Exception):   # noqa: BLE001 - no source: nothing to show
        return None
    return {"name": getattr(fn, "__name__", "?"), "file": inspect.getsourcefile(fn) or "",
            "first_line": first, "python": "".join(lines),
            "physl": [list(p) for p in program_lines(program)]}


def physl_file_source(path: str, text: str, program: Any) -> dict:
    """A PhySL program file: the file itself beside its canonical, broken-up form."""
    return {"name": path, "file": path, "first_line": 1, "python": text,
            "physl": [list(p) for p in program_lines(program)], "language": "physl"}


def find_decorated(namespace: dict) -> list[Any]:
    """The compiled ``@Phylanx`` functions among a module's globals."""
    out = []
    for value in list(namespace.values()):
        if getattr(value, "_compiled", False) and hasattr(value, "translation") \
                and hasattr(value, "python"):
            out.append(value)
    return out
